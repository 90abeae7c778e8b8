// Graft — MIT License.

extension Container {
    /// Registers a service that must be made on the main actor (a view model, a UI service); the
    /// compiler checks the factory's isolation.
    ///
    /// ```swift
    /// container.register(Session.self) { _ in Session() }          // from nonisolated code, as usual
    /// container.registerMain(ProfileViewModel.self) { r in ProfileViewModel(session: r.resolve(Session.self)!) }
    /// let model = container.resolveMain(ProfileViewModel.self)     // on the main actor
    /// ```
    ///
    /// Registering needs no main actor. Resolve it with ``Resolver/resolveMain(_:name:)`` or
    /// `@MainInjected`, which the compiler lets you call only on the main actor. Reached through the
    /// plain `resolve` (from Swinject-style code, or as another factory's dependency) it works on
    /// the main actor (the main thread, or the main actor's executor on any thread); elsewhere the
    /// resolution fails with a message, and the factory never runs there. Scopes work as for any
    /// registration.
    @discardableResult
    public func registerMain<Service>(
        _ serviceType: Service.Type, name: String? = nil, factory: @escaping @MainActor (Resolver) -> Service
    ) -> ServiceEntry<Service> {
        onContainer(registering: "registerMain(\(Service.self).self)") { container in
            // One entry, of the main-actor kind: its general path checks the thread on every
            // resolution, a `.container` hit included (its slots keep no cell for the inlined hit),
            // before anything else; so a main-actor instance is never handed to another thread, and
            // its factory never runs there (the factory checks again, for any caller).
            return container.add(
                ServiceEntry<Service>(
                    serviceType: serviceType, name: name, container: container,
                    throwingFactory: { resolver, _ in
                        // The label is made only when it is thrown: describing a type is slow.
                        guard Platform.isOnMainActor() else {
                            throw RefusedResolution.offMainActor(serviceLabel(Service.self, name: name))
                        }
                        // Safe: checked just above that this code runs on the main actor (the main
                        // thread, the main actor's executor, or synchronously inside `resolveMain`),
                        // and `assumeIsolated` runs the closure synchronously on this thread: the two
                        // values cross into the closure and back on this one thread. (`assumeIsolated`
                        // requires a `Sendable` result, and the compiler cannot see that the resolver
                        // stays on this thread, hence the unchecked copies.)
                        nonisolated(unsafe) let onThisThread = resolver
                        nonisolated(unsafe) var made: Service?
                        MainActor.assumeIsolated { made = factory(onThisThread) }
                        return made!
                    }, kind: .mainActor))
        }
    }
}

/// Why a registration refused to be resolved before any factory of the application ran: a
/// main-actor service off the main actor (`.notOnMainActor`), or an async service not built yet
/// (a `factoryFailed` with this error). The resolution fails with this reason and message, not as
/// a factory that threw.
struct RefusedResolution: Error, CustomStringConvertible {
    let description: String
    let isOffMainActor: Bool
    var reason: ResolutionError.Reason { isOffMainActor ? .notOnMainActor : .factoryFailed(self) }

    /// A main-actor service, `service`, reached off the main actor.
    static func offMainActor(_ service: String) -> Self {
        Self(
            description: "\(service) is registered with registerMain and was resolved off the main actor, where its "
                + "factory may not run: resolve it with resolveMain (or @MainInjected) on the main actor.",
            isOffMainActor: true)
    }
}

extension Resolver {
    /// Resolves a service on the main actor: the way to reach a ``Container/registerMain(_:name:factory:)``
    /// registration, which the compiler allows only where the main actor is.
    ///
    /// ```swift
    /// @MainActor func showProfile() {
    ///     let model = resolver.resolveMain(ProfileViewModel.self)
    /// }
    /// ```
    @MainActor
    public func resolveMain<Service>(_ serviceType: Service.Type, name: String? = nil) -> Service? {
        let outer = Platform.enterMainActorCall()
        defer { Platform.leaveMainActorCall(outer) }
        return resolve(serviceType, name: name)
    }
}
