// Graft — MIT License.

/// A service resolved on first access, through the resolver that was ``SynchronizedResolver/current``
/// when the object holding it was made, then kept.
///
/// ```swift
/// final class CheckoutModel {
///     @Injected var api: API                 // resolved on first use
///     @Injected var analytics: Analytics?    // nil when Analytics is not registered
/// }
/// let model = withOverrides({ $0.register(API.self) { _ in MockAPI() } }) { CheckoutModel() }
/// model.api   // MockAPI: the model keeps the resolver it was made with
/// ```
///
/// Capturing at initialisation (as swift-dependencies does) means an object made inside
/// ``withResolver(_:operation:)-(_,()->R)`` or ``withOverrides(_:operation:)-(_,()->R)`` keeps
/// using that resolver after the scope ends. The first access from many threads at once resolves
/// once. A non-optional service that cannot be resolved stops the program with the
/// ``ResolutionError`` that says why. `Sendable` when `Service` is; stored in a `var`, as every
/// property wrapper is, so it can be a property of a `Sendable` struct, an actor or a `@MainActor`
/// class, but not of a class declared `Sendable` (the compiler refuses its mutable storage).
@propertyWrapper
public struct Injected<Service> {
    @usableFromInline let box: InjectedBox<Service>

    /// Captures ``SynchronizedResolver/current``; resolves the unnamed registration on first access.
    @inlinable
    public init() {
        self.init(name: nil)
    }

    /// Captures ``SynchronizedResolver/current``; resolves the registration under `name` on first
    /// access. (Inlinable: the box is made with the caller's metadata, not looked up at run time.)
    @inlinable
    public init(name: String?) {
        box = InjectedBox(resolver: SynchronizedResolver.current, name: name)
    }

    /// The service: resolved on first access, then the same value.
    @inlinable
    public var wrappedValue: Service {
        // Inlinable, so the cached value is read specialized: in unspecialized code, copying a
        // `Service?` costs a runtime metadata lookup on every access.
        if let value = box.cachedValue() { return value }
        return box.value(wrapper: "Injected")
    }
}

extension Injected: Sendable where Service: Sendable {}

/// The captured resolver and the value once resolved, shared by copies of the wrapper.
///
/// Its reads and the first resolution are inlinable, so they run specialized in the caller: in
/// unspecialized code every `Service?` and `Result` would cost a runtime metadata lookup (they were
/// a third of a first access). The state stays internal behind `@usableFromInline` members.
@usableFromInline
final class InjectedBox<Service>: @unchecked Sendable {
    // `resolver` and `resolved` are only touched under `hierarchy.mutex`: the resolver's own
    // mutex, not one of the box's, so a first access made by a factory (already holding it)
    // cannot deadlock against another thread's first access.
    @usableFromInline let hierarchy: Hierarchy
    // `resolver` and `resolved` are read and written by the inlinable accessors in other modules,
    // where each access to a class's stored property would otherwise be checked dynamically for
    // exclusivity (half of a first access). Guarded by `hierarchy.mutex` (above); debug builds
    // keep the checks.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        /// Held until the first resolution succeeds, then dropped: a singleton holding an
        /// `@Injected` would otherwise keep its own container alive (container, entry, singleton,
        /// box, resolver).
        @usableFromInline var resolver: SynchronizedResolver?
        /// The value once resolved (set even for an optional service whose value is `nil`). Boxed:
        /// destroying a `Service?` field in the box's unspecialized `deinit` looked up the
        /// metadata of `Optional<Service>` for every box released (a fifth of a first access); an
        /// optional class reference is released with no metadata.
        @usableFromInline var resolved: InjectedValue<Service>?
    #else
        @exclusivity(unchecked) @usableFromInline var resolver: SynchronizedResolver?
        @exclusivity(unchecked) @usableFromInline var resolved: InjectedValue<Service>?
    #endif
    @usableFromInline let name: String?

    /// Inlinable, so the box is allocated where `@Injected` is, with that module's cached
    /// metadata for `InjectedBox<Service>` (not a runtime lookup per object made).
    @inlinable
    init(resolver: SynchronizedResolver, name: String?) {
        self.hierarchy = resolver.hierarchy
        self.resolver = resolver
        self.name = name
    }

    /// The value if resolved; reads it under the mutex. Inlined into the wrapper's getter.
    @inlinable
    func cachedValue() -> Service? {
        lockForRead()
        defer { unlockForRead() }
        return resolved?.value
    }

    @usableFromInline
    func lockForRead() { hierarchy.mutex.lock() }

    @usableFromInline
    func unlockForRead() { hierarchy.mutex.unlock() }

    /// The first access (or one that raced it): resolves under the mutex, and keeps the value.
    @inlinable
    func value(wrapper: StaticString) -> Service {
        enterResolution()
        defer { exitResolution() }
        if let resolved { return resolved.value }
        let resolver = self.resolver!  // set until a value is kept, which was checked just above
        do {
            // Outside any resolution a resolution is a request of its own already; inside one (a
            // factory reading the property), a graph of its own makes it one, so a failure of the
            // enclosing request cannot roll back what this keeps.
            let made =
                isOutsideResolutions()
                ? try resolver.require(Service.self, name: name)
                : try resolver.withObjectGraph(GraphIdentifier()) { try $0.require(Service.self, name: name) }
            // Kept unless a validation made it (it lives in the validation's graph only).
            if !isValidating() {
                resolved = InjectedValue(made)
                self.resolver = nil
            }
            return made
        } catch {
            failedFirstAccess(error, wrapper: wrapper, service: Service.self, resolver: resolver)
        }
    }

    @usableFromInline
    func enterResolution() { hierarchy.enterLocked() }

    @usableFromInline
    func exitResolution() { hierarchy.exitLocked() }

    @usableFromInline
    func isOutsideResolutions() -> Bool { hierarchy.depth == 0 }

    @usableFromInline
    func isValidating() -> Bool { hierarchy.isValidating }

    @usableFromInline
    func failedFirstAccess(
        _ error: any Error, wrapper: StaticString, service: Any.Type, resolver: SynchronizedResolver
    ) -> Never {
        let hint = resolver.isUnboundPlaceholder ? "\n" + ResolverBinding.howToBind : ""
        stop(
            "Graft: @\(wrapper) could not resolve \(serviceLabel(service, name: name)): \(error)\(hint)")
    }
}

/// Resolves as a request of its own (in a graph of its own), as a `Lazy` does: a first access made
/// inside a factory whose request later fails must not keep what that request rolls back.
func resolveInItsOwnRequest<Service>(
    _ serviceType: Service.Type,
    name: String?,
    through resolver: SynchronizedResolver
) -> Result<Service, ResolutionError> {
    let resolve = { (view: Container) in
        Result { () throws(ResolutionError) -> Service in try view.require(serviceType, name: name) }
    }
    // Outside any resolution a resolution is a request of its own already; inside one (a factory
    // reading the property), a graph of its own makes it one.
    if resolver.hierarchy.locked({ resolver.hierarchy.depth == 0 }) { return resolve(resolver) }
    return resolver.withObjectGraph(GraphIdentifier(), closure: resolve)
}

/// An `@Injected` property's value once resolved.
@usableFromInline
final class InjectedValue<Service>: @unchecked Sendable {  // immutable; `Service` crosses as `Injected` allows
    @usableFromInline let value: Service

    @inlinable
    init(_ value: Service) { self.value = value }
}
