import Testing

@testable import Graft

private final class TBDatabase {}
private final class TBLogger {}
private final class TBOuter {
    let logger: TBLogger?
    init(_ logger: TBLogger?) { self.logger = logger }
}
private struct TBBoom: Error {}
/// An error that carries the resolver its factory was given, as error types with context do.
private struct TBHoldingError: Error {
    /// Only kept, never used: what matters is the reference.
    nonisolated(unsafe) let resolver: Resolver
}
private final class TBHolder {
    @Injected var database: TBDatabase?
}

/// What a failed request takes back, and what it must leave: a value a wrapper already handed out
/// stays, a graph ends once, and nothing it remembers outlives the hierarchy.
@Suite struct FailedRequestTakeBackTests {
    /// How the failure that ends the request reaches the application.
    enum Shape: CaseIterable, Sendable {
        /// The factory throws, and the request the application started fails.
        case failsTheRequest
        /// The factory throws, and an outer factory takes the `nil` and goes on.
        case handledByAnOuterFactory
    }

    private static func register(_ shape: Shape, in container: Container, reading read: @escaping () -> Void) {
        container.register(TBLogger.self) { r in
            _ = r.resolve(TBDatabase.self)
            read()
            throw TBBoom()
        }
        container.register(TBOuter.self) { r in TBOuter(r.resolve(TBLogger.self)) }
    }

    private static func resolve(_ shape: Shape, in resolver: Resolver) {
        switch shape {
        case .failsTheRequest: #expect(resolver.resolve(TBLogger.self) == nil)
        case .handledByAnOuterFactory: #expect(resolver.resolve(TBOuter.self)?.logger == nil)
        }
    }

    /// A container whose `TBDatabase` is a singleton, and how many its factory made.
    private static func containerWithASingleton() -> (Container, Box<Int>) {
        let container = Container()
        let made = Box(0)
        container.register(TBDatabase.self) { _ in
            made.value += 1
            return TBDatabase()
        }.inObjectScope(.container)
        return (container, made)
    }

    @Test(arguments: Shape.allCases, [false, true])
    func aSingletonALazyHandedOutInAFailedRequestStaysTheOne(_ shape: Shape, synchronized: Bool) {
        let (container, made) = Self.containerWithASingleton()
        let resolver: Resolver = synchronized ? container.synchronize() : container
        let lazy = resolver.resolve(Lazy<TBDatabase>.self)!
        let handedOut = Box<TBDatabase?>(nil)
        Self.register(shape, in: container) { handedOut.value = lazy.instance }
        Self.resolve(shape, in: resolver)
        #expect(handedOut.value != nil)
        #expect(lazy.instance === resolver.resolve(TBDatabase.self))
        #expect(made.value == 1)
    }

    @Test(arguments: Shape.allCases)
    func aSingletonAnInjectedHandedOutInAFailedRequestStaysTheOne(_ shape: Shape) {
        let (container, made) = Self.containerWithASingleton()
        let view = container.synchronize()
        let holder = withResolver(view) { TBHolder() }
        Self.register(shape, in: container) { _ = holder.database }
        Self.resolve(shape, in: view)
        #expect(holder.database === view.resolve(TBDatabase.self))
        #expect(made.value == 1)
    }

    /// A `Lazy` made in a graph and first read inside a nested resolution that fails and is
    /// handled: the instance it handed out is the graph's only one.
    @Test func aGraphInstanceALazyHandedOutInAHandledFailureStaysTheGraphs() {
        final class Root {
            var first: TBDatabase?
            var second: TBDatabase?
        }
        let container = Container()
        let made = Box(0)
        container.register(TBDatabase.self) { _ in
            made.value += 1
            return TBDatabase()
        }
        let lazy = Box<Lazy<TBDatabase>?>(nil)
        container.register(TBLogger.self) { _ in
            _ = lazy.value?.instance
            throw TBBoom()
        }
        container.register(Root.self) { r in
            let root = Root()
            lazy.value = r.resolve(Lazy<TBDatabase>.self)
            _ = r.resolve(TBLogger.self)  // fails after the `Lazy` handed out its instance; handled
            root.first = lazy.value?.instance
            root.second = r.resolve(TBDatabase.self)
            return root
        }
        let root = container.resolve(Root.self)
        #expect(root?.first != nil)
        #expect(root?.first === root?.second)
        #expect(made.value == 1)
    }

