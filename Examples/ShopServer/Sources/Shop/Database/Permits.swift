// Graft — MIT License.
import NIOCore
import Synchronization

/// A fixed number of permits, handed out first come, first served. A caller with none free waits
/// without holding a thread, and for a bounded time: when the wait ends without a permit it is
/// told so (``DatabaseBusy``), so that a request can answer "try again" instead of hanging.
final class Permits: Sendable {
    private let state: Mutex<State>
    private let eventLoopGroup: any EventLoopGroup

    private struct State: ~Copyable {
        var free: Int
        var nextWaiter = 0
        /// First come, first served, but for the `first` ones, which wait ahead of the others.
        var waiters: [(id: Int, first: Bool, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Waits whose task was cancelled before they began waiting (or after they ended: then the
        /// number stays, one per request cancelled at shutdown).
        var cancelledBeforeWaiting: Set<Int> = []
        var isClosed = false
    }

    init(count: Int, eventLoopGroup: any EventLoopGroup) {
        precondition(count > 0, "Permits: count must be at least 1")
        state = Mutex(State(free: count))
        self.eventLoopGroup = eventLoopGroup
    }

    /// Takes a permit, waiting at most `timeout` for one. Throws ``DatabaseBusy`` when none came in
    /// time, ``PoolClosed`` once ``close()`` ran, and `CancellationError` when the task is
    /// cancelled while it waits; in every case the caller holds no permit.
    /// With `ahead`, the wait goes before every wait that is not `ahead` (a writer before the
    /// readers, where they share one connection).
    func acquire(waitingAtMost timeout: Duration, ahead: Bool = false) async throws {
        // A permit free: taken. Otherwise a number for the wait about to begin.
        let taken: Result<Int?, PoolClosed> = state.withLock { state in
            if state.isClosed { return .failure(PoolClosed()) }
            if state.free > 0 {
                state.free -= 1
                return .success(nil)
            }
            state.nextWaiter += 1
            return .success(state.nextWaiter)
        }
        guard let waiter = try taken.get() else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let waiting: Bool = state.withLock { state in
                    // A permit may have come back, or the task been cancelled, since the first lock.
                    if state.isClosed {
                        continuation.resume(throwing: PoolClosed())
                    } else if state.cancelledBeforeWaiting.remove(waiter) != nil {
                        continuation.resume(throwing: CancellationError())
                    } else if state.free > 0 {
                        state.free -= 1
                        continuation.resume()
                    } else {
                        let place =
                            ahead
                            ? state.waiters.firstIndex { !$0.first } ?? state.waiters.endIndex : state.waiters.endIndex
                        state.waiters.insert((waiter, ahead, continuation), at: place)
                        return true
                    }
                    return false
                }
                guard waiting else { return }
                eventLoopGroup.any().scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { [self] in
                    end(waiter: waiter, throwing: DatabaseBusy(waited: timeout))
                }
            }
        } onCancel: {
            end(waiter: waiter, throwing: CancellationError(), beforeItWaits: true)
        }
    }

    /// Returns a permit: the longest waiter gets it, or it becomes free.
    func release() {
        let next: CheckedContinuation<Void, any Error>? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.free += 1
            return nil
        }
        next?.resume()
    }

    /// Ends every wait with ``PoolClosed``; later calls to ``acquire(waitingAtMost:)`` throw it at once.
    func close() {
        let waiters = state.withLock { state in
            state.isClosed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: PoolClosed()) }
    }

    /// Ends `waiter`'s wait with `error`, if it still waits (a permit, ``close()`` or the other of
    /// the timeout and the cancellation may have ended it first). A cancellation that comes before
    /// the wait began is kept, `beforeItWaits`, for the wait to see.
    private func end(waiter: Int, throwing error: any Error, beforeItWaits: Bool = false) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == waiter }) else {
                if beforeItWaits { state.cancelledBeforeWaiting.insert(waiter) }
                return nil
            }
            return state.waiters.remove(at: index).continuation
        }
        continuation?.resume(throwing: error)
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The database could not be reached within the bounded wait: every connection, or the one
/// writer's turn, stayed taken. Nothing of the request was done; the client may try again.
struct DatabaseBusy: Error, CustomStringConvertible {
    var waited: Duration
    var description: String { "the database stayed busy for \(waited); nothing was done, try again" }
}

/// A connection asked of a pool that has been closed.
struct PoolClosed: Error, CustomStringConvertible {
    var description: String { "the database pool is closed" }
}
