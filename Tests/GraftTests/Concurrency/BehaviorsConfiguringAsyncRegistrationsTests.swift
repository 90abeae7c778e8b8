import Testing

@testable import Graft

private final class Vault: Sendable {}

/// Sets the scope of every registration it is told about, as an application's "everything is a
/// singleton" behavior does.
private final class SingletonBehavior: Behavior {
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        entry.inObjectScope(.container)
    }
}

/// A behavior told about an async registration configures what answers the synchronous
/// `resolve`; whatever it sets, that `resolve` answers with the instance the registration holds
/// now (the one `resolveAsync` gives), never one the registration has dropped.
@Suite struct BehaviorsConfiguringAsyncRegistrationsTests {
    @Test func resolveGivesTheAsyncServicesCurrentInstanceAfterItsReset() async throws {
        let container = Container()
        container.addBehavior(SingletonBehavior())
        let entry = container.registerAsync(Vault.self) { _ in Vault() }
        let resolver = container.synchronize()
        let first = try await resolver.resolveAsync(Vault.self)
        #expect(resolver.resolve(Vault.self) === first)

        entry.inObjectScope(.container)  // drops the built instance: the next resolveAsync builds again
        let second = try await resolver.resolveAsync(Vault.self)

        #expect(second !== first)
        #expect(resolver.resolve(Vault.self) === second, "resolve answered with the dropped instance")
    }
}
