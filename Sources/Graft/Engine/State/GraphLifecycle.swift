// Graft — MIT License.

/// The end of a graph and of a failed request: instances moved out of their cells, then released
/// once the hierarchy is consistent; graphs set aside and resumed (`withObjectGraph`).
extension Hierarchy {
    // MARK: Teardown

    /// What leaving a graph or undoing a request hands back: instances moved out of their cells
    /// and custom storages to tell, released and told only when the hierarchy is consistent.
    struct Teardown {
        var values: [Any]
        /// Entries taken off the lists, released last (one may hold the last reference).
        var entries: [AnyServiceEntry]
        /// Graph members whose values are marked finished, to release.
        var members: [GraphMember] = []
        var storages: [(InstanceStorage, rollBackIn: GraphIdentifier?)] = []
    }

    func takeSpareValues() -> [Any] {
        var values: [Any] = []
        swap(&values, &spareValues)
        return values
    }

    func takeSpareEntries() -> [AnyServiceEntry] {
        var entries: [AnyServiceEntry] = []
        swap(&entries, &spareEntries)
        return entries
    }

    /// Moves `list[start...]` into the teardown, which releases them later: removing them in place
    /// could release an entry's last reference, and its `deinit` (user code, through the
    /// instances it releases) could then change `list` while it is being changed.
    func take(_ list: inout [KeptMember], from start: Int, into teardown: inout Teardown) {
        guard start < list.count else { return }
        for kept in list[start...] { teardown.entries.append(kept.entry) }
        list.removeSubrange(start...)  // releases nothing: the teardown holds each entry
    }

    /// Marks the values of `graphEntries[start...]` finished (a flag in each cell: no call, no
    /// user code) and moves those members into the teardown, which releases the values.
    func finishGraphEntries(from start: Int, into teardown: inout Teardown) {
        guard start < graphEntries.count else { return }
        graphEntries.withUnsafeBufferPointer { members in
            for index in start..<members.count { InstanceCell.finishGraph(at: members[index].cell.base) }
        }
        if start == 0 && teardown.members.isEmpty {
            swap(&teardown.members, &graphEntries)
            if graphEntries.capacity == 0 { swap(&graphEntries, &spareMembers) }
        } else {
            teardown.members.append(contentsOf: graphEntries[start...])
            graphEntries.removeSubrange(start...)  // releases nothing: the teardown holds each entry
        }
    }

    /// Undoes what `request` made: its graph instances and the instances it kept in other scopes.
    func rollBack(_ request: Request, into teardown: inout Teardown) {
        assert(!isMovingOut, "Hierarchy: teardown re-entered while moving instances out")
        isMovingOut = true
        let rolledBackGraph = graph
        finishGraphEntries(from: request.graphMark, into: &teardown)
        for kept in keptEntries[request.keptMark...] {
            if let storage = kept.entry.moveKeptInstance(into: &teardown.values, generation: kept.generation) {
                teardown.storages.append((storage, rolledBackGraph))
            }
        }
        take(&keptEntries, from: request.keptMark, into: &teardown)
        isMovingOut = false
    }

    /// Ends the current graph: its instances are marked finished (and will be remembered weakly
    /// if its identifier escaped), and the hierarchy is left with no graph.
    func detachGraph() -> Teardown {
        var teardown = Teardown(values: takeSpareValues(), entries: takeSpareEntries())
        detachGraph(into: &teardown)
        return teardown
    }

    func detachGraph(into teardown: inout Teardown) {
        let identifier = graph
        let record: GraphRecord? =
            if graphEscaped, let identifier { recalled ?? records[identifier] ?? GraphRecord() } else { nil }
        graph = nil
        graphEscaped = false
        recalled = nil
        if graphEntries.isEmpty { return }
        assert(!isMovingOut, "Hierarchy: teardown re-entered while moving instances out")
        isMovingOut = true
        // Remembered before anything is released or can be displaced, and the record stored
        // before any user code runs: a `deinit` that resolves in this graph again finds them.
        if let record, let identifier {
            for member in graphEntries { member.entry.rememberGraphInstance(in: record) }
            if record.hasLiveInstances { keep(record, for: identifier) }
        }
        finishGraphEntries(from: 0, into: &teardown)
        isMovingOut = false
    }

    /// Releases the finished graph's values (remembering them first if the graph escaped), tells
    /// custom storages, then releases what else was moved out: user code runs here, with the
    /// hierarchy consistent, and may resolve, register or remove.
    /// (`inout`: a copy would share the arrays, and emptying a shared array allocates a new one.)
    func finish(_ teardown: inout Teardown) {
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
        if spareValues.capacity == 0 { swap(&spareValues, &teardown.values) }
        if spareEntries.capacity == 0 { swap(&spareEntries, &teardown.entries) }
        if spareMembers.capacity == 0 { swap(&spareMembers, &teardown.members) }
        // Released by the outermost resolution only: by then nothing of this one is in flight.
        while depth == 0 && !laterReleases.isEmpty {
            let displaced = laterReleases
            laterReleases = []
            withExtendedLifetime(displaced) {}  // released once the list is empty
        }
        // From the lists themselves, after every release; handed failures only where the hint
        // said there may be some (an access to that list is a call in optimized builds).
        mayHaveLaterReleases = !laterReleases.isEmpty || (mayHaveLaterReleases && !handedFailures.isEmpty)
    }

    func keep(_ record: GraphRecord, for identifier: GraphIdentifier) {
        if records[identifier] == nil && records.count >= sweepThreshold {
            records = records.filter { $0.value.hasLiveInstances }
            sweepThreshold = max(64, records.count * 2)
        }
        records[identifier] = record
    }

    // MARK: Graphs

    /// Resolves inside `identifier`'s graph, setting aside the graph in flight (if another)
    /// meanwhile. Each resolution `body` starts is a request of its own.
    func withGraph<T>(_ identifier: GraphIdentifier, _ body: () throws -> T) rethrows -> T {
        claimRequests(resolving: "withObjectGraph")
        let outerBase = requestBase
        requestBase = stack.count
        defer { requestBase = outerBase }
        if depth > 0 && graph == identifier {
            return try body()
        }

        assert(!isMovingOut, "Hierarchy: graph set aside while moving instances out")
        let outerGraph = graph
        let outerEscaped = graphEscaped
        let outerRecalled = recalled
        var outerEntries: [GraphMember] = []
        swap(&outerEntries, &graphEntries)  // the inner graph starts with an empty list
        let outerInstances = outerEntries.map { $0.entry.takeGraphInstance() }
        graph = identifier
        graphEscaped = true
        recalled = records[identifier]
        depth += 1
        defer {
            depth -= 1
            var teardown = detachGraph()
            graph = outerGraph
            graphEscaped = outerEscaped
            recalled = outerRecalled
            graphEntries = outerEntries
            for (member, instance) in zip(graphEntries, outerInstances) {
                member.entry.restoreGraphInstance(instance, in: self)
            }
            if depth == 0 { take(&keptEntries, from: 0, into: &teardown) }
            finish(&teardown)
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

/// An entry that kept a new instance during a request, with the generation it kept it in.
struct KeptMember {
    let entry: AnyServiceEntry
    let generation: Int
}

/// An entry on the current graph's list, with its cell, so ending the graph can mark every value
/// finished without a call into the entry.
struct GraphMember {
    let entry: AnyServiceEntry
    let cell: InstanceCell
}
