// Graft — MIT License.

/// A service resolved on first access, then the value kept: the one component behind `Lazy`,
/// `Provider`, `@Injected` and `@MainInjected`. What sets them apart (how the service is resolved,
/// what guards the fields, whether a value is kept, how messages name the wrapper) is the
/// ``FirstAccessPolicy`` each access passes. The rules are written here, once:
///
/// - **One instance for everyone, the first kept.** User code run by the resolution (a factory, an
///   `initCompleted` action, a `deinit` at its end) may read the same wrapper again on this thread;
///   that nested access resolves and keeps a value of its own. So the kept value is read again once
///   the resolution returns: if there is one, it is everyone's, and the value made here is released
///   on return, outside any access to the fields. A nested access that needs the value while it is
///   being made (the service's own factory) is a cycle, and fails as one.
/// - **A failure is not kept.** For an optional service whose registered service failed, the access
///   is `nil`, logged as `resolve` logs it, and the next access resolves again; any other failure
///   stops the program with the policy's message. A value is kept only as
///   ``keeping(_:since:)`` allows.
/// - **The captured resolver goes once a value is kept**: a singleton holding an `@Injected` would
///   otherwise keep its own container alive (container, entry, singleton, component, resolver).
/// - **The unbound placeholder stops.** A wrapper made where no resolver was bound captured a
///   placeholder that can never resolve anything: its first access says how to bind one.
///
/// The accessors are inlinable over `@usableFromInline` internals, so `@Injected` runs them
/// specialized in the caller, and allocates the component with the caller's cached metadata:
/// unspecialized, every `Optional<Service>` and `FirstAccess<Service>` would be a runtime metadata
/// lookup, a large share of a first access.
@usableFromInline
final class FirstAccess<Service> {
    /// Whose mutex guards the first access, and whose failures are counted.
    @usableFromInline let hierarchy: SharedState
    // `resolver`, `kept` and `mainActorKept` are guarded as the policy's ``FirstAccessIsolation``
    // says. They are read by inlinable code in other modules, where each access to a class's
    // stored property would otherwise be checked dynamically for exclusivity (a large share of a
    // first access); debug builds keep the checks. Written only by `keep(_:since:)` and
    // `valueKeptMeanwhile(since:after:)`, which run no user code inside a store. Fields of their own
    // rather than one struct: grouped, an `@Injected` object made and read once costs more.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        /// The resolver `@Injected` or `@MainInjected` captured, held until a value is kept; `nil`
        /// for `Lazy` and `Provider`, which reach their container through a link that does not
        /// keep it alive.
        @usableFromInline var resolver: SynchronizedResolver?
        /// The value once kept (also the `nil` of an optional service not registered).
        @usableFromInline var kept: KeptValue<Service>?
        /// The value once kept, when its registration is a main-actor one: handed out on the main
        /// actor only, so never read by the path that takes no check.
        @usableFromInline var mainActorKept: KeptValue<Service>?
    #else
        @exclusivity(unchecked) @usableFromInline var resolver: SynchronizedResolver?
        @exclusivity(unchecked) @usableFromInline var kept: KeptValue<Service>?
        @exclusivity(unchecked) @usableFromInline var mainActorKept: KeptValue<Service>?
    #endif
    /// The registration name asked for.
    @usableFromInline let name: String?
    /// For a wrapper made while a container makes an instance it keeps, what it holds instead of
    /// the resolver (``SynchronizedResolver/wrapperLinks``): container, entry, singleton,
    /// wrapper, resolver would be a cycle, read or not.
    @usableFromInline private(set) var links: WrapperLinks?

    /// Inlinable, so `@Injected` allocates the component with its module's cached metadata for
    /// `FirstAccess<Service>` (not a runtime lookup per object made).
    @inlinable
    init(in hierarchy: SharedState, capturing resolver: SynchronizedResolver?, name: String?) {
        self.hierarchy = hierarchy
        self.name = name
        self.resolver = resolver
        if _slowPath(resolver?.wrapperLinks != nil) { holdLinksInsteadOfResolver() }
    }

