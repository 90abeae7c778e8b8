import Foundation
import GraftTesting
import Testing

@testable import Graft

/// A value handed between threads.
private final class LockedValue<Value: Sendable>: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

private struct Signal: Sendable {}

@Suite(.capturedLog) struct TaskResolverTests {
    @Test func withResolverBindsCurrentThenRestoresIt() {
        let resolver = clockContainer(clock: 1).synchronize()
        let outside = SynchronizedResolver.current
        withResolver(resolver) {
            #expect(SynchronizedResolver.current === resolver)
            #expect(SynchronizedResolver.current.resolve(Ticker.self)?.id == 1)
        }
        #expect(SynchronizedResolver.current === outside)
    }

    @Test func childTasksInheritAndDetachedTasksDoNot() async {
        let resolver = clockContainer(clock: 2).synchronize()
        await withResolver(resolver) {
            async let inherited = SynchronizedResolver.current.resolve(Ticker.self)?.id
            let fromTask = await Task { SynchronizedResolver.current.resolve(Ticker.self)?.id }.value
            let fromGroup = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<8 { group.addTask { SynchronizedResolver.current.resolve(Ticker.self)?.id } }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            let detached = await Task.detached { SynchronizedResolver.current === resolver }.value
            #expect(await inherited == 2)
            #expect(fromTask == 2)
            #expect(fromGroup == Array(repeating: 2, count: 8))
            #expect(!detached)
        }
    }

    // The same tasks and reads as OverridesTests' parallel test, each task bound by `withResolver` here.
    @Test func concurrentTasksBoundToDifferentResolversEachSeeTheirOwn() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for id in 0..<16 {
                group.addTask {
                    await withResolver(clockContainer(clock: id).synchronize()) {
                        var wrong = 0
                        for _ in 0..<50 {
                            await Task.yield()
                            if SynchronizedResolver.current.resolve(Stream.self)?.clock.id != id { wrong += 1 }
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func escapedResolverRestoresTheBindingOnAnotherThread() {
        let resolver = clockContainer(clock: 3).synchronize()
        let lost = LockedValue<Bool?>(nil)
        let restored = LockedValue<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        withResolver(resolver) {
            withEscapedResolver { escaped in
                DispatchQueue.global().async {
                    lost.value = SynchronizedResolver.current !== resolver
                    restored.value = escaped.yield { SynchronizedResolver.current.resolve(Ticker.self)?.id }
                    done.signal()
                }
            }
        }
        done.wait()
        #expect(lost.value == true)  // a dispatch queue does not carry task-locals
        #expect(restored.value == 3)
        // A plain thread (as a C callback would be) is the same.
        let threadRestored = LockedValue<Int?>(nil)
        withResolver(resolver) {
            withEscapedResolver { escaped in
                let thread = Thread {
                    threadRestored.value = escaped.yield { SynchronizedResolver.current.resolve(Ticker.self)?.id };
                    done.signal()
                }
                thread.start()
            }
        }
        done.wait()
        #expect(threadRestored.value == 3)
    }

    @Test func unboundHintNamesOnlyWaysToBindAResolver() {
        let hint = ResolverBinding.howToBind
        #expect(hint.contains("SynchronizedResolver.bootstrap(container.synchronize())"))
        #expect(hint.contains("withResolver(_:operation:)"))
        #expect(hint.contains("withEscapedResolver(_:)"))
        #expect(!hint.contains("withOverrides"))  // it copies a bound resolver, and binds none without one
    }

    /// `resolve` and `require` are covered below, `@Injected` in `InjectedTests`.
    @MainActor @Test func resolveAsyncAndResolveMainOnTheUnboundCurrentSayHowToBind() async throws {
        let log = LogCapture()
        let resolver = SynchronizedResolver.current
        #expect(resolver.isUnboundPlaceholder)
        await #expect {
            _ = try await resolver.resolveAsync(Signal.self)
        } throws: { error in
            "\(error)".contains(ResolverBinding.howToBind)
        }
        #expect(log.capturing { resolver.resolveMain(Beacon.self) } == nil)
        #expect(log.messages(mentioning: ResolverBinding.howToBind).count >= 1)
        let error = try #require(
            #expect(throws: ResolutionError.self) { try resolver.require(Beacon.self, name: "named", argument: 1) })
        #expect(error.description.contains(ResolverBinding.howToBind))
    }

    @Test func unboundCurrentFailsWithAMessageSayingHowToBind() throws {
        let log = LogCapture()
        // Nothing is bound here (no test bootstraps in this process: that test runs in its own).
        let resolver = SynchronizedResolver.current
        #expect(resolver.isUnboundPlaceholder)
        #expect(log.capturing { resolver.resolve(Beacon.self) } == nil)
        #expect(log.messages(mentioning: "No resolver is bound to this task").count >= 1)
        do {
            _ = try resolver.require(Beacon.self)
            Issue.record("require succeeded")
        } catch {
            #expect(error.description.contains("SynchronizedResolver.bootstrap"))
        }
    }

    @Test func bootstrapSetsAndReplacesTheProcessDefault() async {
        await #expect(processExitsWith: .success) {
            let first = clockContainer(clock: 10).synchronize()
            SynchronizedResolver.bootstrap(first)
            precondition(SynchronizedResolver.current.resolve(Ticker.self)?.id == 10)
            let bound = clockContainer(clock: 11).synchronize()
            withResolver(bound) { precondition(SynchronizedResolver.current.resolve(Ticker.self)?.id == 11) }
            SynchronizedResolver.bootstrap(clockContainer(clock: 12).synchronize())
            precondition(SynchronizedResolver.current.resolve(Ticker.self)?.id == 12)
            let detached = Task.detached { SynchronizedResolver.current.resolve(Ticker.self)?.id }
            let semaphore = DispatchSemaphore(value: 0)
            let result = LockedValue<Int?>(nil)
            Task {
                result.value = await detached.value; semaphore.signal()
            }
            semaphore.wait()
            precondition(result.value == 12)  // a detached task sees the process default
        }
    }

    @Test func boundViewKeepsItsContainerAlive() {
        weak var weakContainer: Container?
        let resolver: SynchronizedResolver = {
            let made = clockContainer(clock: 4)
            weakContainer = made
            return made.synchronize()
        }()
        withResolver(resolver) {
            #expect(weakContainer != nil)
            #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 4)
        }
    }
}
