// Graft — MIT License.

/// The values the resolution state's transitions take and hand back: where a request or a
/// construction started, what a request's end or a graph scope leaves its caller, and the
/// teardown of what a graph's end or a rollback moved out. Trivial where the path passes them.
extension ResolutionState {
    /// Where a request started, to undo exactly what it made. Trivial (no reference-counted
    /// field), so making and passing one costs no retain.
    @usableFromInline
    struct Request {
        let keptMark: Int
        let graphMark: Int
        /// Whether an enclosing request had failed (its message is on `suspendedFailures`).
        let suspendsFailure: Bool
    }

    /// Where a construction nested in a factory started: what it makes from there on is its own.
    typealias Marks = (kept: Int, graph: Int)

    /// What the end of a failed request (or of one that set a failure aside) leaves its caller to do.
    /// `failure`: the failure that ended the request (`nil`: it succeeded), for the caller to
    /// record again after the teardown (its `deinit`s may record failures of their own);
    /// `released`: what the transition took out of the state, for the caller to release.
    typealias RequestEnd = (failure: ResolutionError?, released: ResolutionError?)

    /// What ``enterGraphScope(_:)`` hands back, for ``leaveGraphScope(_:into:)``.
    struct GraphScope {
        let requestBase: Int
        let setsAside: GraphState.SetAside?
        /// ``ResolutionState/idleDepth`` before the scope.
        var idleDepth = 0
    }

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
}
