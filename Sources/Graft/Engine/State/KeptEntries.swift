// Graft — MIT License.

/// The entries that kept a new instance beyond the graph while requests are in flight, part of
/// ``ResolutionState``, as ``GraphState`` holds the graph's members: what a failed request takes
/// back, and how many of them no failure takes back. Its fields change only through its
/// transitions here; what a transition moves out it puts in a ``ResolutionState/Teardown``.
struct KeptEntries {
    /// Each entry with the generation it kept its instance in, in the order kept.
    private(set) var list: [KeptMember] = []
    /// How many of ``list`` no failure takes back (see ``ResolutionState/fixWhatRequestsMade()``):
    /// a rollback starts at or above it.
    private(set) var fixed = 0

    @inline(__always)
    mutating func append(_ entry: AnyServiceEntry, generation: Int) {
        list.append((entry, generation))
    }

    /// What was kept so far no failure takes back.
    mutating func fix() { fixed = list.count }

    /// Moves `list[start...]` into the teardown, which releases them later: removing them in place
    /// could release an entry's last reference, and its `deinit` (user code, through the instances
    /// it releases) could then change the list while it is being changed.
    @inline(__always)
    mutating func take(from start: Int, into teardown: inout ResolutionState.Teardown) {
        guard start < list.count else { return }
        for kept in list[start...] { teardown.entries.append(kept.entry) }
        list.removeSubrange(start...)  // releases nothing: the teardown holds each entry
        fixed = min(fixed, start)
    }

    /// Moves out of their cells, into `teardown`, the instances kept from `start` on that a failure
    /// takes back; the custom storages among them are told to forget `graph`'s. The list is left
    /// as it is, for ``take(from:into:)``.
    func moveInstances(
        from start: Int, into teardown: inout ResolutionState.Teardown, rolledBackIn graph: GraphIdentifier?
    ) {
        for kept in list[max(start, fixed)...] {
            if let storage = kept.entry.moveKeptInstance(into: &teardown.values, generation: kept.generation) {
                teardown.storages.append((storage, graph))
            }
        }
    }
}

/// An entry that kept a new instance during a request, with the generation it kept it in.
typealias KeptMember = (entry: AnyServiceEntry, generation: Int)
