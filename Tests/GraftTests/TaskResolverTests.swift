import Foundation
import Testing

@testable import Graft

private protocol Telemetry: Sendable {}
private final class Beacon: Sendable {}
private final class Ticker: Sendable { let id: Int; init(id: Int) { self.id = id } }
private final class Stream: Sendable {
    let clock: Ticker
    init(clock: Ticker) { self.clock = clock }
}

/// A container whose `Ticker` answers `id`, as a `.container` singleton, and a `Stream` using it.
private func container(clock id: Int) -> Container {
    let container = Container()
    container.register(Ticker.self) { _ in Ticker(id: id) }.inObjectScope(.container)
    container.register(Stream.self) { r in Stream(clock: r.resolve(Ticker.self)!) }.inObjectScope(.container)
    return container
}

/// Holds services the way application code does.
private final class Screenful {
    @Injected var feed: Stream
    @Injected var analytics: (any Telemetry)?
    @Injected(name: "utc") var utc: Ticker
}

private struct SendableModel: Sendable {
    @Injected var clock: Ticker
}

private actor Courier {
    @Injected var clock: Ticker
    func clockID() -> Int { clock.id }
}

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

/// Counts from many threads.
private final class Tally: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var stored = 0
    func increment() { lock.withLock { stored += 1 } }
    var value: Int { lock.withLock { stored } }
}

@Suite struct TaskResolverTests {
    @Test func withResolverBindsCurrentThenRestoresIt() {
        let resolver = container(clock: 1).synchronize()
        let outside = SynchronizedResolver.current
        withResolver(resolver) {
            #expect(SynchronizedResolver.current === resolver)
            #expect(SynchronizedResolver.current.resolve(Ticker.self)?.id == 1)
        }
        #expect(SynchronizedResolver.current === outside)
    }

    @Test func childTasksInheritAndDetachedTasksDoNot() async {
        let resolver = container(clock: 2).synchronize()
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

    @Test func concurrentTasksBoundToDifferentResolversEachSeeTheirOwn() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for id in 0..<16 {
                group.addTask {
                    await withResolver(container(clock: id).synchronize()) {
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
        let resolver = container(clock: 3).synchronize()
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
            let first = container(clock: 10).synchronize()
            SynchronizedResolver.bootstrap(first)
            precondition(SynchronizedResolver.current.resolve(Ticker.self)?.id == 10)
            let bound = container(clock: 11).synchronize()
            withResolver(bound) { precondition(SynchronizedResolver.current.resolve(Ticker.self)?.id == 11) }
            SynchronizedResolver.bootstrap(container(clock: 12).synchronize())
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
            let made = container(clock: 4)
            weakContainer = made
            return made.synchronize()
        }()
        withResolver(resolver) {
            #expect(weakContainer != nil)
            #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 4)
        }
    }
}

@Suite struct InjectedTests {
    @Test func capturesTheResolverAtInitAndResolvesOnFirstAccessOnce() {
        let made = Tally()
        let app = container(clock: 5)
        app.register(Ticker.self, name: "utc") { _ in
            made.increment(); return Ticker(id: 50)
        }
        let model = withResolver(app.synchronize()) { Screenful() }
        #expect(made.value == 0)  // nothing resolved yet
        #expect(model.utc.id == 50)
        #expect(model.utc === model.utc)
        #expect(made.value == 1)
        #expect(model.feed.clock.id == 5)
        #expect(model.analytics == nil)  // optional and not registered
    }

    @Test func modelMadeInsideOverridesKeepsThemAfterTheScope() {
        let app = container(clock: 6)
        app.register(Ticker.self, name: "utc") { _ in Ticker(id: 60) }
        let model = withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 66) }.inObjectScope(.container) }) {
                Screenful()
            }
        }
        #expect(model.feed.clock.id == 66)  // accessed after both scopes ended
        #expect(app.resolve(Stream.self)?.clock.id == 6)
    }

    @Test func firstAccessFromManyThreadsResolvesOnce() async {
        let made = Tally()
        let app = Container()
        app.register(Ticker.self) { _ in
            made.increment(); return Ticker(id: 7)
        }.inObjectScope(.transient)
        let model = withResolver(app.synchronize()) { SendableModel() }
        let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<32 { group.addTask { ObjectIdentifier(model.clock) } }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(made.value == 1)
    }

    @Test func worksInAnActor() async {
        let worker = withResolver(container(clock: 8).synchronize()) { Courier() }
        #expect(await worker.clockID() == 8)
    }

    @Test func nonOptionalThatCannotResolveStopsWithTheReason() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = withResolver(Container().synchronize()) { SendableModel() }
            _ = model.clock
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("@Injected could not resolve Ticker"))
        #expect(stderr.contains("no registration of Ticker taking no arguments"))
    }
}