    /// The value: the one kept, or a resolution now. The kept value is read under the mutex unless
    /// the policy's isolation allows otherwise; a first access found there goes on holding it.
    @inlinable
    func value<Policy: FirstAccessPolicy>(_ policy: Policy) -> Service where Policy.Service == Service {
        guard policy.isolation == .anyThread else { return kept?.value ?? firstAccess(policy) }
        let mutex = hierarchy.mutex
        mutex.lock()
        if let value = kept?.value {
            mutex.unlock()
            return value
        }
        return firstAccess(policy)
    }

    /// A first access (or one that raced another thread's): resolves, then keeps as the rules say.
    @inlinable
    func firstAccess<Policy: FirstAccessPolicy>(_ policy: Policy) -> Service where Policy.Service == Service {
        // Entered and exited apart: only some isolations lock, and entering records what it found.
        // Any thread's access holds the mutex already: ``value(_:)`` took it to look for a kept value.
        let locks = policy.isolation != .oneThread
        let holdingMutex = policy.isolation == .anyThread
        let start =
            locks
            ? enterLocked(wrapper: Policy.wrapperName, holdingMutex: holdingMutex) : enter(wrapper: Policy.wrapperName)
        defer { if locks { hierarchy.exitLocked() } }
        if let kept { return kept.value }  // kept by another thread meanwhile
        // A main-actor value, on the main actor; elsewhere, resolved again, and refused as the
        // first access off the main actor is, whoever read it first.
        if let held = mainActorKept { return mainActorValue(held, policy) }
        // Held here: a nested access that keeps a value lets the field go.
        let resolver = self.resolver
        do throws(ResolutionError) {
            let made = try policy.resolve(through: resolver, for: self)
            // User code run by that resolution (a factory, a `deinit` at its end) may have read this
            // wrapper and kept a value: that first one is everyone's, and `made` is released on return.
            if kept != nil || mainActorKept != nil { return valueKeptMeanwhile(since: start) }
            // Allocated here, specialized (see the type's comment).
            if Policy.keeps { keep(KeptValue(made), since: start) }
            return made
        } catch {
            if kept != nil || mainActorKept != nil { return valueKeptMeanwhile(since: start, after: error) }
            return valueAfterFailure(error, policy)  // not kept: the next access tries again
        }
    }

    /// Resolves through `resolver` as a request of its own: outside any resolution a resolution is
    /// one already; inside one (a factory reading the property), a graph of its own makes it one, so
    /// a failure of the enclosing request cannot roll back what this keeps. (Always inlined: a
    /// call of its own costs a first access more than its body.)
    @inlinable @inline(__always)
    func resolveInItsOwnRequest(through resolver: SynchronizedResolver) throws(ResolutionError) -> Service {
        if hierarchy.resolution.depth == 0 { return try resolver.require(Service.self, name: name) }
        return try resolver.withObjectGraph(GraphIdentifier()) { view in
            Result { () throws(ResolutionError) -> Service in try view.require(Service.self, name: name) }
        }.get()
    }

    /// Keeps `value` unless ``keeping(_:since:)`` says not to, then lets the
    /// resolver go. Under the policy's isolation, with nothing kept yet.
    ///
    /// Invariant (the fields are unchecked in release builds): no user code runs inside a store to
    /// them. The first store fills an empty field, so it releases nothing (checked in debug
    /// builds); the second empties `resolver`, whose value is moved out first and released after,
    /// through a call the optimizer cannot move the store past: that release may be the last
    /// reference to a view, its container and their instances, whose `deinit`s may read this
    /// component.
    ///
    /// Inlinable, so the new value's reference moves into the field (no retain, no release).
    @inlinable
    func keep(_ value: consuming KeptValue<Service>, since start: AccessStart) {
        switch keeping(value, since: start) {
        case .nothing: return
        case .forAnyThread:
            assert(kept == nil, "FirstAccess: a value is kept already; storing another would release it")
            kept = consume value
        case .forTheMainActor:
            assert(mainActorKept == nil, "FirstAccess: a value is kept already; storing another would release it")
            mainActorKept = consume value
        }
        let dropped = resolver
        resolver = nil
        Self.release(dropped)
    }

    /// See ``links``; from the initializer only, before the component is shared.
    @usableFromInline
    func holdLinksInsteadOfResolver() {
        links = resolver?.wrapperLinks
        resolver = nil
    }

