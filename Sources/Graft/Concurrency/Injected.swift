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
/// that cannot be resolved stops the program with the ``ResolutionError`` that says why.
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
    // `resolver` and `resolved` are read by the inlinable accessors in other modules, where each
    // access to a class's stored property would otherwise be checked dynamically for exclusivity
    // (half of a first access). Guarded by `hierarchy.mutex` (above); debug builds keep the
    // checks. Written only by `keep(_:failuresBefore:)`, which runs no user code inside a store.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        /// Held until the first resolution succeeds, then dropped: a singleton holding an
        /// `@Injected` would otherwise keep its own container alive (container, entry, singleton,
        /// box, resolver).
        @usableFromInline var resolver: SynchronizedResolver?
        /// The value once kept (also the `nil` of an optional service not registered). Boxed:
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
    ///
    /// User code run by the resolution (a factory, a `deinit` at its end) may read this property
    /// again on this thread (the mutex is recursive): that nested first access resolves and keeps
    /// a value of its own. So the box is looked at again once the resolution returns, and the value
    /// kept first is everyone's; the one made here is then released on return, outside any access
    /// to the box.
    @inlinable
    func value(wrapper: StaticString) -> Service {
        let failures = enterResolution(wrapper: wrapper)
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
            if let resolved { return resolved.value }
            // Allocated here, specialized (see the type's comment).
            keep(InjectedValue(made), failuresBefore: failures)
            return made
        } catch {
            if let resolved { return resolved.value }
            if let absent = absentAfterFailure(error) { return absent }
            failedFirstAccess(error, wrapper: wrapper, service: Service.self, resolver: resolver)
        }
    }

    /// For an optional service whose registered service failed: `nil`, not kept (the next access
    /// resolves again), and the failure logged, as `resolve` logs it. `nil` (stop) otherwise.
    @usableFromInline
    func absentAfterFailure(_ error: any Error) -> Service? {
        guard let error = error as? ResolutionError else { return nil }
        return hierarchy.absentAfterFailure(of: Service.self, error)
    }

    /// Takes the mutex for a first access; returns the failures recorded in the hierarchy so far.
    /// Stops if the property was made with no resolver bound: it could never resolve anything.
    @usableFromInline
    func enterResolution(wrapper: StaticString) -> Int {
        hierarchy.enterLocked()
        // The placeholder's hierarchy is its own (no container joins it), so its mark tells,
        // without retaining anything.
        if _slowPath(hierarchy.isUnboundPlaceholder) { stopUnbound(wrapper: wrapper) }
        return hierarchy.errorCount
    }

    /// Out of line, so the first access's fast path saves no registers for making the message.
    @inline(never)
    private func stopUnbound(wrapper: StaticString) -> Never {
        stopUnboundFirstAccess(wrapper: "\(wrapper)", service: serviceLabel(Service.self, name: name))
    }

    @usableFromInline
    func exitResolution() { hierarchy.exitLocked() }

    @usableFromInline
    func isOutsideResolutions() -> Bool { hierarchy.depth == 0 }

    /// Keeps `value` unless ``mayKeep(failuresBefore:in:isNone:)`` says not to, then lets the resolver
    /// go. Under the mutex, with nothing kept yet.
    ///
    /// Invariant (the fields are unchecked in release builds): no user code runs inside a store to
    /// them. The first store fills an empty field, so it releases nothing (checked in debug
    /// builds); the second empties `resolver`, whose value is moved out first and released after,
    /// through a call the optimizer cannot move the store past: that release may be the last
    /// reference to a view, its container and their instances, whose `deinit`s may read this box.
    ///
    /// Inlinable, so the new value's reference moves into the field (no retain, no release).
    @inlinable
    func keep(_ value: consuming InjectedValue<Service>, failuresBefore failures: Int) {
        guard mayKeep(value, failuresBefore: failures) else { return }
        assert(resolved == nil, "InjectedBox: a value is kept already; storing another would release it")
        resolved = consume value
        let dropped = resolver
        resolver = nil
        Self.release(dropped)
    }

    /// See ``mayKeep(failuresBefore:in:isNone:)``.
    @usableFromInline
    func mayKeep(_ value: InjectedValue<Service>, failuresBefore failures: Int) -> Bool {
        Graft.mayKeep(failuresBefore: failures, in: hierarchy, isNone: isNone(value.value))
    }

    @usableFromInline @inline(never)
    static func release(_ resolver: __owned SynchronizedResolver?) {
        withExtendedLifetime(resolver) {}
    }

    @usableFromInline
    func failedFirstAccess(
        _ error: any Error, wrapper: StaticString, service: Any.Type, resolver: SynchronizedResolver
    ) -> Never {
        let reason = (error as? ResolutionError)?.descriptionWithoutPrefix ?? "\(error)"
        stop("Graft: @\(wrapper) could not resolve \(serviceLabel(service, name: name)): \(reason)")
    }
}

/// The first access of an `@Injected` or `@MainInjected` property whose object was made where no
/// resolver is bound: it captured the empty placeholder, which can never resolve anything, so even
/// an optional service would be `nil` for good. That is a setup mistake, said once, with the fix.
func stopUnboundFirstAccess(wrapper: String, service: String) -> Never {
    stop(
        "Graft: @\(wrapper) \(service): the object holding it was made with no resolver bound, so it can never "
            + "resolve (an optional one would stay nil). " + ResolverBinding.howToBind)
}

extension InjectedBox: CustomReflectable {
    /// The name and, once resolved, the value (read under the mutex). Not the resolver nor the
    /// hierarchy: they reach containers that may be gone (a `dump` or a debugger must never load a
    /// dead one), and state other threads change.
    @usableFromInline
    var customMirror: Mirror {
        let value: Any = hierarchy.mutex.withLock { resolved.map { $0.value as Any } ?? "not resolved yet" }
        return Mirror(self, children: ["name": name as Any, "value": value], displayStyle: .class)
    }
}

/// Whether a first access may keep what it made: not what a validation made (it lives in the
/// validation's graph only), nor the `nil` of an optional service whose resolution failed (a
/// failure recorded in `hierarchy` since there were `failures`). So `nil` is kept only for a
/// service that is not registered, and a failure is tried again on the next access. Under the
/// hierarchy's mutex, or on the one thread a plain container is used from.
func mayKeep(failuresBefore failures: Int, in hierarchy: Hierarchy, isNone: @autoclosure () -> Bool) -> Bool {
    if hierarchy.isValidating { return false }
    return hierarchy.errorCount == failures || !isNone()  // the value is looked at only after a failure
}

/// Whether `value` is the `nil` of an optional type.
func isNone<Value>(_ value: Value) -> Bool {
    guard let optional = value as? any OptionalValue else { return false }
    return optional.wrappedAny == nil
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
