// Graft — MIT License.

/// The graph in flight, part of ``ResolutionState``: its identifier, its members, how many of them
/// no failure takes back, and the escaped graphs remembered. Its fields change only through its
/// transitions here; what a transition leaves to do (release values, tell storages) it puts in a
/// ``ResolutionState/Teardown``.
struct GraphState {
    /// The graph's identifier, made only when someone asks for it.
    private(set) var identifier: GraphIdentifier?
    /// Whether the identifier was handed out, so the graph may be resolved again.
    private(set) var escaped = false
    /// What an earlier resolution of this graph left alive, when it is resolved again.
    private(set) var recalled: GraphRecord?
    /// Entries holding an instance for this graph, with their cells.
    private(set) var members: [GraphMember] = []
    /// How many of ``members`` no failure takes back (see ``ResolutionState/fixWhatRequestsMade()``).
    private(set) var fixed = 0
    /// Escaped graphs whose instances may still be alive, with weak references to them.
    private(set) var records: [GraphIdentifier: GraphRecord] = [:]
    private var sweepThreshold = 64
    private var spareMembers: [GraphMember] = []

    /// The identifier, made now if no one asked for it yet.
    var current: GraphIdentifier {
        mutating get {
            if identifier == nil { identifier = GraphIdentifier() }
            return identifier!
        }
    }

    /// The identifier, handed out to user code: the graph's instances are remembered when it ends.
    mutating func escape() -> GraphIdentifier {
        escaped = true
        return current
    }

    /// Leaves no identifier, no record recalled, and not escaped (the members stay).
    @inline(__always)
    mutating func forget() {
        recalled = nil
        forgetUnrecalled()
    }

    /// ``forget()`` of a graph that recalls no record: one a plain request began (it refuses a
    /// recalled graph, and a graph entered inside it is resumed before it ends).
    @inline(__always)
    mutating func forgetUnrecalled() {
        assert(recalled == nil, "GraphState: a plain request ended with a record recalled")
        identifier = nil
        escaped = false
    }

    @inline(__always)
    mutating func hold(_ entry: AnyServiceEntry, cell: InstanceCell) {
        _ = Unmanaged<AnyObject>.passUnretained(entry).retain()  // the member's: see `GraphMember`
        members.append(GraphMember(entry: entry, cell: cell))
    }

    /// What the graph holds now no failure takes back.
    mutating func fixMembers() { fixed = members.count }

    /// Marks the values of `members[start...]` finished (a flag in each cell: no call, no user
    /// code) and moves those members into `finished`, which releases the values.
    mutating func finishMembers(from start: Int, into finished: inout [GraphMember]) {
        guard start < members.count else { return }
        fixed = min(fixed, start)
        members.withUnsafeBufferPointer { members in
            for index in start..<members.count { InstanceCell.finishGraph(at: members[index].cell.base) }
        }
        if start == 0 && finished.isEmpty {
            swap(&finished, &members)
            if members.capacity == 0 { swap(&members, &spareMembers) }
        } else {
            finished.append(contentsOf: members[start...])
            members.removeSubrange(start...)  // releases nothing: `finished` holds each entry
        }
    }

    /// A rollback keeps a custom scope's member listed: its storage is told that the graph ended
    /// once, at its end (its cell holds no instance any more).
    mutating func relist(_ member: GraphMember) {
        member.cell.isListedInGraph = true
        members.append(member)
    }

    /// Keeps the emptied buffer of a teardown, for the next one.
    mutating func keepBuffer(_ buffer: inout [GraphMember]) {
        if spareMembers.capacity == 0 { swap(&spareMembers, &buffer) }
    }

    /// Ends the graph: remembers its instances weakly if its identifier escaped (before anything
    /// is released, so a `deinit` that resolves in it again finds them), marks them finished into
    /// `finished`, and leaves no graph.
    mutating func end(into finished: inout [GraphMember]) {
        let record: GraphRecord? =
            if escaped, let identifier { recalled ?? records[identifier] ?? GraphRecord() } else { nil }
        let ended = identifier
        forget()
        if members.isEmpty { return }
        if let record, let ended {
            for member in members { member.entry.rememberGraphInstance(in: record) }
            if record.hasLiveInstances { remember(record, for: ended) }
        }
        finishMembers(from: 0, into: &finished)
    }

    private mutating func remember(_ record: GraphRecord, for identifier: GraphIdentifier) {
        if records[identifier] == nil && records.count >= sweepThreshold {
            records = records.filter { $0.value.hasLiveInstances }
            sweepThreshold = max(64, records.count * 2)
        }
        records[identifier] = record
    }

    /// The graph in flight, set aside while another is resolved (`withObjectGraph`).
    typealias SetAside = (
        identifier: GraphIdentifier?, escaped: Bool, recalled: GraphRecord?, members: [GraphMember], fixed: Int
    )

    /// Sets the graph in flight aside and enters `identifier`'s, with an empty list, escaped, and
    /// what an earlier resolution of it left alive recalled; without an identifier, a new graph.
    /// The list is the spare buffer, if there is one: a collection enters a graph of its own each
    /// time it is resolved, and a list grown from empty would be allocated again and again.
    mutating func enter(_ identifier: GraphIdentifier?) -> SetAside {
        let outer = (self.identifier, escaped, recalled, members, fixed)
        let recalled = identifier.flatMap { records[$0] }
        let list = exchange(&spareMembers, [])
        (self.identifier, escaped, self.recalled, members, fixed) = (identifier, identifier != nil, recalled, list, 0)
        return outer
    }

    /// Resumes the graph set aside, once the one entered has ended (its emptied list becomes the
    /// spare buffer, unless there is one).
    mutating func resume(_ outer: SetAside) {
        assert(members.isEmpty, "GraphState: a graph resumed over one that has not ended")
        var ended = exchange(&members, outer.members)
        keepBuffer(&ended)
        (identifier, escaped, recalled, fixed) = (outer.identifier, outer.escaped, outer.recalled, outer.fixed)
    }
}

/// An entry on the current graph's list, with its cell, so ending the graph can mark every value
/// finished without a call into the entry.
///
/// The entry is held by a count taken when the member is made (``GraphState/hold(_:cell:)``) and
/// given back when the member leaves the last list, at the end of its teardown
/// (``releaseEntries(of:)``): the member itself is a plain value, so moving members
/// between lists (a graph set aside, a rollback, a teardown) and emptying a list count nothing,
/// and a list of them is destroyed without a call per element. The invariant: every member is on
/// exactly one list (a graph's, one set aside, or a teardown's) from its `hold` to its release;
/// a move between lists removes it from the first. The cell, inside the entry's memory or owned
/// by it, lives as long. Debug builds count the entries held and check the count never goes
/// negative and is zero when the hierarchy ends (``ResolutionState/retainedEntries``).
struct GraphMember {
    unowned(unsafe) let entry: AnyServiceEntry
    let cell: InstanceCell

    /// Gives back the entries of members taken off every list (a teardown's, once their values
    /// are released, and counted by ``ResolutionState/countReleasedEntries(_:)``), and empties
    /// `members`. An entry's release may run user code (its factory's captures), as an
    /// instance's does: not inside a transition of the hierarchy's state.
    static func releaseEntries(of members: inout [GraphMember]) {
        for member in members { Unmanaged<AnyObject>.passUnretained(member.entry).release() }
        members.removeAll(keepingCapacity: true)
    }
}
