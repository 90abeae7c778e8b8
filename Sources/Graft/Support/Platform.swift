// Graft — MIT License.
// Swift imports are per file, and only this file calls the C library: the recursive mutex, `Locked`
// and `Platform`'s few other calls live here.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    #error("Graft needs a pthread implementation")
#endif

/// The few other calls Graft makes into the C library, kept here so no other file needs `#if`.
@usableFromInline
enum Platform {
    static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `malloc`: the standard library's allocations go through `posix_memalign` here, several times
    /// slower, which registration pays once per entry. Aligned to 16 bytes.
    @usableFromInline
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        guard let memory = malloc(byteCount) else { fatalError("Graft: out of memory") }
        return memory
    }

    static func deallocate(_ memory: UnsafeMutableRawPointer) {
        free(memory)
    }

    /// The calling thread's identity (`pthread_self`): a few instructions, no call into Swift's
    /// runtime. Compared, never dereferenced.
    @inline(__always)
    static func currentThread() -> UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }

    static func writeToStandardError(_ text: String) {
        (text + "\n").utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)  // best effort: a log line, not data
        }
    }

    /// Marks what runs on this thread, until ``leaveMainActorCall(_:)``, as a call made on the main
    /// actor (`resolveMain`, `@MainInjected`): a main-actor factory reached synchronously from it
    /// may run even where the main actor's executor is not the main thread (as under `swift test`
    /// on Linux). Returns the mark it replaces. A pair of calls, not a function taking a closure:
    /// generic over the closure's result, unspecialized, it would ask the runtime for the metadata
    /// of `Optional<Service>` on every call.
    static func enterMainActorCall() -> UnsafeMutableRawPointer? {
        let outer = pthread_getspecific(mainActorCallKey)
        setThreadValue(mainActorCallKey, UnsafeMutableRawPointer(bitPattern: 1))
        return outer
    }

    /// Ends what ``enterMainActorCall()`` began, restoring the mark it returned.
    static func leaveMainActorCall(_ outer: UnsafeMutableRawPointer?) {
        setThreadValue(mainActorCallKey, outer)
    }

    /// The pthread thread-specific key that marks a main-actor call, made once.
    private static let mainActorCallKey = makeThreadKey()

    /// A pthread thread-specific key.
    @usableFromInline typealias ThreadKey = pthread_key_t

    /// The calling thread's value of `key`: for ``heldChangesKey``, the hierarchy whose changes the
    /// calling thread holds the mutex for (``SharedState/withChange(_:call:batch:_:)``), as an
    /// opaque pointer, or `nil`.
    @inlinable @inline(__always)
    static func threadValue(_ key: ThreadKey) -> UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Sets the calling thread's value of `key` (``threadValue(_:)`` reads it).
    static func setThreadValue(_ key: ThreadKey, _ value: UnsafeMutableRawPointer?) {
        precondition(pthread_setspecific(key, value) == 0, "pthread_setspecific failed")
    }

    /// The pthread thread-specific key of the hierarchy whose changes a thread holds, made once; each hierarchy keeps a
    /// copy, read without the check of a global's initialization.
    static let heldChangesKey = makeThreadKey()

    static func makeThreadKey() -> ThreadKey {
        var made = pthread_key_t()
        precondition(pthread_key_create(&made, nil) == 0, "pthread_key_create failed")
        return made
    }

    /// Whether a main-actor factory may run here: where the compiler would say the main actor is
    /// (the main thread, or the main actor's executor running this task), or inside a main-actor
    /// call (this thread is inside ``onMainActorCall(_:)``).
    static func isOnMainActor() -> Bool {
        pthread_getspecific(mainActorCallKey) != nil || isMainThread() || isMainActorExecutorCurrent()
    }

    /// Whether the running task is on the main actor's executor, asked of the concurrency runtime.
    ///
    /// Where the main actor runs on the main thread (Darwin) the main-thread test answers already.
    /// Elsewhere the main actor may run on another thread (as under `swift test` on Linux), and no
    /// public API asks without stopping the process (`MainActor.assumeIsolated` and
    /// `preconditionIsolated` stop it). The runtime entry point behind them,
    /// `swift_task_isCurrentExecutorWithFlags`, answers instead of stopping when its flags are 0
    /// (the standard library's `Task.immediate` calls it so). It is found with `dlsym` once; where it
    /// is not found, or on a platform not listed below, this answers `false` and a main-actor
    /// service is reached through `resolveMain`, `@MainInjected`, or from the main thread.
    static func isMainActorExecutorCurrent() -> Bool {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            guard let check = executorCheck else { return false }
            let executor = unsafeBitCast(MainActor.shared.unownedExecutor, to: (UnsafeRawPointer?, UInt).self)
            return check(executor.0, executor.1, 0)
        #else
            return false
        #endif
    }

    /// Whether the calling thread is the process's main thread, where the main actor runs.
    static func isMainThread() -> Bool {
        #if canImport(Darwin)
            return pthread_main_np() != 0
        #else
            if let main = mainThread.withLock({ $0 }) { return pthread_equal(main, pthread_self()) != 0 }
            // Linux: the main thread's id is the process id. `/proc/thread-self` links to
            // "<pid>/task/<tid>"; read once per thread until the main thread is known.
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard count > 0 else { return false }
            let parts = buffer[..<count].split(separator: CChar(UInt8(ascii: "/")))
            guard parts.count == 3, parts[0] == parts[2] else { return false }
            mainThread.withLock { $0 = pthread_self() }
            return true
        #endif
    }

    #if !canImport(Darwin)
        /// The main thread's `pthread_t`, once seen.
        private static let mainThread = Locked<pthread_t?>(nil)
    #endif

    #if os(Linux) && (arch(x86_64) || arch(arm64))
        /// The concurrency runtime's `bool swift_task_isCurrentExecutorWithFlags(SerialExecutorRef,
        /// uint64_t)` (Swift 6.0 and later): whether `executor` (two words, as `UnownedSerialExecutor`
        /// holds them) is the running task's executor, or the main executor on the main thread.
        ///
        /// Invariant: the function is called through a C function type. That is sound only where
        /// the Swift calling convention passes these three integer arguments and the `Bool` result
        /// in the C convention's registers, as it does on x86-64 and arm64 Linux (the `#if` above);
        /// the function takes no context, error or async register. `MainActorServiceTests` checks the
        /// answer both ways on every run: `true` in a main-actor test, `false` on another thread.
        private typealias ExecutorCheck = @convention(c) (UnsafeRawPointer?, UInt, UInt64) -> Bool
        // RTLD_DEFAULT (a null handle): the process's global symbols, the Swift runtime's among them.
        private static let executorCheck: ExecutorCheck? = dlsym(nil, "swift_task_isCurrentExecutorWithFlags")
            .map { unsafeBitCast($0, to: ExecutorCheck.self) }
    #endif
}

