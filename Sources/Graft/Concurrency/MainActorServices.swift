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
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @MainActor (Resolver) -> Service
    ) -> ServiceEntry<Service> {
        if let viewed {
            return registerThroughView(viewed, "registerMain(\(Service.self).self)") {
                $0.registerMain(serviceType, name: name, factory: factory)
            }
        }
        // Two entries: the one returned holds the factory and the scope's instances, and is not in
        // the table; the one in the table is transient and checks the thread on every resolution,
        // a `.container` hit included, before reaching the first. So a main-actor instance is
        // never handed to another thread, and its factory never runs there.
        let label = serviceLabel(Service.self, name: name)
        let isolated = ServiceEntry<Service>(
            serviceType: serviceType, argumentsType: (any Resolver).self, argumentsKey: noArgumentsKey, name: name,
            container: self, argumentTypeNames: { [] }, plainFactory: nil, argumentFactory: nil,
            throwingFactory: { resolver, _ in
                guard Platform.isOnMainActor() else { throw MainActorServiceError(service: label) }
                // Safe: checked just above that this code runs on the main actor (the main thread,
                // the main actor's executor, or synchronously inside `resolveMain`), and
                // `assumeIsolated` runs the closure synchronously on this thread: the two values
                // cross into the closure and back on this one thread. (`assumeIsolated` requires
                // a `Sendable` result, and the compiler cannot see that the resolver stays on this
                // thread, hence the unchecked copies.)
                nonisolated(unsafe) let onThisThread = resolver
                nonisolated(unsafe) var made: Service?
                MainActor.assumeIsolated { made = factory(onThisThread) }
                return made!
            })
        installMainActorGate(for: isolated)
        return isolated
    }
}

extension Container {
    /// A gate in front of `entry`, if `entry` keeps the instances of a main-actor registration: the
    /// one in the table while the registration is current, else a new one, so a registration that
    /// was replaced (and that the application kept) still answers only through a thread check.
    func mainActorGate<Service>(of entry: ServiceEntry<Service>) -> ServiceEntry<Service>? {
        guard entry.extras?.isMainActorIsolated == true else { return nil }
        for container in selfAndAncestors {
            if let registration = container.mainActorRegistrations.first(where: { $0.isolated === entry }) {
                return registration.gate as? ServiceEntry<Service>
            }
        }
        return Self.makeMainActorGate(for: entry, in: entry.container ?? self)
    }

    /// A transient entry, in no table, that checks the thread and then resolves `isolated`; it
    /// copies itself (for `withOverrides`) as a gate over a copy of `isolated`, never as a factory
    /// that would reach `isolated`'s hierarchy from the copy.
    static func makeMainActorGate<Service>(
        for isolated: ServiceEntry<Service>, in container: Container
    ) -> ServiceEntry<Service> {
        let gate = ServiceEntry<Service>(
            serviceType: Service.self, argumentsType: (any Resolver).self, argumentsKey: noArgumentsKey,
            name: isolated.name, container: container, argumentTypeNames: { [] }, plainFactory: nil,
            argumentFactory: nil,
            throwingFactory: { [check = mainActorGateFactory(for: isolated)] resolver, _ in
                try check(resolver)
            })
        gate.inObjectScope(.transient)
        markAsGate(gate, of: isolated)
        return gate
    }

    /// What a gate runs: the thread check, then `isolated`'s own resolution.
    static func mainActorGateFactory<Service>(
        for isolated: ServiceEntry<Service>
    ) -> (Resolver) throws -> Service {
        let label = serviceLabel(Service.self, name: isolated.name)
        return { resolver in
            guard Platform.isOnMainActor() else { throw MainActorServiceError(service: label) }
            // `isolated` is resolved in its hierarchy, which is the resolver's (`forward` checks
            // it): through the resolver once its own container is gone, as a plain registration
            // forwarded in another container of the hierarchy answers.
            guard let container = isolated.container ?? resolver as? Container else {
                stop("Graft: \(label) was resolved through a resolver that is not a Container")  // Graft passes one
            }
            // The isolated entry's failure is the gate's: handed to it unlogged and thrown on, so
            // the resolution of the registration fails with that reason, logged once.
            let hierarchy = container.hierarchy
            let errors = hierarchy.errorCount
            let outer = hierarchy.beginCallHandingFailureToCaller()
            let instance = isolated.resolve(as: Service.self, in: container, resolver: resolver, arguments: nil)
            hierarchy.endCallHandingFailureToCaller(outer)
            guard let instance else { throw hierarchy.failure(since: errors) ?? MainActorServiceFailed() }
            return instance
        }
    }

