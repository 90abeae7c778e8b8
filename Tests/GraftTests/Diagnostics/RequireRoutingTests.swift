import Testing

@testable import Graft

private final class Gearbox {}
private final class Truck {
    let gearbox: Gearbox
    init(gearbox: Gearbox) { self.gearbox = gearbox }
}
private final class Depot {
    let trucks: [Truck]
    init(trucks: [Truck]) { self.trucks = trucks }
}

/// Generic code calls `require` with the resolver's type unknown until run time.
private func requireGenerically<R: Resolver, Service>(_ resolver: R, _ type: Service.Type) throws -> Service {
    try resolver.require(type)
}

/// `require` takes Graft's own path for a `Container` and a view, found by their exact type, and
/// the resolver's `resolve` for any other resolver: each kind of resolver, reached statically,
/// through `any Resolver` and through generic code, gets the registered service or the error that
/// names what it asked for.
@Suite struct RequireRoutingTests {
    @Test func everyKindOfResolverGetsTheServiceThroughRequire() throws {
        let container = Container()
        container.register(Gearbox.self) { _ in Gearbox() }.inObjectScope(.container)
        let gearbox = container.resolve(Gearbox.self)
        let view = container.synchronize()
        let resolvers: [any Resolver] = [container, view, Forwarding(container: container)]
        for resolver in resolvers {
            #expect(try resolver.require(Gearbox.self) === gearbox)
            #expect(try requireGenerically(resolver, Gearbox.self) === gearbox)
            #expect(try resolver.require(Gearbox.self, name: nil) === gearbox)
        }
        #expect(try container.require(Gearbox.self) === gearbox)
        #expect(try view.require(Gearbox.self) === gearbox)
    }

    @Test func aMissIsThrownWithTheResolversOwnAccount() {
        let container = Container()
        let resolvers: [any Resolver] = [container, container.synchronize(), Forwarding(container: container)]
        let messages = resolvers.map { resolver -> String in
            do {
                _ = try resolver.require(Gearbox.self)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(messages[0].contains("Gearbox") && messages[0].contains("no registration of Gearbox"))
        #expect(messages[1].contains("Gearbox") && messages[1].contains("no registration of Gearbox"))
        #expect(messages[2].contains("Forwarding returned nil for Gearbox"))
    }

    /// Factories that `require` through the resolver they receive, re-entering the path from
    /// inside a resolution: through the container, its view (whose mutex the outer call holds),
    /// and a resolver of the application's own; one of them registers while it runs.
    @Test func factoriesRequireThroughTheResolverTheyReceiveWhileAResolutionRuns() throws {
        let container = Container()
        container.register(Gearbox.self) { _ in Gearbox() }
        container.register(Truck.self) { r in try Truck(gearbox: r.require(Gearbox.self)) }
        container.register(Depot.self) { [unowned container] r in
            container.register(Gearbox.self, name: "spare") { _ in Gearbox() }  // registers mid-resolution
            let throughForwarding = try Forwarding(container: container).require(Truck.self)
            return try Depot(trucks: [r.require(Truck.self), requireGenerically(r, Truck.self), throughForwarding])
        }
        let view = container.synchronize()
        for resolver in [container, view] as [any Resolver] {
            let garage = try resolver.require(Depot.self)
            #expect(garage.trucks.count == 3)
            #expect(garage.trucks[0] === garage.trucks[1], "one graph: the same Truck through r and generic code")
            #expect(try resolver.require(Gearbox.self, name: "spare") !== garage.trucks[0].gearbox)
        }
    }
}
