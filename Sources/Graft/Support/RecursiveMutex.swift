// Graft — MIT License.
// The same imports as Platform.swift: Swift imports are per file, and only these two files call the C library.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    #error("Graft needs a pthread implementation")
#endif

/// A recursive pthread mutex: the thread holding it may lock it again, so a factory running under
/// it can resolve more services through the same synchronized resolver.
final class RecursiveMutex: @unchecked Sendable {  // a mutex: its state is the pthread mutex's own
    // Heap-allocated: a pthread mutex must not move, and `&storedProperty` gives no stable address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        precondition(pthread_mutexattr_init(&attributes) == 0, "pthread_mutexattr_init failed")
        defer { pthread_mutexattr_destroy(&attributes) }
        precondition(
            pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_RECURSIVE)) == 0,
            "pthread_mutexattr_settype failed"
        )
        precondition(pthread_mutex_init(mutex, &attributes) == 0, "pthread_mutex_init failed")
    }

    deinit {
        let result = pthread_mutex_destroy(mutex)
        assert(result == 0, "pthread_mutex_destroy failed: \(result)")
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Locks; every `lock()` is paired with an `unlock()` on the same thread. For paths where a
    /// closure's stack frame matters (a deep chain of resolutions in a debug build).
    @inline(__always)
    func lock() {
        if pthread_mutex_trylock(mutex) == 0 { return }  // free, or held by this thread (recursive)
        lockContended()
    }

    /// Tries a few more times before sleeping: the holder usually keeps the mutex for one
    /// resolution (well under a microsecond), while sleeping in the kernel and being woken costs
    /// several microseconds on both threads. After `spinTries` it blocks as `pthread_mutex_lock`
    /// does, so a holder that was preempted costs a bounded amount of spinning.
    @inline(never)
    private func lockContended() {
        for attempt in 0..<Self.spinTries {
            if attempt >= Self.spinTries / 2 { sched_yield() }  // let a preempted holder run
            if pthread_mutex_trylock(mutex) == 0 { return }
        }
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
    }

    /// Measured with 2 and 8 threads on 2 cores (`Benchmarks/`): 8 to 64 tries all take the
    /// 8-thread figure from about 180 to about 95 ns per resolution; 16 it is.
    static let spinTries = 16

    @inline(__always)
    func unlock() {
        let unlocked = pthread_mutex_unlock(mutex)
        precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
    }

    /// Runs `body` if the mutex can be locked without waiting; `nil` otherwise.
    func tryWithLock<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { unlock() }
        return try body()
    }
}

/// A value behind a mutex of its own: process-wide state read and written from any thread.
final class Locked<Value>: @unchecked Sendable {  // `value` is only touched under `mutex`
    private let mutex = RecursiveMutex()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value under the mutex.
    @inline(__always)
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { try body(&value) }
    }
}
