import Foundation

@testable import Graft

/// A value handed between tasks and threads.
final class LockedBox<Value: Sendable>: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored: Value?
    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A gate tasks wait at until it is opened, counting who arrived (no sleeps).
final class TestGate: @unchecked Sendable {  // every field is only touched under `lock`
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var arrived = 0
    private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

    /// Arrives, then waits until the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow: Bool = lock.withLock {
                arrived += 1
                let ready = arrivalWaiters.filter { $0.0 <= arrived }
                arrivalWaiters.removeAll { $0.0 <= arrived }
                for (_, waiter) in ready { waiter.resume() }
                if isOpen { return true }
                waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Returns once `count` tasks have arrived at `wait()`.
    func arrivals(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now: Bool = lock.withLock {
                if arrived >= count { return true }
                arrivalWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let all: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        for waiter in all { waiter.resume() }
    }
}

/// Releases every task once `count` have arrived (no sleeps).
final class TestBarrier: @unchecked Sendable {  // `waiting` is only touched under `lock`
    private let lock = NSLock()
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { self.count = count }

    func arrive() async {
        await withCheckedContinuation { continuation in
            let all: [CheckedContinuation<Void, Never>] = lock.withLock {
                waiting.append(continuation)
                guard waiting.count == count else { return [] }
                defer { waiting = [] }
                return waiting
            }
            for waiter in all { waiter.resume() }
        }
    }
}

/// `operation`'s result, or `nil` if it has not finished within `seconds` in which the cooperative
/// pool could run it: a hang bound, timed on a thread of its own (no sleep, and the pool is not
/// blocked).
///
/// A second counts only if a probe task started in it ran within it. Synchronous tests run on the
/// cooperative pool, and one that joins threads of its own holds a pool thread until they end: on
/// a two-core machine two such tests hold the whole pool, for minutes in a sanitized run, and a
/// bound in wall-clock time would then call a starved operation hung. A true hang (tasks awaiting
/// each other forever) leaves the pool free, so its seconds count. The bound is five times longer
/// in a sanitized run (the sanitizer scripts set `TSAN_OPTIONS` or `ASAN_OPTIONS`), where every
/// instruction is slower. The wait as a whole stops at four times the bound: a hang that holds
/// the pool itself (threads of the pool blocked on each other's locks) lets no probe run, and is
/// still reported.
func finishes<T: Sendable>(within seconds: Int, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let environment = ProcessInfo.processInfo.environment
    let isSanitized = environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
    let seconds = isSanitized ? seconds * 5 : seconds
    let finished = DispatchSemaphore(value: 0)
    let result = LockedBox<T>()
    Task {
        result.value = await operation()
        finished.signal()
    }
    let inTime = await withCheckedContinuation { continuation in
        Thread {
            let giveUp = DispatchTime.now() + .seconds(seconds * 4)
            var counted = 0
            while counted < seconds && DispatchTime.now() < giveUp {
                let probe = DispatchSemaphore(value: 0)
                Task { probe.signal() }
                if finished.wait(timeout: .now() + 1) == .success { return continuation.resume(returning: true) }
                if probe.wait(timeout: .now()) == .success {
                    counted += 1
                    continue
                }
                // The pool was busy: this second does not count, nor do those until the probe runs.
                while probe.wait(timeout: .now() + 1) == .timedOut && DispatchTime.now() < giveUp {
                    if finished.wait(timeout: .now()) == .success { return continuation.resume(returning: true) }
                }
            }
            continuation.resume(returning: finished.wait(timeout: .now()) == .success)
        }
        .start()
    }
    return inTime ? result.value : nil
}

/// Whether `error` is a `ResolutionError` for a circular dependency.
func isCycle(_ error: (any Error)?) -> Bool {
    guard let error = error as? ResolutionError, case .circularDependency = error.reason else { return false }
    return true
}

/// A flag set on one thread and read on another.
final class LockedFlag: @unchecked Sendable {  // `flag` is only touched under `lock`
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}

/// Hands a value to another thread in a test that joins that thread before going on.
struct UncheckedBox<Value>: @unchecked Sendable {  // the test joins the thread that reads it
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` on a new thread (never the main one, so never the main actor) and waits for it.
/// The result comes back through a lock, which ThreadSanitizer sees ordering the two threads (a
/// continuation resumed from a Foundation thread is not always seen as doing so).
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    let box = ResultBox<T>()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            box.set(body())
            continuation.resume()
        }
        .start()
    }
    return box.take()
}

/// A value set on one thread and taken on another, under a lock.
private final class ResultBox<T>: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: T?

    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func take() -> T { lock.withLock { value! } }
}

/// An object (or `nil`) handed back from another thread, as ``onNewThread(_:)`` returns it.
final class HandedBack: @unchecked Sendable {  // immutable once made
    let object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}
