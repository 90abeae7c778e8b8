// Graft — MIT License.

/// A build in progress, as a node of the graph of who waits for whom: a `.container` build (its
/// own task, an ``AsyncBuild``), or a transient built inline in its caller's task. A wait is an
/// edge from the build whose factory (or a task it started) waits, to the build waited for; a new
/// edge is refused when it would close a cycle.
///
/// The graph spans every container hierarchy of the process (a factory may wait on a service of
/// another hierarchy: a captured container, a `withOverrides` copy). It is guarded by one
/// process-wide mutex, taken after a hierarchy's mutex when both are held and never held across
/// an `await`: a check and the edge it allows are one step, whatever the hierarchies involved.
class AsyncBuildNode: @unchecked Sendable {  // `waits` is only touched under `graphMutex`
    private static let graphMutex = RecursiveMutex()
    let entry: AnyObject
    let label: String
    /// For a transient built inline: the build in whose factory it runs.
    let inlineParent: AsyncBuildNode?
    /// The builds this build is waiting for now (one entry per wait in progress).
    private(set) var waits: [AsyncBuildNode] = []

    init(entry: AnyObject, label: String, inlineParent: AsyncBuildNode? = nil) {
        self.entry = entry
        self.label = label
        self.inlineParent = inlineParent
    }

    /// Adds the edge from this build to `target` unless `target` already waits, through others, on
    /// this build: then returns that path (the cycle the edge would close), from `target` to this
    /// build. (A new build waits on nothing yet: an edge to it never closes a cycle.)
    @discardableResult
    func addWait(for target: AsyncBuildNode) -> [AsyncBuildNode]? {
        Self.graphMutex.withLock {
            if let path = target.pathOfWaits(to: self) { return path }
            waits.append(target)
            return nil
        }
    }

    func removeWait(for target: AsyncBuildNode) {
        Self.graphMutex.withLock {
            if let index = waits.firstIndex(where: { $0 === target }) { waits.remove(at: index) }
        }
    }

    /// This node, then the builds it runs inline in, innermost first.
    var inlineChain: [AsyncBuildNode] { Array(sequence(first: self, next: \.inlineParent)) }

    /// The builds from this one to `target` following waits, both included; `nil` if none.
    func pathOfWaits(to target: AsyncBuildNode) -> [AsyncBuildNode]? {
        var visited = Set<ObjectIdentifier>()
        func search(_ node: AsyncBuildNode) -> [AsyncBuildNode]? {
            if node === target { return [node] }
            guard visited.insert(ObjectIdentifier(node)).inserted else { return nil }
            for case let rest? in node.waits.lazy.map(search) { return [node] + rest }
            return nil
        }
        return search(self)
    }
}

/// A build in flight, its node in the graph of waits, and the continuations waiting for it.
final class AsyncBuild<Service: Sendable>: AsyncBuildNode, @unchecked Sendable {  // state under the hierarchy's mutex
    /// The continuations waiting now.
    private(set) var waiters: [Int: CheckedContinuation<Service, any Error>] = [:]
    private var nextWaiter = 0
    private var result: Result<Service, ResolutionError>?

    /// Records the result and hands back the waiters to resume (after unlocking).
    func complete(with outcome: Result<Service, ResolutionError>) -> [CheckedContinuation<Service, any Error>] {
        result = outcome
        return Array(exchange(&waiters, [:]).values)
    }

    /// Waits for the result; a cancelled waiter stops waiting, the build goes on.
    func wait(in mutex: RecursiveMutex) async throws -> Service {
        let id = mutex.withLock { exchange(&nextWaiter, nextWaiter + 1) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Service, any Error>) in
                let immediate: Result<Service, any Error>? = mutex.withLock {
                    if let result { return result.mapError { $0 } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            mutex.withLock { waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())  // once unlocked
        }
    }
}

/// The build whose factory runs in this task (inherited by the child tasks and `Task {}` it makes,
/// so a wait there counts as the build's own: conservative, it may report a cycle through a task
/// the factory never awaits). `Task.detached` inherits nothing: a cycle closed through a detached
/// task is not seen, and waits forever (documented).
enum AsyncBuildContext { @TaskLocal static var current: AsyncBuildNode? }
