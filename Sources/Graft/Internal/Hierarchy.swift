// Graft — MIT License.

/// State shared by a root container and all its descendants: the one mutex their synchronized
/// views lock, and the resolution in flight (depth, the graph's instances, what to undo on failure).
///
/// A resolution that starts in a child and reaches a parent's registration stays one resolution,
/// so graph-scoped instances are shared across the hierarchy while it runs.
final class Hierarchy {
    let mutex = RecursiveMutex()

    // Every field is touched only by the resolution in flight: one thread at a time by the
    // container's contract, or under `mutex`. Hence no dynamic exclusivity checks on them.

    /// Nesting of factories and `initCompleted` actions now running; 0 between resolutions.
    @exclusivity(unchecked) var depth = 0
    /// Entries whose factory or `initCompleted` actions are running, outermost first. Unretained:
    /// each is held by the call that pushed it until that call pops it.
    @exclusivity(unchecked) private var stack: [Unmanaged<AnyObject>] = []
    /// Stack index of the innermost running `initCompleted` action, or -1.
    @exclusivity(unchecked) private var completionFrame = -1
    /// Entries holding an instance for the current graph.
    @exclusivity(unchecked) private var graphEntries: [AnyServiceEntry] = []
    /// Entries that kept a new instance beyond the graph during this resolution (undone on failure).
    @exclusivity(unchecked) private var keptEntries: [AnyServiceEntry] = []
    /// Why the current resolution failed, once it has.
    @exclusivity(unchecked) private(set) var failure: String?
    /// The current graph's identifier, made only when someone asks for it.
    @exclusivity(unchecked) private var graph: GraphIdentifier?

    static let maximumDepth = 200

    var currentGraph: GraphIdentifier {
        if let graph { return graph }
        let made = GraphIdentifier()
        graph = made
        return made
    }

    /// The current graph's identifier if anyone has asked for it (only then can it be resolved again).
    var knownGraph: GraphIdentifier? { graph }

    /// The identifier of the graph in flight, or `nil` between resolutions.
    var graphIfResolving: GraphIdentifier? {
        depth > 0 ? currentGraph : nil
    }

    @inline(__always)
    func pushFactory(_ entry: AnyServiceEntry) -> Int {
        depth += 1
        stack.append(Unmanaged.passUnretained(entry))
        return stack.count - 1
    }

    @inline(__always)
    func popFactory() {
        stack.removeLast()
        depth -= 1
    }

    @inline(__always)
    func runCompletion(_ entry: AnyServiceEntry, _ body: () -> Void) {
        let outer = completionFrame
        depth += 1
        stack.append(Unmanaged.passUnretained(entry))
        completionFrame = stack.count - 1
        body()
        completionFrame = outer
        stack.removeLast()
        depth -= 1
    }

    @inline(__always)
    func holdsGraphInstance(_ entry: AnyServiceEntry) {
        graphEntries.append(entry)
    }

    @inline(__always)
    func keptNewInstance(_ entry: AnyServiceEntry) {
        keptEntries.append(entry)
    }

    /// Re-entering `entry` while its own factory runs, with no `initCompleted` in between, can only
    /// recurse forever: `A`'s factory needs `B`, whose factory needs `A`, and so on.
    func isConstructorCycle(_ entry: AnyServiceEntry) -> Bool {
        entry.factoryFrame >= 0 && completionFrame < entry.factoryFrame
    }

    /// `A -> B -> A`, from the first frame of `entry` to the innermost.
    func chain(reentering entry: AnyServiceEntry) -> String {
        let start = entry.factoryFrame >= 0 ? entry.factoryFrame : 0
        let names = stack[start...].map { Self.label($0.takeUnretainedValue() as! AnyServiceEntry) } + [Self.label(entry)]
        return names.joined(separator: " -> ")
    }

    static func label(_ entry: AnyServiceEntry) -> String {
        entry.name.map { "\(entry.serviceType) (name: \"\($0)\")" } ?? "\(entry.serviceType)"
    }

    /// Marks the resolution in flight as failed: it returns `nil` and keeps nothing it made.
    func fail(_ message: String) {
        if failure == nil { failure = message }
    }

    /// Ends a top-level resolution: drops the graph, and on failure everything it kept.
    /// - Returns: Whether the resolution succeeded.
    func finishResolution() -> Bool {
        let succeeded = failure == nil
        if !graphEntries.isEmpty {
            let remembered = succeeded ? graph : nil
            for entry in graphEntries { entry.endGraph(remembering: remembered) }
            graphEntries.removeAll(keepingCapacity: true)
        }
        if !keptEntries.isEmpty {
            if !succeeded {
                for entry in keptEntries { entry.dropKeptInstance() }
            }
            keptEntries.removeAll(keepingCapacity: true)
        }
        failure = nil
        graph = nil
        return succeeded
    }

    /// Resolves inside `identifier`'s graph, setting aside the graph in flight (if another) meanwhile.
    func withGraph<T>(_ identifier: GraphIdentifier, _ body: () throws -> T) rethrows -> T {
        if depth > 0 && graph == identifier {
            return try body()
        }
        let outerGraph = graph
        let outerEntries = graphEntries
        let outerInstances = graphEntries.map { $0.takeGraphInstance() }
        graphEntries = []
        graph = identifier
        depth += 1
        defer {
            depth -= 1
            for entry in graphEntries { entry.endGraph(remembering: failure == nil ? identifier : nil) }
            graphEntries = outerEntries
            for (entry, instance) in zip(outerEntries, outerInstances) { entry.restoreGraphInstance(instance) }
            graph = outerGraph
            if depth == 0 { _ = finishResolution() }
        }
        return try body()
    }
}