    /// Marks `gate` as guarding `isolated` (reset and validation reach `isolated` through it), and
    /// makes it copy itself as a gate over the copy of `isolated` (one copy of `isolated` per new
    /// hierarchy, shared by all the gates copied into it).
    static func markAsGate<Service>(_ gate: ServiceEntry<Service>, of isolated: ServiceEntry<Service>) {
        gate.madeExtras.gatedEntry = isolated
        gate.madeExtras.scopeGoesTo = { isolated.inObjectScope($0) }
        gate.madeExtras.scopeReadFrom = { isolated.objectScope }
        gate.madeExtras.initCompletedGoesTo = { isolated.initCompleted($0) }
        gate.madeExtras.copyAsGate = { target, copies in
            let isolatedCopy: ServiceEntry<Service>
            if let copied = copies[ObjectIdentifier(isolated)] as? ServiceEntry<Service> {
                isolatedCopy = copied
            } else {
                isolatedCopy = isolated.copy(into: target) as! ServiceEntry<Service>
                isolatedCopy.madeExtras.isMainActorIsolated = true
                copies[ObjectIdentifier(isolated)] = isolatedCopy
            }
            return makeMainActorGate(for: isolatedCopy, in: target)
        }
    }

    /// Registers the transient entry that checks the thread, then resolves `isolated`. The gate is
    /// finished (transient, marked) before it enters the table, and the behaviors are told once the
    /// registration is recorded: one that copies the container (`withOverrides`) copies a gate.
    @discardableResult
    func installMainActorGate<Service>(for isolated: ServiceEntry<Service>) -> AnyServiceEntry {
        isolated.madeExtras.isMainActorIsolated = true
        let gate = Self.makeMainActorGate(for: isolated, in: self)
        insert(gate)
        // Registering the same key again replaces the registration, as `register` does: the old
        // one (and the instances it keeps) is released once this container is consistent.
        let replaced = mainActorRegistrations.firstIndex {
            $0.isolated.name == isolated.name && $0.serviceType == ObjectIdentifier(Service.self)
        }
        let registration = MainActorRegistration(
            serviceType: ObjectIdentifier(Service.self), gate: gate, isolated: isolated
        ) { target, copies in
            let isolatedCopy = isolated.copy(into: target) as! ServiceEntry<Service>
            copies[ObjectIdentifier(isolated)] = isolatedCopy
            return target.installMainActorGate(for: isolatedCopy)
        }
        let old = hierarchy.uncheckedSection { () -> MainActorRegistration? in
            guard let replaced else {
                mainActorRegistrations.append(registration)
                return nil
            }
            defer { mainActorRegistrations[replaced] = registration }
            return mainActorRegistrations[replaced]
        }
        // The behaviors are told about the registration `registerMain` returns, which keeps the
        // instances and takes settings; the gate's are fixed (transient, so it never keeps an
        // instance another thread could be handed). A forward of `isolated` reaches the gate.
        if !behaviors.isEmpty { tellBehaviors(about: isolated) }
        withExtendedLifetime(old) {}  // released once this container is consistent
        return gate
    }
}

/// A main-actor registration: the entry in the table (`gate`) and the one that keeps instances.
struct MainActorRegistration {
    /// The registered type; with `isolated.name`, the registration's key.
    let serviceType: ObjectIdentifier
    let gate: AnyServiceEntry
    let isolated: AnyServiceEntry
    /// Registers a copy in `target`, for `withOverrides`, and records the copy of `isolated` in
    /// the copies made so far; returns the copy's gate.
    let copy: (Container, inout [ObjectIdentifier: AnyServiceEntry]) -> AnyServiceEntry
}

/// The isolated entry's resolution returned `nil` with no failure recorded.
struct MainActorServiceFailed: Error {}

/// A main-actor service reached off the main thread.
struct MainActorServiceError: Error, CustomStringConvertible, GateRefusal {
    let service: String
    var description: String {
        "\(service) is registered with registerMain and was resolved off the main actor, where its factory "
            + "may not run: resolve it with resolveMain (or @MainInjected) on the main actor."
    }
    var reason: ResolutionError.Reason { .notOnMainActor }
}

/// An error a registration's gate throws (a main-actor service off the main actor, an async
/// service not built yet): no factory of the application ran, so the resolution fails with the
/// gate's own reason and message, not as a factory that threw.
protocol GateRefusal: Error, CustomStringConvertible {
    var reason: ResolutionError.Reason { get }
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
        Platform.onMainActorCall { resolve(serviceType, name: name) }
    }
}
