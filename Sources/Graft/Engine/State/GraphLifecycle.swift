// Graft — MIT License.

/// The end of a graph and of a failed request: instances moved out of their cells, then released
/// once the hierarchy is consistent; graphs set aside and resumed (`withObjectGraph`).
extension SharedState {
    // MARK: Teardown

    /// Releases the finished graph's values (remembering them first if the graph escaped), tells
    /// custom storages, then releases what else was moved out: user code runs here, with the
    /// hierarchy consistent, and may resolve, register or remove.
    /// (`inout`: a copy would share the arrays, and emptying a shared array allocates a new one.)
    func finish(_ teardown: inout ResolutionState.Teardown) {
        // Nothing released here is part of the call at this frame count: a `require` (or `Lazy`)
        // that hands its failure to its caller does not take theirs for its own.
        let quietCall = resolution.suspendQuietCall()
        defer { resolution.endQuietCall(quietCall) }
        for index in teardown.members.indices {
            // A class instance in a cell whose entry has no custom storage: released here, with no
            // call into the entry (the common case); otherwise through the entry.
            if InstanceCell.releaseFinishedReference(at: teardown.members[index].cell.base) { continue }
            if let storage = teardown.members[index].entry.releaseFinishedGraphInstance() {
                teardown.storages.append((storage, nil))
            }
        }
        if !teardown.storages.isEmpty { assertUserCodeMayRun("a custom scope's storage") }
        for (storage, graph) in teardown.storages {
            if let graph { storage.setInstance(nil, inGraph: graph) } else { storage.graphResolutionCompleted() }
        }
        // Each list emptied only if it holds something: emptying an empty array is a call.
        if !teardown.values.isEmpty { teardown.values.removeAll(keepingCapacity: true) }
        if !teardown.members.isEmpty {
            resolution.countReleasedEntries(teardown.members.count)
            GraphMember.releaseEntries(of: &teardown.members)
        }
        if !teardown.entries.isEmpty { teardown.entries.removeAll(keepingCapacity: true) }
        resolution.keepBuffers(of: &teardown)
        // The lists are read only where the hint says they may hold values (an access to either
        // is a call in optimized builds): every value put on one sets it, and only
        // `settleGeneralEnd` clears it, from the lists themselves.
        guard resolution.mayHaveLaterReleases else {
            assert(
                laterReleases.isEmpty && handedFailures.isEmpty && calls.heldMessages.isEmpty,
                "SharedState: a list holds values the hint missed")
            return resolution.settleGeneralEnd(listsMayHoldValues: false)
        }
        finishLaterReleases(quietCall: quietCall)
    }

    /// The end of ``finish(_:)`` where a list may hold values. Released only by a teardown that
    /// no call encloses: a call that hands its failure to its caller releases them at its end
    /// (``releasePastCall()``), as does user code the library runs (a `deinit` an enclosing
    /// teardown released): a value's last reference may be one that call still holds (the
    /// planned path's, on an entry replaced while its factory ran), released inside it after this.
    /// Held log messages go out last, once the teardown's user code has run, if the hierarchy is
    /// idle then.
    @inline(never)
    private func finishLaterReleases(quietCall: Int) {
        if quietCall == -1 { releaseLaterReleases() }
        endOutsideCall(quietCall)  // `finish` ends it again on return, to the same level
        // After every release and delivery: a `deinit` or logging function may have put more on them.
        resolution.settleGeneralEnd(
            listsMayHoldValues: !laterReleases.isEmpty || !handedFailures.isEmpty || !calls.heldMessages.isEmpty)
    }

    /// Runs `body`, user code the library runs at the frame count of the call in flight but no
    /// part of it (a custom scope's storage): as in ``finish(_:)``, a resolution it makes logs its
    /// failure even where that call hands its own to its caller.
    func outsideCall<T>(_ body: () -> T) -> T {
        let quietCall = resolution.suspendQuietCall()
        defer { endOutsideCall(quietCall) }
        return body()
    }

    /// User code the library ran outside the call in flight has returned: the call's level is
    /// back, and if that leaves the hierarchy idle, what the user code logged goes out.
    private func endOutsideCall(_ quietCall: Int) {
        resolution.endQuietCall(quietCall)
        if resolution.mayHaveLaterReleases { deliverHeldMessages() }
    }

    /// Releases `value`, which the library drops at the frame count of the call in flight (an
    /// instance of another type than the one it was forwarded to), as ``outsideCall(_:)`` runs
    /// user code: its `deinit` is no part of that call, which then reads its own `failure`.
    @inline(never)
    func releaseOutsideCall(_ value: consuming Any, recordingAgain failure: ResolutionError) {
        var held: Any? = consume value
        recordingAgain(failure) { outsideCall { held = nil } }
        _ = held
    }

