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
/// once, and so does one that user code re-enters (a `deinit` run at the end of the first
/// resolution that reads the property): everyone gets the value kept first. A non-optional service
/// that cannot be resolved stops the program with the ``ResolutionError`` that says why. Made while
/// a container makes an instance it keeps (a `.container` singleton), it holds a link to the
/// captured resolver's container instead, so the singleton does not keep its container alive.
///
/// An optional service is `nil` when nothing is registered for it, and that `nil` is kept like any
/// value. But an object made where no resolver is bound (before
/// ``SynchronizedResolver/bootstrap(_:)``, outside ``withResolver(_:operation:)-(_,()->R)``)
/// captured an empty placeholder that can never resolve anything: its first access stops the
/// program with a message saying how to bind one, optional service or not. A failure is not kept: when the service is registered but cannot be resolved (its
/// factory threw, an async service not built yet, a main-actor service read off the main actor),
/// that access is `nil` (the failure is logged) and the next one resolves again, as `resolveAsync` builds again after a
/// failed build. `Sendable` when `Service` is; stored in a `var`, as every property wrapper is, so
/// it can be a property of a `Sendable` struct, an actor or a `@MainActor` class, but not of a
/// class declared `Sendable` (the compiler refuses its mutable storage).
@propertyWrapper
public struct Injected<Service> {
    @usableFromInline let access: FirstAccess<Service>

    /// Captures ``SynchronizedResolver/current``; resolves the unnamed registration on first access.
    @inlinable
    public init() { self.init(name: nil) }

    /// Captures ``SynchronizedResolver/current``; resolves the registration under `name` on first
    /// access. (Inlinable: the component is made with the caller's metadata, not looked up at run time.)
    @inlinable
    public init(name: String?) {
        let resolver = SynchronizedResolver.current
        access = FirstAccess(in: resolver.hierarchy, capturing: resolver, name: name)
    }

    /// The service: resolved on first access, then the same value.
    // Inlinable, so the kept value is read specialized: in unspecialized code, copying a
    // `Service?` costs a runtime metadata lookup on every access.
    @inlinable
    public var wrappedValue: Service { access.value(InjectedPolicy()) }
}

// Copies share one component, whose fields are touched only under the captured resolver's mutex
// (``InjectedPolicy``'s isolation is `anyThread`).
extension Injected: @unchecked Sendable where Service: Sendable {}

/// `@Injected`'s first access: through the resolver captured when the object was made, on any
/// thread, under that resolver's mutex (not a lock of the component's own: a first access made by a
/// factory already holds it, and a second lock would have to be ordered against it).
@usableFromInline
struct InjectedPolicy<Service>: FirstAccessPolicy {
    @inlinable
    init() {}

    @inlinable
    static var wrapperName: StaticString { "Injected" }

    @inlinable
    var isolation: FirstAccessIsolation { .anyThread }

    /// Always inlined, as the resolution it runs is: left to the optimizer, the two stay calls of
    /// their own, which cost a first access more than their bodies.
    @inlinable @inline(__always)
    func resolve(
        through resolver: SynchronizedResolver?, for access: FirstAccess<Service>
    ) throws(ResolutionError) -> Service {
        // Set until a value is kept, which the component checked just before, unless the wrapper
        // holds a link instead.
        if _slowPath(resolver == nil) { return try access.resolveThroughLink(wrapper: Self.wrapperName) }
        return try access.resolveInItsOwnRequest(through: resolver!)
    }
}
