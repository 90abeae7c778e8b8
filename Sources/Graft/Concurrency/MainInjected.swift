// Graft — MIT License.

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
    private let access: FirstAccess<Service>

    /// Captures ``SynchronizedResolver/current``; resolves the unnamed registration on first access.
    public init() { self.init(name: nil) }

    /// Captures ``SynchronizedResolver/current``; resolves the registration under `name` on first access.
    public init(name: String?) {
        let resolver = SynchronizedResolver.current
        access = FirstAccess(in: resolver.hierarchy, capturing: resolver, name: name)
    }

    /// The service: resolved on first access (on the main actor), then the same value.
    public var wrappedValue: Service { access.value(MainInjectedPolicy()) }
}

/// `@MainInjected`'s first access: as `@Injected`'s, on the main actor, inside a main-actor call
/// (where a ``Container/registerMain(_:name:factory:)`` registration answers, as in `resolveMain`).
struct MainInjectedPolicy<Service>: FirstAccessPolicy {
    static var wrapperName: StaticString { "MainInjected" }

    var isolation: FirstAccessIsolation { .mainActor }

    func resolve(
        through resolver: SynchronizedResolver?, for access: FirstAccess<Service>
    ) throws(ResolutionError) -> Service {
        // Set until a value is kept, which the component checked just before, unless the wrapper
        // holds a link instead.
        let resolver = resolver ?? access.resolverThroughLink(wrapper: Self.wrapperName)
        let outer = Platform.enterMainActorCall()
        defer { Platform.leaveMainActorCall(outer) }
        return try access.resolveInItsOwnRequest(through: resolver)
    }
}
