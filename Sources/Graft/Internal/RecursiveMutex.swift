// Graft — MIT License.
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
final class RecursiveMutex {
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
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body()
    }

    /// Locks; every `lock()` is paired with an `unlock()` on the same thread. For paths where a
    /// closure's stack frame matters (a deep chain of resolutions in a debug build).
    @inline(__always)
    func lock() {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
    }

    @inline(__always)
    func unlock() {
        let unlocked = pthread_mutex_unlock(mutex)
        precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
    }

    /// Runs `body` if the mutex can be locked without waiting; `nil` otherwise.
    func tryWithLock<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body()
    }
}

/// The few other calls Graft makes into the C library, kept here so no other file needs `#if`.
enum Platform {
    static func environmentValue(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// `malloc`: the standard library's allocations go through `posix_memalign` here, several times
    /// slower, which registration pays once per entry. Aligned to 16 bytes.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        guard let memory = malloc(byteCount) else { fatalError("Graft: out of memory") }
        return memory
    }

    static func deallocate(_ memory: UnsafeMutableRawPointer) {
        free(memory)
    }

    static func writeToStandardError(_ text: String) {
        let line = text + "\n"
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)  // best effort: a log line, not data
        }
    }
}
