// Graft — MIT License.

// Threads for graft-stress: pthreads started together, a barrier, and a hand-off between threads.

import Glibc
import Graft
import Synchronization

/// What one pthread runs.
final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Runs `body(index)` on `count` pthreads, released together by a barrier, and joins them all.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let barrier = Barrier(count: count)
    var threads: [pthread_t] = []
    for index in 0..<count {
        let box = Unmanaged.passRetained(
            ThreadBody {
                barrier.wait()
                body(index)
            }
        ).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    for thread in threads {
        let status = pthread_join(thread, nil)
        precondition(status == 0, "pthread_join failed: \(status)")
    }
    barrier.destroy()
}

/// A pthread barrier at a stable address, so the threads start their work together.
final class Barrier: @unchecked Sendable {  // the barrier is its own synchronization
    private let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)

    init(count: Int) {
        precondition(pthread_barrier_init(barrier, nil, UInt32(count)) == 0)
    }

    func wait() {
        let status = pthread_barrier_wait(barrier)
        precondition(status == 0 || status == PTHREAD_BARRIER_SERIAL_THREAD)
    }

    /// Called once every thread has been joined.
    func destroy() {
        pthread_barrier_destroy(barrier)
        barrier.deallocate()
    }
}

/// Carries a value that is not `Sendable` (a `Lazy`, a `Provider`, a plain `Container`) to
/// another thread. Graft's documentation says a `Lazy` or `Provider` resolved through a
/// synchronized view resolves under the hierarchy's mutex, which is what this stress checks.
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
