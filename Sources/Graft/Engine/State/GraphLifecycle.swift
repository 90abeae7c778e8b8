// Graft — MIT License.

/// The end of a graph and of a failed request: instances moved out of their cells, then released
/// once the hierarchy is consistent; graphs set aside and resumed (`withObjectGraph`).
extension SharedState {
    // MARK: Teardown

    /// Undoes what `request` made: its graph instances and the instances it kept in other scopes.
    func rollBack(_ request: ResolutionState.Request, into teardown: inout ResolutionState.Teardown) {
        assert(!resolution.isMovingOut, "SharedState: teardown re-entered while moving instances out")
        resolution.isMovingOut = true
        let rolledBackGraph = resolution.graph
        resolution.finishGraphEntries(from: max(request.graphMark, resolution.fixedGraph), into: &teardown)
        // The graph itself goes on: a custom scope's storage is told that it ended once, at its
        // end, so its entry stays listed (its instance is cleared below, with the kept ones; its
        // cell holds none).
        for member in teardown.members where member.cell.entryHasStorage {
            member.cell.isListedInGraph = true
            resolution.graphEntries.append(member)
        }
        teardown.members.removeAll { $0.cell.entryHasStorage }
        for kept in resolution.keptEntries[max(request.keptMark, resolution.fixedKept)...] {
            if let storage = kept.entry.moveKeptInstance(into: &teardown.values, generation: kept.generation) {
                teardown.storages.append((storage, rolledBackGraph))
            }
        }
        resolution.takeKeptEntries(from: request.keptMark, into: &teardown)
        resolution.isMovingOut = false
    }

    /// Ends the current graph: its instances are marked finished (and will be remembered weakly
    /// if its identifier escaped), and the hierarchy is left with no graph.
    func detachGraph() -> ResolutionState.Teardown {
        var teardown = resolution.startTeardown()
        detachGraph(into: &teardown)
        return teardown
    }

    func detachGraph(into teardown: inout ResolutionState.Teardown) {
        let identifier = resolution.graph
        let record: GraphRecord? =
            if resolution.graphEscaped, let identifier {
                resolution.recalled ?? resolution.records[identifier] ?? GraphRecord()
            } else { nil }
        resolution.forgetGraph()
        if resolution.graphEntries.isEmpty { return }
        assert(!resolution.isMovingOut, "SharedState: teardown re-entered while moving instances out")
        resolution.isMovingOut = true
        // Remembered before anything is released or can be displaced, and the record stored
        // before any user code runs: a `deinit` that resolves in this graph again finds them.
        if let record, let identifier {
            for member in resolution.graphEntries { member.entry.rememberGraphInstance(in: record) }
            if record.hasLiveInstances { resolution.keep(record, for: identifier) }
        }
        resolution.finishGraphEntries(from: 0, into: &teardown)
        resolution.isMovingOut = false
    }

    /// Releases the finished graph's values (remembering them first if the graph escaped), tells
    /// custom storages, then releases what else was moved out: user code runs here, with the
    /// hierarchy consistent, and may resolve, register or remove.
    /// (`inout`: a copy would share the arrays, and emptying a shared array allocates a new one.)
    func finish(_ teardown: inout ResolutionState.Teardown) {
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
        teardown.values.removeAll(keepingCapacity: true)
        teardown.members.removeAll(keepingCapacity: true)
        teardown.entries.removeAll(keepingCapacity: true)
        resolution.keepBuffers(of: &teardown)
        // Released by the outermost resolution only: by then nothing of this one is in flight.
        while resolution.depth == 0 && !laterReleases.isEmpty {
            let displaced = laterReleases
            laterReleases = []
            withExtendedLifetime(displaced) {}  // released once the list is empty
        }
        // From the lists themselves, after every release; handed failures only where the hint
        // said there may be some (an access to that list is a call in optimized builds).
        resolution.mayHaveLaterReleases =
            !laterReleases.isEmpty || (resolution.mayHaveLaterReleases && !handedFailures.isEmpty)
    }

    // MARK: Graphs

    /// Resolves inside `identifier`'s graph, setting aside the graph in flight (if another)
    /// meanwhile. Each resolution `body` starts is a request of its own.
    func withGraph<T>(_ identifier: GraphIdentifier, _ body: () throws -> T) rethrows -> T {
        claimRequests(resolving: "withObjectGraph")
        let outerBase = resolution.requestBase
        resolution.requestBase = frameCount
        defer { resolution.requestBase = outerBase }
        if resolution.depth > 0 && resolution.graph == identifier {
            return try body()
        }

        assert(!resolution.isMovingOut, "SharedState: graph set aside while moving instances out")
        let outerGraph = resolution.graph
        let outerEscaped = resolution.graphEscaped
        let outerRecalled = resolution.recalled
        var outerEntries: [GraphMember] = []
        swap(&outerEntries, &resolution.graphEntries)  // the inner graph starts with an empty list
        let outerFixed = resolution.fixedGraph
        resolution.fixedGraph = 0
        let outerInstances = outerEntries.map { $0.entry.takeGraphInstance() }
        resolution.graph = identifier
        resolution.graphEscaped = true
        resolution.recalled = resolution.records[identifier]
        resolution.depth += 1
        defer {
            resolution.depth -= 1
            var teardown = detachGraph()
            resolution.graph = outerGraph
            resolution.graphEscaped = outerEscaped
            resolution.recalled = outerRecalled
            resolution.graphEntries = outerEntries
            resolution.fixedGraph = outerFixed
            for (member, instance) in zip(outerEntries, outerInstances) {
                member.entry.restoreGraphInstance(instance, in: self)
            }
            if resolution.depth == 0 { resolution.takeKeptEntries(from: 0, into: &teardown) }
            finish(&teardown)
            // Each call in the scope that hands its failure to its caller has read it there.
            forgetLastErrorUnlessRead(aCallMayRead: false)
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
        if let index = remembered.firstIndex(where: { $0.entry === entry }) {
            remembered[index].object = object
        } else {
            remembered.append(Remembered(entry: entry, object: object))
        }
    }

    func object(for entry: AnyServiceEntry) -> AnyObject? {
        remembered.first { $0.entry === entry }?.object
    }

    var hasLiveInstances: Bool {
        remembered.contains { $0.object != nil && $0.entry != nil }
    }
}
