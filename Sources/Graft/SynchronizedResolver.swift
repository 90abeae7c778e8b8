// Graft — MIT License.

/// The thread-safe view of a ``Container`` that ``Container/synchronize()`` returns.
///
/// It shares the container's registrations, instances and hierarchy. Every call on it, resolving
/// and also registering, `removeAll()` or `resetObjectScope(_:)`, runs under the recursive mutex
/// of the container's whole hierarchy, so a factory may resolve more services through the resolver
/// it is given, and a child's view never deadlocks against its parent's.
///
/// ```swift
/// let resolver = container.synchronize()
/// await withTaskGroup(of: Void.self) { group in
///     for _ in 0..<8 { group.addTask { _ = resolver.resolve(Database.self) } }
/// }
/// ```
///
/// It is a `Container`, as the view Swinject returns is, so code written for Swinject that casts
/// it (`container.synchronize() as! Container`, or to a protocol the application adds to
/// `Container`) keeps working. A registration made through it is added to the viewed container.
/// Every change to the hierarchy takes the same mutex, made through a view or a plain container:
/// registrations, forwards, behaviors, removals, resets and the settings of a ``ServiceEntry``.
public final class SynchronizedResolver: Container, @unchecked Sendable {
    // Sendable because all state is behind `hierarchy.mutex`: every public member of `Container`
    // runs its work through `onContainer` (the resolution entry points test `isView` and take
    // `enterViewLock()`), which on a view takes the mutex before touching anything (the stored
    // properties of a view are `let`s copied from the viewed container at init).

    /// For the view bound while a container makes an instance it keeps
    /// (``ServiceEntry/constructKept(in:resolver:arguments:opensRequest:)``): what an `@Injected`
    /// or `@MainInjected` made meanwhile holds instead of this view, which the instance would hold
    /// while the container holds the instance. `nil` for every other view.
    @usableFromInline let wrapperLinks: WrapperLinks?

    /// Makes a view of `container` (of the container it views, if it is a view itself).
    init(container: Container, wrapperLinks: WrapperLinks? = nil) {
        self.wrapperLinks = wrapperLinks
        super.init(viewing: container)
    }
}

/// What a wrapper made while a container makes an instance it keeps reaches its containers
/// through: the links of the bound resolver's container and its ancestors, then of the container
/// keeping the instance and its ancestors. It resolves through the first of them alive: the bound
/// resolver's container while it lives, then the nearest ancestor (a child dropped while its
/// parent answers), then the keeper's chain (a parent's singleton first resolved through a child).
/// No link keeps its container alive, so the instance holding the wrapper does not keep the
/// container holding the instance (a cycle, read or not).
@usableFromInline
final class WrapperLinks {
    private let chain: [ContainerLink]

    /// Under the hierarchy's mutex, or on a plain container's thread: both containers are alive.
    init(captured: Container, keeper: ContainerLink) {
        chain = (captured.selfAndAncestors + (keeper.container?.selfAndAncestors ?? [])).map(\.link)
    }

    /// A view of the first container alive, or `nil`. Under the hierarchy's mutex.
    func view() -> SynchronizedResolver? {
        chain.lazy.compactMap(\.container).first.map { SynchronizedResolver(container: $0) }
    }

    /// What to bind as ``SynchronizedResolver/current`` while a container of `hierarchy` (the one
    /// `keeper` links) makes an instance it keeps, for `current` a resolver of `hierarchy`: a view
    /// whose wrappers hold links instead of it. `nil` to leave `current` as it is: a resolver of
    /// another hierarchy holds nothing of this one, unless it is a view bound so by a construction
    /// of its own hierarchy running around this one, which then stays bound (that instance may hold
    /// this one).
    static func bindingWhileKeeping(in hierarchy: SharedState, by keeper: ContainerLink) -> SynchronizedResolver? {
        let current = SynchronizedResolver.current
        guard current.hierarchy === hierarchy else { return nil }
        return SynchronizedResolver(
            container: current, wrapperLinks: WrapperLinks(captured: current.viewed ?? current, keeper: keeper))
    }
}

// Whether a call goes through a view's lock is decided here, for every public member of
// `Container` and of its extensions: `onContainer(registering:_:)` runs a member's work. The
// paths inlined into the caller, which no closure may wrap (`resolve`, `require`, and `add` under
// every `register`), use its parts instead: they test `isView` and take the lock with
// `enterViewLock()`, or call a function of their own for a view that goes through `onContainer`.
extension Container {
    /// Whether this is a synchronized view, whose every call takes the hierarchy's mutex. The one
    /// test of `viewed` a public member makes: a plain container pays a load and a branch.
    @inlinable
    final var isView: Bool { viewed != nil }