@Suite struct OverridesTests {
    @Test func overridesReplaceAndSingletonsBelongToTheScope() {
        let app = container(clock: 1)
        let outerFeed = app.resolve(Stream.self)!
        withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 100) }.inObjectScope(.container) }) {
                let feed = SynchronizedResolver.current.resolve(Stream.self)!
                #expect(feed !== outerFeed)  // no outer instance handed out inside
                #expect(feed.clock.id == 100)  // made here, with the override
                #expect(SynchronizedResolver.current.resolve(Stream.self) === feed)  // a singleton of the scope
            }
            #expect(SynchronizedResolver.current.resolve(Stream.self) === outerFeed)  // nothing leaked out
        }
        #expect(app.resolve(Ticker.self)?.id == 1)
    }

    @Test func scopeInstancesDieWithTheScope() {
        weak var scoped: Stream?
        withResolver(container(clock: 1).synchronize()) {
            withOverrides({ _ in }) { scoped = SynchronizedResolver.current.resolve(Stream.self) }
            #expect(scoped == nil)
        }
    }

    @Test func nestedOverridesStack() {
        let app = container(clock: 1)
        app.register(Beacon.self) { _ in Beacon() }
        withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 2) } }) {
                withOverrides({
                    $0.register(Stream.self) { r in Stream(clock: Ticker(id: r.resolve(Ticker.self)!.id * 10)) }
                }) {
                    #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 20)
                    #expect(SynchronizedResolver.current.resolve(Beacon.self) != nil)
                }
                #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 2)
            }
        }
    }

    @Test func parallelTasksOverridingTheSameServiceEachSeeTheirOwn() async {
        let app = container(clock: 0)
        let wrong = await withResolver(app.synchronize()) {
            await withTaskGroup(of: Int.self) { group in
                for id in 1...16 {
                    group.addTask {
                        await withOverrides({
                            $0.register(Ticker.self) { _ in Ticker(id: id) }.inObjectScope(.container)
                        }) {
                            var wrong = 0
                            for _ in 0..<20 {
                                await Task.yield()
                                if SynchronizedResolver.current.resolve(Stream.self)?.clock.id != id { wrong += 1 }
                            }
                            return wrong
                        }
                    }
                }
                return await group.reduce(0, +)
            }
        }
        #expect(wrong == 0)
        #expect(app.resolve(Stream.self)?.clock.id == 0)
    }

    @Test func copiesNamedArgumentAndForwardedRegistrations() {
        let parent = Container()
        parent.register(Ticker.self, name: "fixed") { _ in Ticker(id: 9) }.implements(Sendable.self, name: "any")
        let app = Container(parent: parent, defaultObjectScope: .container)
        app.register(Ticker.self) { (_, id: Int) in Ticker(id: id) }
        withResolver(app.synchronize()) {
            withOverrides({ _ in }) {
                let current = SynchronizedResolver.current
                #expect(current.resolve(Ticker.self, name: "fixed")?.id == 9)
                #expect(current.resolve((any Sendable).self, name: "any") is Ticker)
                #expect(current.resolve(Ticker.self, argument: 3)?.id == 3)
                // The default scope (.container) was copied too.
                #expect(current.resolve(Ticker.self, argument: 3) === current.resolve(Ticker.self, argument: 3))
            }
        }
    }
}
