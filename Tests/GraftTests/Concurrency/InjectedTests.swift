import Foundation
import Testing

@testable import Graft

private protocol Telemetry: Sendable {}

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

/// Counts from many threads.
private final class Tally: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var stored = 0
    func increment() { lock.withLock { stored += 1 } }
    var value: Int { lock.withLock { stored } }
}

private final class Signal: Sendable {}
private final class Noise: Sendable {}
private protocol Channel: AnyObject {}
private final class Radio: Channel {}
private final class Receiver {
    @Injected var optionalMissing: Noise?
    @Injected var optionalPresent: Signal?
    @Injected var existential: any Channel
    @Injected(name: "n") var named: Signal
}

private final class Preferences {}
private final class PreferencesHolder { @Injected var settings: Preferences }
private final class InjectedSingleton { @Injected var settings: Preferences }
private final class Probe {}
private struct Refusal: Error {}

@Suite struct InjectedTests {
    @Test func capturesTheResolverAtInitAndResolvesOnFirstAccessOnce() {
        let made = Tally()
        let app = clockContainer(clock: 5)
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
        let app = clockContainer(clock: 6)
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
        let worker = withResolver(clockContainer(clock: 8).synchronize()) { Courier() }
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

    /// Read with no resolver bound, the reason and the way to bind one are said once, with one
    /// `Graft:` prefix.
    @Test func unboundFirstAccessSaysHowToBindOnce() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.loggingFunction = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
            _ = SendableModel().clock
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.components(separatedBy: "No resolver is bound to this task").count == 2)
        #expect(stderr.components(separatedBy: "Graft:").count == 2)
        #expect(stderr.contains("Graft: @Injected Ticker: the object holding it was made with no resolver bound"))
    }

    /// An optional `@Injected` read with no resolver bound would be `nil` for good: a setup
    /// mistake, stopped with the same message rather than hidden.
    @Test func unboundOptionalFirstAccessStopsSayingHowToBind() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Screenful().analytics
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("@Injected Optional<Telemetry>: the object holding it was made with no resolver bound"))
        #expect(stderr.contains("SynchronizedResolver.bootstrap"))
    }

    /// A failure's reason follows the wrapper's own words, without a second `Graft:`.
    @Test func failedFirstAccessStopsWithOnePrefix() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = withResolver(Container().synchronize()) { SendableModel() }
            _ = model.clock
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("Graft: @Injected could not resolve Ticker: resolution failed: no registration of Ticker"))
    }

    /// An `@Injected` first read in a factory whose request then fails keeps no singleton the
    /// rollback drops: the `.container` service stays one instance.
    @Test func injectedReadInAFailingFactoryKeepsNoRolledBackSingleton() {
        let container = Container()
        let view = container.synchronize()
        let environment = withResolver(view) { PreferencesHolder() }
        container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        container.register(Probe.self) { _ throws -> Probe in
            _ = environment.settings
            throw Refusal()
        }
        #expect(view.resolve(Probe.self) == nil)
        #expect(environment.settings === view.resolve(Preferences.self)!)
    }

    /// A `.container` singleton holding an `@Injected` does not keep its own container alive
    /// (container, entry, singleton, wrapper, resolver would be a cycle): once read, the wrapper
    /// lets go of the resolver.
    @Test func singletonWithAnInjectedPropertyDoesNotKeepItsContainerAlive() {
        weak var weakContainer: Container?
        weak var weakSingleton: InjectedSingleton?
        do {
            let container = Container()
            container.register(Preferences.self) { _ in Preferences() }
            container.register(InjectedSingleton.self) { _ in InjectedSingleton() }.inObjectScope(.container)
            weakContainer = container
            withResolver(container.synchronize()) {
                let singleton = SynchronizedResolver.current.resolve(InjectedSingleton.self)!
                _ = singleton.settings
                weakSingleton = singleton
            }
        }
        #expect(weakContainer == nil)
        #expect(weakSingleton == nil)
    }

    /// Made while its container makes an instance it keeps, an `@Injected` holds only a link to
    /// that container: a `.container` singleton whose property is never read does not keep the
    /// container alive, resolved through a view or a plain container, in a child too.
    @Test(arguments: [false, true], ["container", "custom scope", "child"])
    func singletonWithAnUnreadInjectedPropertyDoesNotKeepItsContainerAlive(throughView: Bool, shape: String) {
        weak var weakContainer: Container?
        weak var weakSingleton: InjectedSingleton?
        do {
            let root = Container()
            let container = shape == "child" ? Container(parent: root) : root
            let scope = shape == "custom scope" ? ObjectScope(storageFactory: PermanentStorage.init) : .container
            container.register(Preferences.self) { _ in Preferences() }
            container.register(InjectedSingleton.self) { _ in InjectedSingleton() }.inObjectScope(scope)
            weakContainer = container
            let view = container.synchronize()
            withResolver(view) {
                weakSingleton =
                    throughView ? view.resolve(InjectedSingleton.self) : container.resolve(InjectedSingleton.self)
            }
            #expect(weakSingleton != nil)
        }
        #expect(weakContainer == nil)
        #expect(weakSingleton == nil)
    }

    /// The linked `@Injected` of a singleton resolves while its container lives, from another
    /// thread too, and keeps what it resolved once the container is gone. A transient's holds the
    /// resolver, as one made outside any resolution does.
    @Test func aSingletonsInjectedResolvesThroughItsContainerAndKeepsItsValue() async {
        var container: Container? = Container()
        container!.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        container!.register(PreferencesHolder.self) { _ in PreferencesHolder() }.inObjectScope(.container)
        container!.register(PreferencesHolder.self, name: "transient") { _ in PreferencesHolder() }
        let view = container!.synchronize()
        // Not `Sendable`; read on one other thread at a time, with this one waiting.
        nonisolated(unsafe) let holder = withResolver(view) { view.resolve(PreferencesHolder.self)! }
        let transient = withResolver(view) { view.resolve(PreferencesHolder.self, name: "transient")! }
        let expected = view.resolve(Preferences.self)!
        let read = await Task.detached { ObjectIdentifier(holder.settings) }.value
        #expect(read == ObjectIdentifier(expected))
        weak let weakContainer = container
        container = nil
        #expect(weakContainer != nil)  // the view still holds it
        _ = consume view
        #expect(weakContainer != nil)  // the transient's unread wrapper holds it
        #expect(transient.settings === expected)
        #expect(weakContainer == nil)
        #expect(holder.settings === expected)
    }

    fileprivate final class AsyncSingleton: @unchecked Sendable {  // the wrapper's component guards its state
        @Injected var settings: Preferences
    }

    /// The same for an async singleton, whose factory runs in a task of its own: its unread
    /// `@Injected` does not keep its container alive.
    @Test func anAsyncSingletonWithAnUnreadInjectedPropertyDoesNotKeepItsContainerAlive() async throws {
        weak var weakContainer: Container?
        weak var weakSingleton: AsyncSingleton?
        do {
            let container = Container()
            container.register(Preferences.self) { _ in Preferences() }
            container.registerAsync(AsyncSingleton.self) { _ in AsyncSingleton() }
            weakContainer = container
            let view = container.synchronize()
            let singleton = try await withResolver(view) { try await view.resolveAsync(AsyncSingleton.self) }
            weakSingleton = singleton
        }
        // The build's task lets go of the container as it ends, which may be after the resolution
        // returned: wait for that state, a bounded number of times.
        for _ in 0..<100_000 where weakContainer != nil { await Task.yield() }
        #expect(weakContainer == nil)
        #expect(weakSingleton == nil)
    }

    /// A singleton of a parent first resolved through a child, with the child's view bound, reads
    /// its `@Injected` after the child is gone through the parent, which keeps it.
    @Test func aParentsSingletonMadeThroughAChildReadsThroughTheParentOnceTheChildIsGone() {
        let parent = Container()
        parent.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        parent.register(PreferencesHolder.self) { _ in PreferencesHolder() }.inObjectScope(.container)
        weak var weakChild: Container?
        do {
            let child = Container(parent: parent)
            weakChild = child
            let view = child.synchronize()
            _ = withResolver(view) { view.resolve(PreferencesHolder.self) }
        }
        #expect(weakChild == nil)
        let holder = parent.resolve(PreferencesHolder.self)!
        #expect(holder.settings === parent.resolve(Preferences.self))
    }

    fileprivate final class Pair {
        let holder: PreferencesHolder
        init(holder: PreferencesHolder) { self.holder = holder }
    }

    /// A singleton of another hierarchy, made while this hierarchy makes one of its own (whose
    /// factory resolves it there, and keeps it), holds links as well, to the resolver bound: the
    /// outer singleton does not keep its container alive through it, and while that container
    /// lives the inner singleton's wrapper answers through it.
    @Test func aSingletonOfAnotherHierarchyMadeInsideASingletonsFactoryLinksToTheBoundResolver() {
        let other = Container()
        other.register(PreferencesHolder.self) { _ in PreferencesHolder() }.inObjectScope(.container)
        weak var weakContainer: Container?
        do {
            let container = Container()
            weakContainer = container
            container.register(Pair.self) { _ in Pair(holder: other.resolve(PreferencesHolder.self)!) }
                .inObjectScope(.container)
            container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
            let view = container.synchronize()
            let pair = withResolver(view) { view.resolve(Pair.self)! }
            #expect(pair.holder.settings === container.resolve(Preferences.self))
        }
        #expect(weakContainer == nil)
        do {
            let container = Container()
            weakContainer = container
            container.register(Pair.self) { _ in Pair(holder: other.resolve(PreferencesHolder.self, name: "unread")!) }
                .inObjectScope(.container)
            other.register(PreferencesHolder.self, name: "unread") { _ in PreferencesHolder() }.inObjectScope(
                .container)
            let view = container.synchronize()
            _ = withResolver(view) { view.resolve(Pair.self)! }
        }
        #expect(weakContainer == nil)
    }

    /// A child's singleton whose child is gone reads its wrapper through the nearest ancestor
    /// alive, which answers.
    @Test func aSingletonsInjectedReadsThroughAnAncestorOnceItsContainerIsGone() {
        let parent = Container()
        parent.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        var child: Container? = Container(parent: parent)
        child!.register(PreferencesHolder.self) { _ in PreferencesHolder() }.inObjectScope(.container)
        let view = child!.synchronize()
        let holder = withResolver(view) { view.resolve(PreferencesHolder.self)! }
        weak let weakChild = child
        child = nil
        _ = consume view
        #expect(weakChild == nil)
        #expect(holder.settings === parent.resolve(Preferences.self))
    }

    /// Its first access after its container is gone says so, and what to do.
    @Test func aSingletonsInjectedFirstReadAfterItsContainerIsGoneStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder: PreferencesHolder = {
                let container = Container()
                container.register(Preferences.self) { _ in Preferences() }
                container.register(PreferencesHolder.self) { _ in PreferencesHolder() }.inObjectScope(.container)
                let view = container.synchronize()
                return withResolver(view) { view.resolve(PreferencesHolder.self)! }
            }()
            _ = holder.settings
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("@Injected Preferences was made while a container made an instance it keeps"))
    }

    @Test func injectedResolvesOptionalsExistentialsAndNames() {
        let container = Container()
        container.register(Signal.self) { _ in Signal() }
        container.register(Signal.self, name: "n") { _ in Signal() }.inObjectScope(.container)
        container.register((any Channel).self) { _ in Radio() }
        let holder = withResolver(container.synchronize()) { Receiver() }
        #expect(holder.optionalMissing == nil)
        #expect(holder.optionalMissing == nil)
        let a = holder.optionalPresent
        #expect(a != nil)
        #expect(holder.optionalPresent === a)
        #expect(holder.existential === holder.existential)
        #expect(holder.named === container.resolve(Signal.self, name: "n"))
    }
}
