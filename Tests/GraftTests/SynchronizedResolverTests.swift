import Foundation
import Testing

@testable import Graft

/// Runs `body(thread)` on `threads` threads at once and returns when all have finished.
private func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for thread in 0..<threads {
        group.enter()
        Thread {
            body(thread)
            group.leave()
        }.start()
    }
    group.wait()
}

/// Counts calls from many threads.
private final class AtomicCounter: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

private final class Preferences: Sendable {}
private final class Warehouse: Sendable { let config: Preferences; init(config: Preferences) { self.config = config } }
private final class Repository: Sendable {
    let database: Warehouse
    let config: Preferences
    init(database: Warehouse, config: Preferences) { self.database = database; self.config = config }
}
private final class Request: Sendable {}
final class CastProbe: Sendable {}

/// What an application adds to `Container` and casts resolvers to, as Knit does with its resolvers.
protocol ApplicationResolver {
    func castProbe() -> CastProbe?
}

extension Container: ApplicationResolver {
    func castProbe() -> CastProbe? { resolve(CastProbe.self) }
}

@Suite struct SynchronizedResolverTests {
    @Test func eightThreadsOfMixedScopesCreateTheSingletonOnce() {
        let container = Container()
        let preferencesMade = AtomicCounter()
        let inconsistent = AtomicCounter()
        let failures = AtomicCounter()
        container.register(Preferences.self) { _ in
            preferencesMade.increment(); return Preferences()
        }.inObjectScope(.container)
        container.register(Warehouse.self) { r in Warehouse(config: r.resolve(Preferences.self)!) }  // graph
        container.register(Repository.self) { r in
            Repository(database: r.resolve(Warehouse.self)!, config: r.resolve(Preferences.self)!)
        }
        container.register(Request.self) { _ in Request() }.inObjectScope(.transient)
        let resolver = container.synchronize()

        onThreads(8) { _ in
            for iteration in 0..<10_000 {
                switch iteration % 3 {
                case 0:
                    guard let repository = resolver.resolve(Repository.self) else { failures.increment(); continue }
                    if repository.database.config !== repository.config { inconsistent.increment() }
                case 1:
                    if resolver.resolve(Request.self) == nil { failures.increment() }
                default:
                    if resolver.resolve(Preferences.self) == nil { failures.increment() }
                }
            }
        }
        #expect(preferencesMade.value == 1)
        #expect(inconsistent.value == 0)
        #expect(failures.value == 0)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func graphScopedGraphIsConsistentPerResolutionUnderContention() {
        let container = Container()
        container.register(Preferences.self) { _ in Preferences() }  // graph: one per resolution
        container.register(Warehouse.self) { r in Warehouse(config: r.resolve(Preferences.self)!) }
        container.register(Repository.self) { r in
            Repository(database: r.resolve(Warehouse.self)!, config: r.resolve(Preferences.self)!)
        }
        let resolver = container.synchronize()
        let shared = AtomicCounter()
        let seen = PreferencesSet()
        onThreads(8) { _ in
            for _ in 0..<2_000 {
                let repository = resolver.resolve(Repository.self)!
                if repository.database.config === repository.config { shared.increment() }
                seen.insert(repository.config)
            }
        }
        #expect(shared.value == 16_000)
        #expect(seen.count == 16_000)  // no two resolutions shared a graph-scoped instance
    }

    @Test(arguments: [ObjectScope.transient, .graph, .container])
    func parentAndChildViewsTogetherNeverDeadlock(_ scope: ObjectScope) {
        let parent = Container()
        parent.register(Preferences.self) { _ in Preferences() }.inObjectScope(scope)
        let child = Container(parent: parent)
        child.register(Warehouse.self) { r in Warehouse(config: r.resolve(Preferences.self)!) }
        let parentResolver = parent.synchronize()
        let childResolver = child.synchronize()
        let resolved = AtomicCounter()

        onThreads(4) { thread in
            for _ in 0..<2_000 {
                if thread.isMultiple(of: 2) {
                    if parentResolver.resolve(Preferences.self) != nil { resolved.increment() }
                } else if childResolver.resolve(Warehouse.self) != nil {
                    resolved.increment()
                }
            }
        }
        #expect(resolved.value == 8_000)
    }

    @Test func factoryMayReenterTheSynchronizedResolverItCaptured() {
        let container = Container()
        let resolver = container.synchronize()
        container.register(Preferences.self) { _ in Preferences() }
        container.register(Warehouse.self) { _ in Warehouse(config: resolver.resolve(Preferences.self)!) }
        let made = AtomicCounter()
        onThreads(4) { _ in
            for _ in 0..<500 where resolver.resolve(Warehouse.self) != nil { made.increment() }
        }
        #expect(made.value == 2_000)
    }

    @Test func factoriesReceiveTheSynchronizedResolver() {
        let container = Container()
        nonisolated(unsafe) var received: Resolver?
        container.register(Preferences.self) { r in
            received = r; return Preferences()
        }
        let resolver = container.synchronize()
        _ = resolver.resolve(Preferences.self)
        #expect(received as? SynchronizedResolver === resolver)
    }

    @Test func sharesRegistrationsAndInstancesWithItsContainer() {
        let container = Container()
        let resolver = container.synchronize()
        container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        container.register(Preferences.self, name: "named") { _ in Preferences() }
        let config = container.resolve(Preferences.self)
        #expect(resolver.resolve(Preferences.self) === config)
        #expect(resolver.resolve(Preferences.self, name: "named") != nil)
        let asProtocol: Resolver = container.synchronize()
        #expect(asProtocol.resolve(Preferences.self) === config)
    }

