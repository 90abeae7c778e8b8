// Graft — MIT License.
import Graft

// Drops every shape of container that applications and tests make, then exits: run under
// LeakSanitizer (scripts/lsan.sh), it must report nothing. With `--plant-cycle` it also drops a
// container whose registration holds the container itself (a record that holds its owner), which
// LeakSanitizer must report: the proof that the check sees a cycle through Graft's records.

final class Logger: Sendable {}
final class Marker {}
final class Service {
    let logger: Logger?
    init(logger: Logger?) { self.logger = logger }
}
final class Connection: Sendable {}
/// An error holding what owns its hierarchy (never read on another thread: hence unsafe).
struct HoldingError: Error {
    nonisolated(unsafe) let resolver: Resolver?
    nonisolated(unsafe) let lazy: Lazy<Marker>?
}
@MainActor final class ViewModel {
    let logger: Logger?
    init(logger: Logger?) { self.logger = logger }
}

struct LoggingAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Logger.self) { _ in Logger() }.inObjectScope(.container)
    }
}

struct FeatureAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Service.self) { r in Service(logger: r.resolve(Logger.self)) }
        container.register(Marker.self, name: "feature") { _ in Marker() }.inObjectScope(.weak)
    }
}

final class Screen {
    @Injected var service: Service
}
final class AsyncScreen: @unchecked Sendable {  // its wrapper's component guards its own state
    @Injected var service: Service
}

/// A root with an app-wide singleton and a graph-scoped service.
func makeRoot() -> Container {
    let root = Container()
    root.register(Logger.self) { _ in Logger() }.inObjectScope(.container)
    root.register(Service.self) { r in Service(logger: r.resolve(Logger.self)) }
    return root
}

/// A child that registered something of its own (what records a child registration).
func makeFeature(parent: Container) -> Container {
    let child = Container(parent: parent)
    child.register(Marker.self) { _ in Marker() }.inObjectScope(.container)
    child.register(Service.self, name: "feature") { r in Service(logger: r.resolve(Logger.self)) }
    return child
}