    /// Runs `body` on the container that holds the registrations and returns its result: on a
    /// plain container, directly on this one; on a view, on the viewed container, under the
    /// hierarchy's recursive mutex, held for the whole body.
    ///
    /// A member whose work is on the view itself (a resolution passes the view to the factories it
    /// runs) ignores the container `body` receives: the view shares its table, parent and
    /// hierarchy.
    ///
    /// - Parameters:
    ///   - call: For a call that adds to the table (a registration, a forward, a behavior), its
    ///     name for the message that refuses it on the placeholder ``SynchronizedResolver/current``
    ///     gives with no resolver bound (it would be process-wide by accident); `nil` otherwise.
    ///     Made only for that message.
    ///   - body: The member's work.
    @inlinable @inline(__always)
    final func onContainer<Result>(
        registering call: @autoclosure () -> String? = nil, _ body: (Container) throws -> Result
    ) rethrows -> Result {
        if isView { return try onViewedContainer(registering: call, body) }
        return try body(self)
    }

    /// ``onContainer(registering:_:)`` on a view, out of line.
    @usableFromInline
    final func onViewedContainer<Result>(
        registering call: () -> String?, _ body: (Container) throws -> Result
    ) rethrows -> Result {
        if hierarchy.isUnboundPlaceholder, let call = call() {
            stop("Graft: \(call) on SynchronizedResolver.current with no resolver bound. " + ResolverBinding.howToBind)
        }
        enterViewLock()
        defer { exitViewLock() }
        return try body(viewed.unsafelyUnwrapped)  // set on every view
    }

    /// ``onContainer(registering:_:)`` for a read of the registrations (a listing, a description):
    /// under the hierarchy's mutex on a plain container too, since other threads may change them.
    final func onContainerLocked<Result>(_ body: (Container) -> Result) -> Result {
        onContainer { container in container.hierarchy.withLock { body(container) } }
    }

    /// ``onContainer(registering:_:)`` for a change to the container (a forward, a behavior, a
    /// removal, a reset): on a plain container as on a view, `body` runs under the hierarchy's
    /// mutex (``SharedState/withChange(_:call:batch:_:)``), so changes from any threads are safe against
    /// each other and against resolutions through a view.
    final func onContainer<Result>(
        changing call: StaticString, _ service: Any.Type? = nil, batch: Bool = false,
        _ body: (Container) throws -> Result
    ) rethrows -> Result {
        try onContainer(registering: service.map { "\(call)(\($0).self)" } ?? "\(call)") { container in
            try container.hierarchy.withChange(service, call: call, batch: batch) { try body(container) }
        }
    }

    /// A view resolves on itself: it shares its container's table, parent and hierarchy, and the
    /// `Lazy` or `Provider` it makes reaches the container through the link they share.
    /// Inlinable: specialized in the caller, a `.container` hit holds the mutex for a table probe
    /// and a copy, which keeps contended resolutions short.
    @inlinable
    final func resolveThroughView<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        // No closure around the call: a closure frame per level adds up on a deep chain of
        // resolutions in a debug build.
        enterViewLock()
        defer { exitViewLock() }
        if _slowPath(hierarchy.diagnostics.isValidating) { observeIfValidating(serviceType, name: name) }
        return resolveWithoutArguments(serviceType, name: name)
    }

    /// While ``Container/validate()`` runs, notes a resolution without arguments made through its
    /// resolver (a view), before the path: a `.container` hit returns without reaching the entry.
    @usableFromInline
    final func observeIfValidating<Service>(_ serviceType: Service.Type, name: String?) {
        hierarchy.diagnostics.validation?.observeRequest(
            ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name),
            from: self, isWrapper: Service.self is any ResolutionWrapper.Type, in: hierarchy)
    }

    /// Takes the hierarchy's mutex for a call on a view; pair with ``exitViewLock()``. Every call
    /// on a view takes it here. Debug builds count the calls that take it first on their thread
    /// (``SynchronizedCalls/viewCallsTaken``), so tests can check that each public member takes it once.
    @usableFromInline
    final func enterViewLock() {
        hierarchy.enterLocked()
        #if DEBUG
            if hierarchy.calls.lockedCalls == 1 { hierarchy.calls.viewCallsTaken += 1 }
        #endif
    }

    @usableFromInline
    final func exitViewLock() { hierarchy.exitLocked() }
}
