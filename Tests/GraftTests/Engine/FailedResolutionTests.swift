import Testing

@testable import Graft

/// A custom storage keyed by graph, as Swinject's `GraphStorage` is.
private final class GraphKeyedStorage: InstanceStorage, @unchecked Sendable {  // used on one thread
    private var byGraph: [GraphIdentifier: Any] = [:]
    var instance: Any?
    var storedCount: Int { byGraph.count }
    func instance(inGraph graph: GraphIdentifier) -> Any? { byGraph[graph] }
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        byGraph[graph] = instance
        self.instance = instance
    }
}

/// A failed resolution keeps nothing it made, in any scope or storage, and user code that runs
/// while it is undone (a `deinit` of a dropped instance) resolves normally.
@Suite struct FailedResolutionTests {
    @Test func deinitThatResolvesAndFailsDuringARollbackLeavesTheContainerUsable() {
        let container = Container()
        let released = Counter()
        final class Broken { init(_: Tracker) {} }
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Echo.self) { _ in
            Echo {
                released.increment()
                _ = container.resolve(Tracker.self)
                _ = container.resolve(Broken.self)  // fails too, inside the rollback
            }
        }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Broken.self) { r in
            _ = try r.require(Loop.self)
            return Broken(Tracker())
        }
        // The failed resolution drops the container-scoped Echo; its deinit resolves and fails again.
        container.register(Root.self) { r in
            _ = r.resolve(Echo.self)
            _ = try r.require(Loop.self)  // throws Loop's failure on: fails the resolution
            return Root(nil)
        }
        #expect(container.resolve(Root.self) == nil)
        #expect(released.value == 1)
        #expect(container.hierarchy.resolution.depth == 0)
        #expect(container.resolve(Tracker.self) != nil)
    }

    @Test func deinitResolvingDuringARollbackGetsAResolutionOfItsOwn() {
        let container = Container()
        let resolvedInDeinit = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Echo.self) { _ in
            Echo {
                // Runs while the failed resolution is rolled back: a resolution of its own.
                if container.resolve(Tracker.self) != nil { resolvedInDeinit.increment() }
            }
        }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Holder.self) { r in
            _ = r.resolve(Echo.self)
            _ = try r.require(Loop.self)
            return Holder()
        }
        #expect(container.resolve(Holder.self) == nil)
        #expect(resolvedInDeinit.value == 1)
        #expect(container.hierarchy.resolution.depth == 0)
        #expect(container.hierarchy.resolution.failure == nil)
        #expect(container.resolve(Echo.self) != nil)
    }

    @Test func failedResolutionClearsAGraphKeyedCustomStorage() {
        let storage = GraphKeyedStorage()
        let scope = ObjectScope(storageFactory: { storage }, description: "per graph")
        let container = Container()
        container.register(Unit.self) { _ in Unit() }.inObjectScope(scope)
        Loop.register(in: container)
        container.register(Holder.self) { r in
            _ = r.resolve(Unit.self)
            _ = try r.require(Loop.self)  // fails this resolution
            return Holder()
        }
        #expect(container.resolve(Holder.self) == nil)
        #expect(storage.storedCount == 0)
    }

    /// A `Lazy` resolved inside a factory is a request of its own: when the outer resolution then
    /// fails, the container keeps what the `Lazy` made (the `Lazy` has cached it).
    @Test func lazyResolvedInAFailingFactoryKeepsOneSingleton() {
        final class Config {}
        final class Settings {
            let config: Lazy<Config>
            init(config: Lazy<Config>) { self.config = config }
        }
        final class Screen {}
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        container.register(Settings.self) { r in Settings(config: r.resolve(Lazy<Config>.self)!) }
            .inObjectScope(.container)
        let settings = container.resolve(Settings.self)!
        Loop.register(in: container)
        container.register(Screen.self) { r in
            _ = settings.config.instance
            _ = try r.require(Loop.self)
            return Screen()
        }
        #expect(container.resolve(Screen.self) == nil)
        #expect(settings.config.instance === container.resolve(Config.self))
    }

    /// A failed request undoes only what it kept: not a singleton kept by a `Lazy`'s own request
    /// after a reset dropped the one the failed request had made.
    @Test func rollbackDropsOnlyTheInstanceThisRequestKept() {
        final class Singleton {}
        final class Root {}
        let container = Container()
        let lazy = Box<Lazy<Singleton>?>(nil)
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Root.self) { r in
            _ = r.resolve(Singleton.self)
            container.resetObjectScope(.container)
            lazy.value = r.resolve(Lazy<Singleton>.self)
            _ = lazy.value?.instance
            _ = try r.require(Loop.self)  // fails this request
            return Root()
        }
        #expect(container.resolve(Root.self) == nil)
        #expect(lazy.value?.instance === container.resolve(Singleton.self))
    }
}

/// A request that fails as a whole (a cycle through an `Optional`) drops the singletons it made,
/// also when the instance its factory made anyway resolves from its `deinit`: that resolution,
/// inside the failed request, hands the failure back instead of ending it.
@Suite struct RequestStartedInAFailedRequestTests {
    private final class Part {}
    private final class Whole {
        let part: Part?
        var onDeinit: (() -> Void)?
        init(_ part: Part?) { self.part = part }
        deinit { onDeinit?() }
    }
    private final class Probe {}

    @Test(arguments: [false, true])
    func aSingletonMadeByACycledRequestIsDroppedWhenADeinitResolvesInsideIt(customScope: Bool) {
        let scope = customScope ? ObjectScope(storageFactory: PermanentStorage.init) : ObjectScope.container
        let container = Container()
        container.register(Probe.self) { _ in Probe() }.inObjectScope(.transient)
        container.register(Part.self) { _ in Part() }.inObjectScope(scope)
        weak var madePart: Part?
        let probed = Counter()
        container.register(Whole.self) { [unowned container] r in
            let whole = Whole(r.resolve(Part.self))
            madePart = whole.part
            _ = r.resolve(Whole.self)  // a cycle through an Optional: the whole request fails
            whole.onDeinit = {
                _ = container.resolve(Probe.self)
                probed.increment()
            }
            return whole
        }.inObjectScope(scope)

        #expect(container.resolve(Whole.self) == nil)
        #expect(probed.value == 1)
        #expect(madePart == nil, "the failed request kept the singleton it made")
        #expect(container.hierarchy.resolution.depth == 0)
        #expect(container.resolve(Probe.self) != nil)
    }
}