@MainActor
func dropEveryShape() async {
    // Root and child.
    do {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        _ = child.resolve(Marker.self)
        _ = child.resolve(Service.self, name: "feature")
        _ = child.resolve(Service.self)
    }
    // A child dropped before its root, and a root dropped before its child.
    do {
        let root = makeRoot()
        var child: Container? = makeFeature(parent: root)
        _ = child?.resolve(Marker.self)
        child = nil
        _ = root.resolve(Service.self)
    }
    do {
        var root: Container? = makeRoot()
        let child = makeFeature(parent: root!)
        root = nil
        _ = child.resolve(Service.self)
    }
    // A child of a view, and a view of a child.
    do {
        let root = makeRoot()
        let child = makeFeature(parent: root.synchronize())
        _ = child.synchronize().resolve(Marker.self)
        let view = makeFeature(parent: root).synchronize()
        _ = view.resolve(Service.self, name: "feature")
        view.register(Marker.self, name: "late") { _ in Marker() }
    }
    // Grandchildren and siblings, with a failed resolution that names a sibling's registration.
    do {
        let root = makeRoot()
        let left = makeFeature(parent: root)
        let right = makeFeature(parent: root)
        let grandchild = makeFeature(parent: left)
        right.register(Connection.self, name: "right") { _ in Connection() }
        _ = grandchild.resolve(Service.self)
        _ = grandchild.resolve(Connection.self, name: "right")  // fails: registered in a sibling's line
        _ = try? left.require(Connection.self, name: "right")
        _ = right.resolve(Marker.self)
    }
    // Replaced and removed registrations in a child.
    do {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        child.register(Marker.self) { _ in Marker() }
        child.removeAll()
        child.register(Marker.self) { _ in Marker() }.inObjectScope(.weak)
        _ = child.resolve(Marker.self)
    }
    // Async and main-actor registrations, built and unbuilt, in a root and in a child.
    do {
        let root = makeRoot()
        root.registerAsync(Connection.self) { _ in Connection() }
        root.registerAsync(Connection.self, name: "unbuilt") { _ in Connection() }
        root.registerMain(ViewModel.self) { r in ViewModel(logger: r.resolve(Logger.self)) }
        root.registerMain(ViewModel.self, name: "unbuilt") { _ in ViewModel(logger: nil) }
        let child = makeFeature(parent: root)
        child.registerAsync(Connection.self, name: "child") { _ in Connection() }
        child.registerMain(ViewModel.self, name: "child") { _ in ViewModel(logger: nil) }
        let view = child.synchronize()
        _ = try? await view.resolveAsync(Connection.self)
        _ = try? await view.resolveAsync(Connection.self, name: "child")
        _ = child.resolveMain(ViewModel.self)
        _ = child.resolveMain(ViewModel.self, name: "child")
        _ = child.validate()
    }
    // `withResolver` and `withOverrides` with a feature's view bound, as the test traits do.
    do {
        let root = makeRoot()
        let feature = makeFeature(parent: root)
        withResolver(feature.synchronize()) {
            _ = SynchronizedResolver.current.resolve(Service.self)
            withOverrides({ $0.register(Logger.self) { _ in Logger() } }) {
                _ = SynchronizedResolver.current.resolve(Service.self)
                _ = SynchronizedResolver.current.resolve(Marker.self)
                let screen = Screen()
                _ = screen.service
            }
        }
        await withResolver(feature.synchronize()) {
            await withOverrides({ $0.registerAsync(Connection.self) { _ in Connection() } }) {
                _ = try? await SynchronizedResolver.current.resolveAsync(Connection.self)
            }
        }
    }
    // Assemblers, with a feature child.
    do {
        let assembler = Assembler([LoggingAssembly()])
        let feature = Assembler([FeatureAssembly()], parent: assembler)
        _ = feature.resolver.resolve(Service.self)
        _ = feature.resolver.resolve(Marker.self, name: "feature")
    }
    // Collections, in a root and a feature child, through a view, a factory and a failing element.
    do {
        let root = makeRoot()
        let feature = makeFeature(parent: root)
        feature.register(Service.self, name: "broken") { r throws -> Service in
            throw HoldingError(resolver: r, lazy: nil)
        }
        root.register([Service].self, name: "all") { r in r.resolveAll(Service.self) ?? [] }
        _ = root.resolveAll(Service.self)
        _ = feature.synchronize().resolveAll(Service.self)
        _ = try? feature.requireAll(Service.self)
        _ = root.resolve([Service].self, name: "all")
    }
    // `Lazy`, `Provider` and `@Injected` that outlive their container, read before and after.
    var lazy: Lazy<Service>?
    var unreadLazy: Lazy<Marker>?
    var provider: Provider<Service>?
    var screen: Screen?
    do {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        lazy = child.resolve(Lazy<Service>.self)
        unreadLazy = child.resolve(Lazy<Marker>.self)
        provider = child.resolve(Provider<Service>.self)
        _ = lazy?.instance
        _ = provider?.instance
        screen = withResolver(child.synchronize()) { Screen() }
    }
    _ = lazy?.instance
    _ = screen?.service
    withExtendedLifetime(unreadLazy) {}  // never read: its container is gone
    lazy = nil
    unreadLazy = nil
    provider = nil
    screen = nil
    // Singletons whose `@Injected` is never read, resolved through a view and
    // through the plain container (in a child too), with a resolver of their hierarchy bound; many,
    // so what a stale stack slot still points to cannot hide them all.
    for _ in 0..<100 {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        for container in [root, child] {
            container.register(Screen.self) { _ in Screen() }.inObjectScope(.container)
        }
        root.registerAsync(AsyncScreen.self) { _ in AsyncScreen() }
        let view = child.synchronize()
        withResolver(view) {
            _ = child.resolve(Screen.self)
            _ = root.synchronize().resolve(Screen.self)
        }
        _ = try? await withResolver(view) { try await view.resolveAsync(AsyncScreen.self) }
    }
    // Failed resolutions whose errors hold what owns the hierarchy: a factory's error holding its
    // resolver, or a `Lazy`; through `resolve`, `require` (on the container and on a view) and
    // `validate()`, and handled by an outer factory.
    func failing() -> Container {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        child.register(Connection.self) { r in throw HoldingError(resolver: r, lazy: nil) }
        child.register(Connection.self, name: "lazy") { r in
            throw HoldingError(resolver: nil, lazy: r.resolve(Lazy<Marker>.self))
        }
        child.register(Service.self, name: "handled") { r in
            Service(logger: (try? r.require(Connection.self)).map { _ in Logger() })
        }
        return child
    }
    _ = failing().resolve(Connection.self)
    _ = try? failing().require(Connection.self, name: "lazy")
    _ = try? failing().synchronize().require(Connection.self)
    _ = failing().resolve(Service.self, name: "handled")
    _ = failing().validate()
    // The same failures inside `withObjectGraph`, and handled inside a `require`, a `Lazy` and a
    // `Provider` that succeed: nothing is left to read the failure there.
    failing().withObjectGraph(GraphIdentifier()) { r in _ = r.resolve(Connection.self) }
    failing().synchronize().withObjectGraph(GraphIdentifier()) { r in _ = r.resolve(Connection.self, name: "lazy") }
    _ = try? failing().require(Service.self, name: "handled")
    do {
        let container = failing()
        _ = container.resolve(Lazy<Service>.self, name: "handled")?.instance
        let view = failing().synchronize()
        _ = view.resolve(Provider<Service>.self, name: "handled")?.instance
    }
    // Instances a construction made and did not return, each holding its resolver: dropped past
    // the `require` that asked (a cycle below the factory fails the request as a whole, at the
    // top and in a factory; the graph held an instance an `initCompleted` action made meanwhile).
    func droppingPastTheCall() -> Container {
        let container = makeFeature(parent: makeRoot())
        container.register(HoldingError.self) { r in
            _ = r.resolve(Connection.self, name: "loop")
            return HoldingError(resolver: r, lazy: nil)
        }
        container.register(Connection.self, name: "loop") { r in
            _ = r.resolve(HoldingError.self)
            return Connection()
        }
        container.register(Service.self, name: "outer") { r in
            Service(logger: (try? r.require(HoldingError.self)).map { _ in Logger() })
        }
        container.register(HoldingError.self, name: "twice") { r in
            _ = r.resolve(Marker.self, name: "partner")
            return HoldingError(resolver: r, lazy: nil)
        }
        container.register(Marker.self, name: "partner") { _ in Marker() }
            .initCompleted { r, _ in _ = r.resolve(HoldingError.self, name: "twice") }
        return container
    }
    for _ in 0..<100 {  // many: a pointer left on the stack cannot hide them all
        _ = try? droppingPastTheCall().require(HoldingError.self)
        _ = try? droppingPastTheCall().synchronize().require(HoldingError.self)
        _ = droppingPastTheCall().resolve(Service.self, name: "outer")
        _ = try? droppingPastTheCall().require(HoldingError.self, name: "twice")
    }
    // Many of them, so a leak per hierarchy is a leak LeakSanitizer cannot miss.
    for _ in 0..<1_000 {
        let root = makeRoot()
        let child = makeFeature(parent: root)
        _ = child.resolve(Marker.self)
    }
}

/// A container whose registration's factory holds the container: it is never freed.
func plantCycle() {
    let container = Container()
    container.register(Marker.self) { _ in
        withExtendedLifetime(container) { Marker() }
    }
}

await dropEveryShape()
if CommandLine.arguments.contains("--plant-cycle") { plantCycle() }
print("graft-leaks: dropped every shape of container")