    /// What the failed request made before and apart from the wrapper's read is still taken back.
    @Test func whatNoWrapperHandedOutIsStillTakenBack() {
        final class Cache {}
        let container = Container()
        let made = Box(0)
        container.register(Cache.self) { _ in
            made.value += 1
            return Cache()
        }.inObjectScope(.container)
        container.register(TBDatabase.self) { _ in TBDatabase() }.inObjectScope(.container)
        let lazy = container.resolve(Lazy<TBDatabase>.self)!
        container.register(TBLogger.self) { r in
            _ = lazy.instance
            _ = r.resolve(Cache.self)  // made after the read: the failure takes it back
            throw TBBoom()
        }
        #expect(container.resolve(TBLogger.self) == nil)
        _ = container.resolve(Cache.self)
        #expect(made.value == 2)
    }

    /// A custom storage is told once per graph that the graph ended, at its real end, not when a
    /// handled failure inside it is undone.
    @Test func aHandledFailureDoesNotEndTheGraphItRunsIn() {
        final class CountingStorage: InstanceStorage {
            var instance: Any?
            var completed = 0
            var completedWhileRunning = 0
            var running = false
            func graphResolutionCompleted() {
                completed += 1
                if running { completedWhileRunning += 1 }
            }
        }
        final class Scoped {}
        let storage = CountingStorage()
        let scope = ObjectScope(storageFactory: { storage })
        let container = Container()
        container.register(Scoped.self) { _ in Scoped() }.inObjectScope(scope)
        container.register(TBLogger.self) { r in
            _ = r.resolve(Scoped.self)
            throw TBBoom()
        }
        container.register(TBOuter.self) { r in
            storage.running = true
            defer { storage.running = false }
            return TBOuter(r.resolve(TBLogger.self))
        }
        #expect(container.resolve(TBOuter.self) != nil)
        #expect(storage.completedWhileRunning == 0)
        #expect(storage.completed == 1)
    }

    /// Makes a hierarchy with `build`, drops it, and tells whether it is gone.
    private static func hierarchyIsFreed(_ build: (Container) -> Void) -> Bool {
        weak var hierarchy: SharedState?
        do {
            let container = Container()
            hierarchy = container.hierarchy
            build(container)
        }
        return hierarchy == nil
    }

    @Test func aFailureInsideWithObjectGraphKeepsNothingOfTheHierarchy() {
        let failed = Box(false)
        let freed = Self.hierarchyIsFreed { container in
            container.register(TBLogger.self) { r in throw TBHoldingError(resolver: r) }
            container.withObjectGraph(GraphIdentifier()) { r in
                failed.value = r.resolve(TBLogger.self) == nil
            }
        }
        #expect(failed.value)
        #expect(freed)
    }

    @Test func aHandledFailureInASuccessfulRequestKeepsNothingOfTheHierarchy() {
        let register = { (container: Container) in
            container.register(TBLogger.self) { r in throw TBHoldingError(resolver: r) }
            container.register(TBOuter.self) { r in TBOuter(r.resolve(TBLogger.self)) }
        }
        let made = Box(0)
        let freedAfterRequire = Self.hierarchyIsFreed { container in
            register(container)
            if (try? container.require(TBOuter.self)) != nil { made.value += 1 }
        }
        let freedAfterWrappers = Self.hierarchyIsFreed { container in
            register(container)
            if container.resolve(Lazy<TBOuter>.self)?.instance != nil { made.value += 1 }
            if container.resolve(Provider<TBOuter>.self)?.instance != nil { made.value += 1 }
        }
        #expect(made.value == 3)
        #expect(freedAfterRequire)
        #expect(freedAfterWrappers)
    }

    /// A `deinit` run when a failed request drops what it made may resolve, successfully: the
    /// `require` waiting on the failure still throws it, not a missing registration.
    @Test(arguments: [false, true])
    func aDeinitThatResolvesWhileAFailureIsTakenBackLeavesTheFailureToItsCaller(cycle: Bool) throws {
        final class Cache {}
        final class Dying {
            let resolve: () -> Void
            init(_ resolve: @escaping () -> Void) { self.resolve = resolve }
            deinit { resolve() }
        }
        final class Front {}
        final class Back {}
        let container = Container()
        container.register(Cache.self) { _ in Cache() }
        container.register(Dying.self) { _ in Dying { _ = container.resolve(Cache.self) } }.inObjectScope(.container)
        container.register(Front.self) { r in
            _ = r.resolve(Dying.self)
            if cycle { _ = r.resolve(Back.self) } else { throw TBBoom() }
            return Front()
        }
        container.register(Back.self) { r in
            _ = r.resolve(Front.self)
            return Back()
        }
        let error = try #require(#expect(throws: ResolutionError.self) { try container.require(Front.self) })
        switch error.reason {
        case .circularDependency: #expect(cycle)
        case .factoryFailed: #expect(!cycle)
        default: Issue.record("unexpected reason: \(error)")
        }
    }
}