    /// The resolver of a wrapper that holds links (see ``links``): a view of the first container
    /// alive among those it links to, made for this access; a stop once all are gone, as a `Lazy`'s
    /// first access after its container is gone stops. Under the hierarchy's mutex.
    @usableFromInline @inline(never)
    func resolverThroughLink(wrapper: StaticString) -> SynchronizedResolver {
        if let view = links?.view() { return view }
        stop(
            "Graft: @\(wrapper) \(serviceLabel(Service.self, name: name)) was made while a container made an "
                + "instance it keeps, and that container, the resolver's it was made with and their ancestors are "
                + "all gone: such a wrapper keeps none of them alive. Read it while one lives (in initCompleted, "
                + "say), or keep the container.")
    }

    /// ``resolveInItsOwnRequest(through:)`` through ``resolverThroughLink(wrapper:)``, out of line.
    @usableFromInline @inline(never)
    func resolveThroughLink(wrapper: StaticString) throws(ResolutionError) -> Service {
        try resolveInItsOwnRequest(through: resolverThroughLink(wrapper: wrapper))
    }

    /// Takes the mutex for a first access, unless this thread holds it for one already; returns
    /// what the hierarchy had recorded then. Stops if the wrapper captured the unbound
    /// placeholder: it could never resolve anything.
    @usableFromInline
    func enterLocked(wrapper: StaticString, holdingMutex: Bool) -> AccessStart {
        if holdingMutex { hierarchy.enterLockedCall() } else { hierarchy.enterLocked() }
        return enter(wrapper: wrapper)
    }

    /// ``enterLocked(wrapper:)`` without the mutex, for a plain container's one thread.
    @usableFromInline
    func enter(wrapper: StaticString) -> AccessStart {
        // One byte for the check: the placeholder's hierarchy (its own: no container joins it)
        // sets it, as main-actor registrations do.
        if _slowPath(hierarchy.diagnostics.entriesNeedChecks) { return enterWithChecks(wrapper: wrapper) }
        // No main-actor registration has resolved in a hierarchy that has none: the count is 0.
        return AccessStart(failures: hierarchy.resolution.errorCount)
    }

    /// ``enter(wrapper:)`` in a hierarchy that validates, has main-actor registrations, or is the
    /// unbound placeholder's. Out of line, so the first access's fast path saves no registers for
    /// making the placeholder's message.
    ///
    /// A wrapper that captured the empty placeholder can never resolve anything, so even an optional
    /// service would be `nil` for good. That is a setup mistake, said once, with the fix.
    @inline(never)
    private func enterWithChecks(wrapper: StaticString) -> AccessStart {
        if hierarchy.isUnboundPlaceholder {
            stop(
                "Graft: @\(wrapper) \(serviceLabel(Service.self, name: name)): the object holding it was made with no "
                    + "resolver bound, so it can never resolve (an optional one would stay nil). "
                    + ResolverBinding.howToBind)
        }
        return AccessStart(recordedIn: hierarchy)
    }

    /// A main-actor value kept: on the main actor, the value (noted as a main-actor resolution, as
    /// resolving it would be); off it, refused as its first access
    /// there is (the resolver that access used may be gone), `nil` and logged for an optional service.
    @usableFromInline @inline(never)
    func mainActorValue<Policy: FirstAccessPolicy>(_ held: KeptValue<Service>, _ policy: Policy) -> Service
    where Policy.Service == Service {
        if Platform.isOnMainActor() {
            // What a request reading it makes holds a main-actor value: kept for the main actor too.
            hierarchy.resolution.noteMainActorResult()
            return held.value
        }
        let label = serviceLabel((Service.self as? any OptionalValue.Type)?.wrappedType ?? Service.self, name: name)
        let refusal = RefusedResolution.offMainActor(label)
        let error = ResolutionError(refusal.reason, path: [label], message: refusal.description)
        return valueAfterFailure(error, policy)
    }

