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
        onContainer(registering: "registerMain(\(Service.self).self)") {
            $0.addMainActorEntry(serviceType, name: name, factory: factory)
        }
    }

    /// `registerMain` on the container that holds the registrations.
    private func addMainActorEntry<Service>(
        _ serviceType: Service.Type,
        name: String?,
        factory: @escaping @MainActor (Resolver) -> Service
    ) -> ServiceEntry<Service> {
        // One entry, of the main-actor kind: its general path checks the thread on every
        // resolution, a `.container` hit included (its slots keep no cell for the inlined hit),
        // before anything else; so a main-actor instance is never handed to another thread, and
        // its factory never runs there (the factory checks again, for any caller).
        let label = serviceLabel(Service.self, name: name)
        return add(
            ServiceEntry<Service>(
                serviceType: serviceType, argumentsType: (any Resolver).self, argumentsKey: noArgumentsKey,
                name: name, container: self, argumentTypeNames: { [] }, plainFactory: nil, argumentFactory: nil,
                throwingFactory: { resolver, _ in
                    guard Platform.isOnMainActor() else { throw MainActorServiceError(service: label) }
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
                },
                kind: .mainActor))
    }
}

/// A main-actor service reached off the main thread.
struct MainActorServiceError: Error, CustomStringConvertible, RefusedResolution {
    let service: String
    var description: String {
        "\(service) is registered with registerMain and was resolved off the main actor, where its factory "
            + "may not run: resolve it with resolveMain (or @MainInjected) on the main actor."
    }
    var reason: ResolutionError.Reason { .notOnMainActor }
}

/// Why a registration refused to be resolved before any factory of the application ran (a
/// main-actor service off the main actor, an async service not built yet): the resolution fails
/// with this reason and message, not as a factory that threw.
protocol RefusedResolution: Error, CustomStringConvertible {
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

/// A main-actor service resolved on first access, through the resolver that was
/// ``SynchronizedResolver/current`` when the object holding it was made (as ``Injected`` does).
///
/// ```swift
/// @MainActor final class ProfileScreen {
///     @MainInjected var model: ProfileViewModel
/// }
/// ```
@MainActor
@propertyWrapper
public struct MainInjected<Service> {
    private let box: MainInjectedBox<Service>

    /// Captures ``SynchronizedResolver/current``; resolves the unnamed registration on first access.
    public init() {
        self.init(name: nil)
    }

    /// Captures ``SynchronizedResolver/current``; resolves the registration under `name` on first access.
    public init(name: String?) {
        box = MainInjectedBox(resolver: SynchronizedResolver.current, name: name)
    }

    /// The service: resolved on first access (on the main actor), then the same value.
    public var wrappedValue: Service {
        box.value()
    }
}

/// The captured resolver and the value once resolved; main-actor isolated, like its wrapper. Keeps
/// values as ``InjectedBox`` does: a re-entered first access hands out the value kept first, and
/// the `nil` of an optional service is kept only when nothing is registered.
@MainActor
final class MainInjectedBox<Service> {
    /// Held until the first resolution succeeds, then dropped (see ``InjectedBox``).
    private var resolver: SynchronizedResolver?
    let name: String?
    private var resolved: Service?
    private var isResolved = false

    init(resolver: SynchronizedResolver, name: String?) {
        self.resolver = resolver
        self.name = name
    }

    func value() -> Service {
        if isResolved { return resolved! }
        let resolver = self.resolver!
        if resolver.isUnboundPlaceholder {
            stopUnboundFirstAccess(wrapper: "MainInjected", service: serviceLabel(Service.self, name: name))
        }
        let hierarchy = resolver.hierarchy
        let failures = hierarchy.locked { hierarchy.errorCount }
        let outcome = Platform.onMainActorCall { resolveInItsOwnRequest(Service.self, name: name, through: resolver) }
        // User code run by that resolution (a factory, a `deinit` at its end) may have read this
        // property and kept a value: that first one is everyone's, and `outcome` is released on
        // return.
        if isResolved { return resolved! }
        switch outcome {
        case .success(let made):
            if hierarchy.locked({ mayKeep(failuresBefore: failures, in: hierarchy, isNone: isNone(made)) }) {
                resolved = made  // into an empty field: releases nothing
                isResolved = true
                // Released after the store: the last reference to a view may go with it, and the
                // `deinit`s of its container's instances may read this box.
                let dropped = self.resolver
                self.resolver = nil
                withExtendedLifetime(dropped) {}
            }
            return made
        case .failure(let error):
            // An optional service whose registered service failed: `nil`, logged, not kept.
            if let absent = hierarchy.absentAfterFailure(of: Service.self, error) { return absent }
            stop(
                "Graft: @MainInjected could not resolve \(serviceLabel(Service.self, name: name)): "
                    + error.descriptionWithoutPrefix)
        }
    }
}

extension MainInjectedBox: CustomReflectable {
    /// The name and, read on the main actor once resolved, the value. Not the resolver: it reaches
    /// containers that may be gone, and a `dump` or a debugger must never load a dead one.
    nonisolated var customMirror: Mirror {
        nonisolated(unsafe) var value: Any = "read on the main actor"
        if Platform.isOnMainActor() {
            // Safe: on the main actor (checked just above), and `assumeIsolated` runs the closure
            // synchronously on this thread (the unchecked copy crosses into it and back here).
            MainActor.assumeIsolated { value = isResolved ? resolved as Any : "not resolved yet" }
        }
        return Mirror(self, children: ["name": name as Any, "value": value], displayStyle: .class)
    }
}
