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
/// ``ResolutionError`` that says why. `Sendable` when `Service` is, so it can be used in a
/// `Sendable` type or an actor.
@propertyWrapper
public struct Injected<Service> {
    private let box: InjectedBox<Service>

    /// Captures ``SynchronizedResolver/current``; resolves the unnamed registration on first access.
    public init() {
        self.init(name: nil)
    }

    /// Captures ``SynchronizedResolver/current``; resolves the registration under `name` on first
    /// access.
    public init(name: String?) {
        box = InjectedBox(resolver: SynchronizedResolver.current, name: name)
    }

    /// The service: resolved on first access, then the same value.
    public var wrappedValue: Service {
        box.value(wrapper: "Injected")
    }
}

extension Injected: Sendable where Service: Sendable {}

/// The captured resolver and the value once resolved, shared by copies of the wrapper.
final class InjectedBox<Service>: @unchecked Sendable {
    // `value` is only touched under the resolver's hierarchy mutex. That mutex, not one of the
    // box's own, so a first access made by a factory (already holding it) cannot deadlock
    // against another thread's first access.
    let resolver: SynchronizedResolver
    let name: String?
    private var resolved: Service?
    private var isResolved = false

    init(resolver: SynchronizedResolver, name: String?) {
        self.resolver = resolver
        self.name = name
    }

    func value(wrapper: String) -> Service {
        resolver.hierarchy.locked {
            if isResolved { return resolved! }
            do {
                let made = try resolver.require(Service.self, name: name)
                resolved = made
                isResolved = true
                return made
            } catch {
                let hint = resolver.isUnboundPlaceholder ? "\n" + ResolverBinding.howToBind : ""
                preconditionFailure(
                    "Graft: @\(wrapper) could not resolve \(serviceLabel(Service.self, name: name)): \(error)\(hint)")
            }
        }
    }
}