    /// What a first access may keep of what it made: nothing of what a validation made (it lives in
    /// the validation's graph only), nor the `nil` of an optional service whose resolution failed (a
    /// failure recorded in the hierarchy since `start`). So `nil` is kept only for a service that is
    /// not registered, and a failure is tried again on the next access. A value whose request
    /// resolved a main-actor registration (itself, or one its factories asked for) is kept for the
    /// main actor only. Under the hierarchy's mutex, or on the one thread a plain container is used
    /// from.
    ///
    /// A value kept inside a factory (a `Lazy` read there) is handed out for good, so what the requests
    /// in flight made up to now is final: the value may be an instance one of them kept (a singleton
    /// it found made) or hold one, and a later failure of those requests must not take it back.
    @usableFromInline
    func keeping(_ value: KeptValue<Service>, since start: AccessStart) -> Keeping {
        if _slowPath(hierarchy.diagnostics.entriesNeedChecks) {
            return keepingWithChecks(since: start, in: hierarchy, isNone: isNone(value.value))
        }
        // The value is looked at only after a failure.
        guard start.word == hierarchy.resolution.errorCount || !isNone(value.value) else { return .nothing }
        hierarchy.resolution.fixWhatRequestsMade()
        return .forAnyThread
    }

    /// The value a nested access kept while this access, begun at `start`, resolved (and failed
    /// with `failure`, logged as `resolve` logs it, if it did). It is everyone's; but if this
    /// access's request resolved a main-actor registration, which the nested request need not have
    /// met (it may have found an instance kept), a value kept for any thread is handed to the main
    /// actor only, as this access would have kept it. (One kept for the main actor was kept on this
    /// thread: the main actor.) Moving it releases nothing, so no user code runs inside the stores
    /// (the invariant of ``keep(_:since:)``).
    @usableFromInline @inline(never)
    func valueKeptMeanwhile(since start: AccessStart, after failure: ResolutionError? = nil) -> Service {
        if let failure { hierarchy.logFailureAnswered(failure) }
        if kept != nil, hierarchy.diagnostics.entriesNeedChecks, start.mainActorResolved(in: hierarchy) {
            assert(mainActorKept == nil, "FirstAccess: a value is kept already; storing another would release it")
            mainActorKept = kept
            kept = nil
        }
        return (kept ?? mainActorKept).unsafelyUnwrapped.value
    }

    @usableFromInline @inline(never)
    static func release(_ resolver: __owned SynchronizedResolver?) {
        withExtendedLifetime(resolver) {}
    }

    /// An access that failed with `error`: for an optional service whose registered service failed,
    /// `nil`, and the failure logged, as `resolve` logs it; any other failure stops with the
    /// policy's message.
    @usableFromInline
    func valueAfterFailure<Policy: FirstAccessPolicy>(_ error: ResolutionError, _ policy: Policy) -> Service {
        if let absent = hierarchy.absentAfterFailure(of: Service.self, error) { return absent }
        stop("Graft: \(policy.failedAccess(name: name)): \(error.descriptionWithoutPrefix)")
    }

}

extension FirstAccess: CustomReflectable {
    /// The name and, once kept, the value (read under the mutex, which every store to it holds).
    /// Not the resolver nor the hierarchy: they reach containers that may be gone (a `dump` or a
    /// debugger must never load a dead one), and state other threads change.
    @usableFromInline
    var customMirror: Mirror {
        let value: Any = hierarchy.mutex.withLock {
            (kept ?? mainActorKept).map { $0.value as Any } ?? "nothing kept"
        }
        return Mirror(self, children: ["name": name as Any, "value": value], displayStyle: .class)
    }
}

/// What sets one wrapper's first access apart; the rules are ``FirstAccess``'s.
@usableFromInline
protocol FirstAccessPolicy {
    associatedtype Service
    /// The wrapper, as messages name it.
    static var wrapperName: StaticString { get }
    /// Whether a value resolved is kept: a `Provider` keeps nothing, its scope's storage is its cache.
    static var keeps: Bool { get }
    /// What guards the component's fields, and which lock an access takes.
    var isolation: FirstAccessIsolation { get }
    /// Resolves the service (through `resolver`, the one the component captured, if any), under
    /// the isolation's lock. Throws why it could not: the component decides what the failure
    /// means.
    func resolve(
        through resolver: SynchronizedResolver?, for access: FirstAccess<Service>
    ) throws(ResolutionError)
        -> Service
    /// What a failure message says could not be done: "@Injected could not resolve Clock".
    func failedAccess(name: String?) -> String
}