    @Test func viewIsAContainerAndCastsLikeOne() throws {
        let container = Container()
        container.register(CastProbe.self) { _ in CastProbe() }.inObjectScope(.container)
        let resolver: Resolver = container.synchronize()

        let asContainer = try #require(resolver as? Container)
        #expect(asContainer.resolve(CastProbe.self) === container.resolve(CastProbe.self))
        let asApplicationResolver = try #require(resolver as? ApplicationResolver)
        #expect(asApplicationResolver.castProbe() === container.resolve(CastProbe.self))
        #expect(resolver is SynchronizedResolver)
        #expect(container.synchronize().synchronize().resolve(CastProbe.self) === container.resolve(CastProbe.self))
    }

    @Test func registrationsThroughTheViewGoToItsContainer() {
        let parent = Container()
        let container = Container(parent: parent)
        let view = container.synchronize()
        view.register(CastProbe.self) { _ in CastProbe() }.inObjectScope(.container)
        view.register(Request.self, name: "r") { _ in Request() }.implements(Sendable.self, name: "r")

        #expect(container.resolve(CastProbe.self) === view.resolve(CastProbe.self))
        #expect(container.resolve((any Sendable).self, name: "r") is Request)
        #expect(parent.resolve(CastProbe.self) == nil)
        #expect(view.hasAnyRegistration(of: CastProbe.self))
        #expect(view.description == container.description)
        // A child of the view sees the same registrations, as a child of the container would.
        #expect(Container(parent: view).resolve(CastProbe.self) === container.resolve(CastProbe.self))

        // Keyed by the static type, as in Swinject.
        class Vehicle {}
        final class Bike: Vehicle {}
        final class Car: Vehicle {}
        let vehicleType: Vehicle.Type = Bike.self
        view.register(vehicleType) { _ in Car() }
        #expect(container.resolve(Vehicle.self) is Car)
        #expect(container.resolve(Bike.self) == nil)

        let first = view.resolve(CastProbe.self)
        view.resetObjectScope(.container)
        #expect(container.resolve(CastProbe.self) !== first)
        view.removeAll()
        #expect(container.resolve(CastProbe.self) == nil)
    }

    /// Registering while other threads resolve, a known race in Swinject. Through the view,
    /// every registration, setting and reset runs under the hierarchy's mutex.
    @Test func eightThreadsRegisterThroughTheViewWhileOthersResolve() {
        let container = Container()
        container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        let view = container.synchronize()
        let registrationsPerThread = 300
        let failures = AtomicCounter()
        let resolvedNew = AtomicCounter()

        onThreads(12) { thread in
            if thread < 8 {
                for index in 0..<registrationsPerThread {
                    let name = "\(thread).\(index)"
                    view.register(Warehouse.self, name: name) { r in Warehouse(config: r.resolve(Preferences.self)!) }
                        .inObjectScope(index.isMultiple(of: 2) ? .container : .transient)
                        .initCompleted { _, warehouse in _ = warehouse.config }
                    if view.resolve(Warehouse.self, name: name) == nil { failures.increment() }
                    if index.isMultiple(of: 50) { view.resetObjectScope(.container, serviceType: Warehouse.self) }
                }
            } else {
                for index in 0..<2_000 {
                    if view.resolve(Preferences.self) == nil { failures.increment() }
                    // Names other threads are registering now: found or not, never a crash.
                    let name = "\(index % 8).\(index % registrationsPerThread)"
                    if view.resolve(Warehouse.self, name: name) != nil { resolvedNew.increment() }
                }
            }
        }
        #expect(failures.value == 0)
        for thread in 0..<8 {
            for index in 0..<registrationsPerThread {
                #expect(container.resolve(Warehouse.self, name: "\(thread).\(index)") != nil)
            }
        }
        #expect(container.hierarchy.resolution.depth == 0)
    }

    /// Swinject 2.10 starts a new graph in each synchronized child; Graft's view shares the graph
    /// being resolved, so a graph-scoped service is made once per top-level resolution.
    @Test func factoriesResolvingThroughACapturedViewShareTheGraph() {
        let container = Container()
        let view = container.synchronize()
        let made = AtomicCounter()
        container.register(Preferences.self) { _ in
            made.increment(); return Preferences()
        }  // graph
        container.register(Warehouse.self) { _ in Warehouse(config: view.resolve(Preferences.self)!) }
        container.register(Repository.self) { _ in
            Repository(database: view.resolve(Warehouse.self)!, config: view.resolve(Preferences.self)!)
        }

        let repository = view.resolve(Repository.self)!
        #expect(repository.database.config === repository.config)
        #expect(made.value == 1)
    }

    @Test func usableFromTasks() async {
        let container = Container()
        container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        let resolver = container.synchronize()
        let configs = await withTaskGroup(of: Preferences?.self) { group in
            for _ in 0..<16 { group.addTask { resolver.resolve(Preferences.self) } }
            var all: [Preferences?] = []
            for await config in group { all.append(config) }
            return all
        }
        #expect(configs.count == 16)
        #expect(configs.allSatisfy { $0 != nil && $0 === configs[0] })
    }
}

private final class PreferencesSet: @unchecked Sendable {  // `set` is only touched under `lock`
    private let lock = NSLock()
    private var set = Set<ObjectIdentifier>()
    private var kept: [Preferences] = []  // keeps each alive so no identifier is reused
    func insert(_ config: Preferences) {
        lock.lock()
        set.insert(ObjectIdentifier(config))
        kept.append(config)
        lock.unlock()
    }
    var count: Int { lock.lock(); defer { lock.unlock() }; return set.count }
}
