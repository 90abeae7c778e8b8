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
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var isClosed = false
    }

    init(count: Int, eventLoopGroup: any EventLoopGroup) {
        precondition(count > 0, "Permits: count must be at least 1")
        state = Mutex(State(free: count))
        self.eventLoopGroup = eventLoopGroup
    }

    /// Takes a permit, waiting at most `timeout` for one. Throws ``DatabaseBusy`` when none came in
    /// time, and ``PoolClosed`` once ``close()`` ran; either way the caller holds no permit.
    func acquire(waitingAtMost timeout: Duration) async throws {
        // true: taken; false: closed; nil: none free.
        let taken: Bool? = state.withLock { state in
            if state.isClosed { return false }
            guard state.free > 0 else { return nil }
            state.free -= 1
            return true
        }
        switch taken {
        case true: return
        case false: throw PoolClosed()
        case nil: break
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let waiter: Int? = state.withLock { state in
                // A permit may have come back between the two locks.
                if state.isClosed {
                    continuation.resume(throwing: PoolClosed())
                    return nil
                }
                if state.free > 0 {
                    state.free -= 1
                    continuation.resume()
                    return nil
                }
                state.nextWaiter += 1
                state.waiters.append((state.nextWaiter, continuation))
                return state.nextWaiter
            }
            guard let waiter else { return }
            eventLoopGroup.any().scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { [self] in
                timeOut(waiter: waiter, after: timeout)
            }
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

    /// Ends `waiter`'s wait with ``DatabaseBusy``, if it still waits (a permit or ``close()`` may
    /// have ended it first).
    private func timeOut(waiter: Int, after timeout: Duration) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == waiter }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        continuation?.resume(throwing: DatabaseBusy(waited: timeout))
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