    /// Drops `instance`, which a construction made for the call in flight and which is not its
    /// result (the construction failed, or its scope kept another instance meanwhile). If that call
    /// hands its failure to its caller, its `deinit` is no part of the call (run at the call's
    /// frame count, a resolution it makes would go unlogged, or its failure be taken for the
    /// call's own), nor of a factory running below it (a resolution it makes would join that
    /// factory's request): it is released later (``releaseLater(_:)``), at the call's end
    /// (``releasePastCall()``) or at the end of the request that runs the factory (``finish(_:)``).
    @inline(never) @usableFromInline
    func dropPastCall<Instance>(_ instance: Instance) {
        if handsFailureToCaller { releaseLater(instance) }
    }

    /// A call that hands its failure to its caller ends (the hint said a list may hold values):
    /// what is released later is released now if it may be, as ``outsideCall(_:)`` runs user
    /// code, and the call then reads its own failure. Recording it again replaces the failure a
    /// `deinit` recorded, which goes on the list (``record(_:)``): released in turn.
    @inline(never) @usableFromInline
    func releasePastCall() {
        // Ended inside user code that a suspended call runs: the list is that call's.
        guard resolution.quietLevel != ResolutionState.suspendedLevel else { return }
        let ended = resolution.beginQuietCall()  // the call that ended, again, while its list goes
        while mayReleaseLater && !laterReleases.isEmpty {
            recordingAgain(resolution.lastError) { outsideCall { releaseLaterReleases() } }
        }
        resolution.endQuietCall(ended)
        deliverHeldMessages()
    }

    /// Whether ``laterReleases`` may be released: no factory runs (a running factory's entry, and
    /// the extras its call borrows, may be kept there), and no failed request is ending (a request
    /// started inside it, refused for its failure, keeps its entry there while the planned path
    /// borrows it). Then nothing on the list is borrowed, and the hierarchy is consistent.
    var mayReleaseLater: Bool { frameCount == 0 && !resolution.hasFailed }

    /// Releases ``laterReleases``, if it may be.
    @inline(__always)
    private func releaseLaterReleases() {
        while mayReleaseLater && !laterReleases.isEmpty {
            withExtendedLifetime(exchange(&laterReleases, [])) {}  // released once the list is empty
        }
    }

    // MARK: Graphs

    /// Resolves inside `identifier`'s graph, setting aside the graph in flight (if another)
    /// meanwhile; with no identifier, inside a new graph that no one can resolve again (a
    /// collection's). Each resolution `body` starts is a request of its own.
    func withGraph<T>(
        _ identifier: GraphIdentifier?, resolving label: @autoclosure () -> String = "withObjectGraph",
        _ body: () throws -> T
    ) rethrows -> T {
        claimRequests(resolving: label())
        let scope = resolution.enterGraphScope(identifier)
        guard let outer = scope.setsAside else {
            defer { resolution.leaveGraphScope(scope) }
            return try body()
        }
        let outerInstances = outer.members.map { $0.entry.takeGraphInstance() }
        defer {
            var teardown = resolution.startTeardown()
            uncheckedSection { resolution.leaveGraphScope(scope, into: &teardown) }
            for (member, instance) in zip(outer.members, outerInstances) {
                member.entry.restoreGraphInstance(instance, in: self)
            }
            finish(&teardown)
            // Each call in the scope that hands its failure to its caller has read it there.
            forgetLastErrorUnlessRead(aCallMayRead: false)
            // Last: a `deinit` run by `finish` resolves as a request of its own, as at any graph's end.
            resolution.leaveGraphScope(scope)
        }
        return try body()
    }
}

/// What a finished graph whose identifier escaped left alive: weak references to its instances,
/// by entry, so resolving in that graph again (`Lazy.instance`, `withObjectGraph`) finds them.
/// Kept while any of them lives; dead records are swept as new ones arrive.
@usableFromInline
final class GraphRecord {
    private struct Remembered {
        weak var entry: AnyObject?
        weak var object: AnyObject?
    }

    private var remembered: [Remembered] = []

    func remember(_ entry: AnyServiceEntry, _ object: AnyObject) {
        guard let index = remembered.firstIndex(where: { $0.entry === entry }) else {
            return remembered.append(Remembered(entry: entry, object: object))
        }
        remembered[index].object = object
    }

    func object(for entry: AnyServiceEntry) -> AnyObject? {
        remembered.first { $0.entry === entry }?.object
    }

    var hasLiveInstances: Bool {
        remembered.contains { $0.object != nil && $0.entry != nil }
    }
}