extension FirstAccessPolicy {
    /// Every wrapper but `Provider` keeps the value it resolved.
    @inlinable
    static var keeps: Bool { true }

    /// The property wrappers' form: "@Injected could not resolve Clock (name: "utc")".
    @usableFromInline
    func failedAccess(name: String?) -> String {
        "@\(Self.wrapperName) could not resolve \(serviceLabel(Service.self, name: name))"
    }
}

/// What guards a first access's fields, and so which lock its accesses take.
@usableFromInline
enum FirstAccessIsolation {
    /// Any thread: every access takes the hierarchy's mutex (`@Injected`, a `Lazy` or `Provider`
    /// made through a synchronized view).
    case anyThread
    /// The main actor (`@MainInjected`): the first access takes the mutex, as the hierarchy is
    /// shared with other threads; the kept value, stored only there, is read there without it.
    case mainActor
    /// The one thread a plain container is used from (its contract): no lock.
    case oneThread
}

/// A value a first access kept. Boxed: destroying a `Service?` field in the component's
/// unspecialized `deinit` would look up the metadata of `Optional<Service>` for every component
/// released; an optional class reference is released with no
/// metadata. Its presence also tells a kept `nil` (of an optional service not registered) from
/// nothing kept.
@usableFromInline
final class KeptValue<Service>: @unchecked Sendable {  // immutable; `Service` crosses as the wrapper allows
    @usableFromInline let value: Service

    @inlinable
    init(_ value: Service) { self.value = value }
}

/// What the hierarchy had recorded when a first access began, for
/// ``keeping(_:since:)`` to tell what its request did: the failures recorded
/// (``ResolutionState/errorCount``) and the main-actor registrations resolved
/// (``ResolutionState/mainActorResolutions``). One word, the count of failures in its low half and
/// that of main-actor resolutions in its high half, compared a half at a time (so each count wraps
/// on its own half): in a hierarchy with no main-actor registration the high half is 0 and the word
/// is the failure count itself, which the path of every first access compares with no unpacking.
@usableFromInline
struct AccessStart {
    @usableFromInline let word: Int

    /// In a hierarchy with no main-actor registration, where none has resolved.
    @inlinable
    init(failures: Int) { word = failures }

    /// What `hierarchy` has recorded now, in a hierarchy whose entries need checks.
    init(recordedIn hierarchy: SharedState) {
        word = hierarchy.resolution.mainActorResolutions &<< 32 | hierarchy.resolution.errorCount & 0xFFFF_FFFF
    }

    /// Whether a main-actor registration has resolved in `hierarchy` since.
    func mainActorResolved(in hierarchy: SharedState) -> Bool {
        (AccessStart(recordedIn: hierarchy).word ^ word) &>> 32 != 0
    }
}

/// What a first access keeps of what it made (``keeping(_:since:)``).
@usableFromInline
enum Keeping {
    /// Nothing: the next access resolves again.
    case nothing
    /// The value, handed to any thread the wrapper allows.
    case forAnyThread
    /// A value whose request resolved a main-actor registration, handed out on the main actor only: off it, an
    /// access resolves again and is refused, as a first access there is, whoever read first.
    case forTheMainActor
}

/// ``keeping(_:since:)`` in a hierarchy that validates or has main-actor registrations.
@inline(never)
private func keepingWithChecks(
    since start: AccessStart, in hierarchy: SharedState, isNone: @autoclosure () -> Bool
) -> Keeping {
    if hierarchy.diagnostics.isValidating { return .nothing }
    // The failures in the low half, the main-actor resolutions in the high half.
    let changed = AccessStart(recordedIn: hierarchy).word ^ start.word
    guard changed & 0xFFFF_FFFF == 0 || !isNone() else { return .nothing }
    hierarchy.resolution.fixWhatRequestsMade()
    return start.mainActorResolved(in: hierarchy) ? .forTheMainActor : .forAnyThread
}

/// Whether `value` is the `nil` of an optional type.
func isNone<Value>(_ value: Value) -> Bool {
    (value as? any OptionalValue).map { $0.wrappedAny == nil } ?? false
}