/// A recursive pthread mutex: the thread holding it may lock it again, so a factory running under
/// it can resolve more services through the same synchronized resolver.
@usableFromInline
final class RecursiveMutex: @unchecked Sendable {  // a mutex: its state is the pthread mutex's own
    // Heap-allocated: a pthread mutex must not move, and `&storedProperty` gives no stable address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        precondition(pthread_mutexattr_init(&attributes) == 0, "pthread_mutexattr_init failed")
        defer { pthread_mutexattr_destroy(&attributes) }
        let recursive = pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_RECURSIVE))
        precondition(recursive == 0, "pthread_mutexattr_settype failed")
        precondition(pthread_mutex_init(mutex, &attributes) == 0, "pthread_mutex_init failed")
    }

    deinit {
        let result = pthread_mutex_destroy(mutex)
        assert(result == 0, "pthread_mutex_destroy failed: \(result)")
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex: the one way Graft takes a lock around a block of code.
    /// Inlinable, so a kept value or a built async service is read in the caller's module.
    @inlinable @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Locks; every `lock()` is paired with an `unlock()` on the same thread. For paths where a
    /// closure's stack frame matters (a deep chain of resolutions in a debug build).
    @usableFromInline @inline(__always)
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

    /// Enough tries for a holder's one resolution to finish, few enough that spinning on a
    /// preempted holder stays cheap: between 8 and 64 the contended benchmarks (`Benchmarks/`)
    /// show no difference.
    static let spinTries = 16

    @usableFromInline @inline(__always)
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
package final class Locked<Value>: @unchecked Sendable {  // `value` is only touched under `mutex`
    private let mutex = RecursiveMutex()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value under the mutex.
    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { try body(&value) }
    }
}
