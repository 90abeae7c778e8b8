import Testing

@testable import Graft

/// A behavior that forwards an async registration to another type (`entry.implements(P.self)`,
/// the auto-forwarding idiom) makes that type resolve through the registration: `resolveAsync` of
/// the forwarded type builds or returns the registration's one instance, and a synchronous
/// `resolve` returns it once built, as for a forward of any other registration.
@Suite struct ForwardsOfAsyncRegistrationsTests {
    protocol Store: Sendable {}
    protocol Unrelated: Sendable {}
    final class SQLStore: Store {}

    /// Forwards every registration of `SQLStore` to `Store`, and to `Unrelated` under "wrong".
    struct ForwardsStores: Behavior {
        func container<Type, Service>(
            _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            guard type == SQLStore.self else { return }
            entry.implements(Store.self)
            entry.implements(Unrelated.self, name: "wrong")
        }
    }

    final class Builds: @unchecked Sendable {
        // Touched only by the factory, which runs once at a time here (single flight).
        var count = 0
    }

    @Test func resolveAsyncOfTheForwardedTypeBuildsTheRegistrationOnce() async throws {
        let container = Container(behaviors: [ForwardsStores()])
        let builds = Builds()
        container.registerAsync(SQLStore.self) { _ in
            builds.count += 1
            return SQLStore()
        }
        let view = container.synchronize()
        #expect(view.resolve(Store.self) == nil)  // not built yet
        let byForward = try await view.resolveAsync(Store.self)
        let byOwnType = try await view.resolveAsync(SQLStore.self)
        #expect(byForward as? SQLStore === byOwnType)
        #expect(view.resolve(Store.self) as? SQLStore === byOwnType)
        #expect(try await view.resolveAsync(Store.self) as? SQLStore === byOwnType)
        #expect(builds.count == 1)
    }

    @Test func aForwardedResolutionIsCountedOnceForTheForward() async throws {
        let container = Container(behaviors: [ForwardsStores()])
        container.registerAsync(SQLStore.self) { _ in SQLStore() }
        let view = container.synchronize()
        _ = try await view.resolveAsync(Store.self)  // builds
        _ = try await view.resolveAsync(Store.self)  // built
        let forward = try #require(container.registrations.first { $0.serviceType == Store.self })
        #expect(forward.isForwarded)
        #expect(forward.resolutionCount == 2)
        #expect(forward.instanceCount == 1)
    }

    @Test func aForwardToATypeTheInstanceIsNotFailsAsTheWrongType() async throws {
        let container = Container(behaviors: [ForwardsStores()])
        container.registerAsync(SQLStore.self) { _ in SQLStore() }
        let view = container.synchronize()
        let error = await #expect(throws: ResolutionError.self) {
            try await view.resolveAsync(Unrelated.self, name: "wrong")
        }
        guard case .wrongType = error?.reason else {
            Issue.record("expected .wrongType, got \(String(describing: error?.reason))")
            return
        }
        #expect(error?.message.contains("is not a Unrelated") == true, "\(error?.message ?? "")")
        // The registration itself is unharmed.
        #expect(try await view.resolveAsync(Store.self) is SQLStore)
    }
}
