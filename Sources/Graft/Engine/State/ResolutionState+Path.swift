// Graft — MIT License.

/// What the running frames say: the innermost entry, the path of a resolution, a cycle's chain, and
/// the stop for a plain container used from two threads. Queries only: no field changes here.
extension ResolutionState {
    /// The entry whose factory or `initCompleted` runs innermost, if any.
    var innermostEntry: AnyServiceEntry? {
        stack.count == 0 ? nil : stack[stack.count - 1].takeUnretainedValue() as? AnyServiceEntry
    }

    /// `A -> B -> A`, from the innermost frame of `entry` (its `factoryFrame`) to the innermost
    /// frame of all.
    func chain(reentering entry: AnyServiceEntry) -> String {
        let start = entry.factoryFrame >= 0 ? min(entry.factoryFrame, stack.count) : 0
        return (path[start...] + [SharedState.label(entry)]).joined(separator: " -> ")
    }

    /// The frames, and `entry` after them, as a cycle repeated until the depth limit: the cycle
    /// once (`P -> Q -> P`), whether it runs through `initCompleted` actions of transient services
    /// only (which make new instances on every pass), and a short account of the path.
    func repeatingCycle(
        reentering entry: AnyServiceEntry
    ) -> (chain: String, isTransientThroughInitCompleted: Bool, shownPath: String)? {
        let entries = (0..<stack.count).map { stack[$0].takeUnretainedValue() as! AnyServiceEntry } + [entry]
        let last = entries.count - 1
        guard let previous = entries[..<last].lastIndex(where: { $0 === entry }) else { return nil }
        let period = last - previous
        // Where the repetition starts: the first frame from which every frame repeats `period` later.
        var start = previous
        while start > 0 && entries[start - 1] === entries[start - 1 + period] { start -= 1 }
        let repeats = (entries.count - start - 1) / period
        guard repeats >= 2 else { return nil }
        let labels = entries.map { SharedState.label($0) }
        let isTransient = entries[previous...].allSatisfy { $0.scopeKind == .transient } && completionFrame >= previous
        let shown =
            labels[...(start + period)].joined(separator: " -> ")
            + " -> ... (\(labels[previous..<last].joined(separator: " -> ")) \(repeats) times)"
        return (labels[previous...].joined(separator: " -> "), isTransient, shown)
    }

    /// The services whose factories (or `initCompleted` actions) are running, outermost first.
    var path: [String] {
        (0..<stack.count).map { SharedState.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
    }

    /// In a check that found the path's state inconsistent: stops with the message for a plain
    /// container used from two threads at once when another thread's requests are in flight
    /// (the likely cause), rather than with the internal check's message.
    func stopIfAnotherThreadResolves(_ event: @autoclosure () -> String) {
        if depth > 0 && requestThread != Platform.currentThread() { SharedState.stopOnTwoThreads(event()) }
    }
}
