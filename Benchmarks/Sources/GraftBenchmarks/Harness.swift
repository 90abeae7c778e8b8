import Foundation
import MallocCounter

/// What one library does in one scenario.
struct Workload {
    /// Throws when the library gives a wrong answer: nothing is timed then.
    let check: () throws -> Void
    /// Performs `count` operations.
    let run: (Int) -> Void
}

/// Times `resolve`, a call on the concrete container or view, as an application makes it.
func resolving<T: AnyObject>(
    _ library: String,
    _ resolve: @escaping () -> T?,
    check: @escaping (T) -> Bool = { _ in true }
) -> Workload {
    Workload(
        check: {
            guard let value = resolve() else { throw WrongAnswer(description: "\(library): no \(T.self)") }
            try require(check(value), "\(library): wrong \(T.self)")
        },
        run: { count in for _ in 0..<count { BlackHole.consume(resolve()) } }
    )
}

struct WrongAnswer: Error, CustomStringConvertible {
    let description: String
}

func require(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw WrongAnswer(description: what()) }
}

/// Keeps results alive so the optimizer cannot drop the work that made them. Single-threaded
/// workloads only: threaded ones check their results locally instead.
enum BlackHole {
    nonisolated(unsafe) static var sink: UInt = 0  // main thread only
    @inline(never)
    static func consume(_ value: AnyObject?) {
        if let value { sink &+= UInt(bitPattern: ObjectIdentifier(value)) }
    }

    /// For workloads that run on another thread (the async scenario): a lock-free consumption
    /// would race with the main thread's `sink`, so this one only stops the optimizer.
    @inline(never)
    static func consumeFromAnyThread(_ value: AnyObject?) {
        withExtendedLifetime(value) {}
    }
}

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Nanoseconds per operation of one repetition.
func measure(_ count: Int, _ run: (Int) -> Void) -> Double {
    let start = now()
    run(count)
    return Double(now() - start) / Double(count)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

func allocations(_ count: Int, _ run: (Int) -> Void) -> Double {
    run(100)  // warm: caches and buffers reach their size
    let before = graft_malloc_count()
    run(count)
    return Double(graft_malloc_count() - before) / Double(count)
}

/// Resident memory in bytes.
func residentBytes() -> Int {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Runs `perThread` operations on each of `threads` threads, all released together, and returns
/// when every thread has finished.
func onThreads(_ threads: Int, perThread: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for _ in 0..<threads {
        ready.enter()
        done.enter()
        Thread {
            ready.leave()
            start.wait()
            body(perThread)
            done.leave()
        }.start()
    }
    ready.wait()
    for _ in 0..<threads { start.signal() }
    done.wait()
}

/// A recursive pthread mutex, for the floor that locks.
final class FloorMutex: @unchecked Sendable {  // the pthread mutex is the only state
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }
    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }
}

/// The hardware floors each scenario is compared with, built like a minimal container would be.
enum Floor: String {
    /// A dictionary lookup of a stored factory, and the one allocation the factory makes.
    case allocation = "lookup + allocation"
    /// Lock a recursive pthread mutex, look up a cached instance in a dictionary, unlock.
    case mutex = "lock + lookup + unlock"
    /// Look up a cached instance in a dictionary no thread writes, with no lock: what a container
    /// that hands out a built singleton without its mutex could not avoid (the lookup, and the
    /// strong reference returned, whose count every thread changes).
    case reference = "lookup, no lock"
    /// The 10-node graph built by hand (same classes, same sharing), in a function not inlined.
    case handWiredGraph = "hand-wired graph"
    /// `Service()` alone, in a function not inlined: the allocation a transient resolve must make,
    /// and the call it costs at least.
    case bareAllocation = "bare allocation behind a call"

    /// The floor's operations, on `threads` threads (released together, as the threaded rows are)
    /// when it is more than one: the time per operation is then the aggregate, as for those rows.
    func workload(threads: Int = 1) -> (Int) -> Void {
        guard threads > 1 else { return workload() }
        nonisolated(unsafe) let body = workload()  // the lock and lookup floors only read shared state
        return { count in onThreads(threads, perThread: count / threads) { body($0) } }
    }

    private func workload() -> (Int) -> Void {
        var factories: [ObjectIdentifier: () -> AnyObject] = [:]
        var filled: [ObjectIdentifier: AnyObject] = [:]
        for index in 0..<100 {
            factories[ObjectIdentifier(FillerKey.types[index % FillerKey.types.count])] = { Filler() }
            filled[ObjectIdentifier(FillerKey.types[index % FillerKey.types.count])] = Filler()
        }
        let key = ObjectIdentifier(Service.self)
        factories[key] = { Service() }
        filled[key] = Singleton()
        let instances = filled
        let mutex = FloorMutex()
        switch self {
        case .allocation:
            return { count in
                for _ in 0..<count { BlackHole.consume(factories[key]!()) }
            }
        case .mutex:
            return { count in
                for _ in 0..<count {
                    mutex.lock()
                    let instance = instances[key]
                    mutex.unlock()
                    BlackHole.consumeFromAnyThread(instance)
                }
            }
        case .reference:
            return { count in
                for _ in 0..<count { BlackHole.consumeFromAnyThread(instances[key]) }
            }
        case .handWiredGraph:
            let singleton = Singleton()
            return { count in
                for _ in 0..<count { BlackHole.consume(buildGraphByHand(singleton)) }
            }
        case .bareAllocation:
            return { count in
                for _ in 0..<count { BlackHole.consume(makeService()) }
            }
        }
    }
}

/// The bare-allocation floor: the object a transient resolve returns, made behind a call.
@inline(never)
func makeService() -> Service { Service() }

/// A few distinct types so the floor's dictionary is not trivially small.
enum FillerKey {
    static let types: [Any.Type] = [
        Filler.self, Named.self, WithArguments.self, Leaf.self, Branch.self, Tree.self,
        N1.self, N2.self, N3.self, N4.self, N5.self, N6.self, N7.self, N8.self, N9.self,
    ]
}
