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
