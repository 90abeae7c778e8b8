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
/// `Container`) keeps working. A registration made through it is added to the viewed container,
/// and its ``ServiceEntry`` settings (`inObjectScope`, `initCompleted`) take the mutex too.
public final class SynchronizedResolver: Container, @unchecked Sendable {
    // Sendable because all state is behind `hierarchy.mutex`: every public member of `Container`
    // tests `viewed` first and, on a view, takes the mutex before touching anything (the stored
    // properties of a view are `let`s copied from the viewed container at init).

    /// Makes a view of `container` (of the container it views, if it is a view itself).
    init(container: Container) {
        super.init(viewing: container)
    }
}

// The locked paths of the resolution entry points, out of line: a plain container's inlined
// `resolve` only tests `viewed` and branches here for a view.
extension Container {
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
        if _slowPath(hierarchy.isValidating) { observeIfValidating(serviceType, name: name) }
        return resolveWithoutArguments(serviceType, name: name)
    }

    /// While ``Container/validate()`` runs, notes a resolution without arguments made through its
    /// resolver (a view), before the path: a `.container` hit returns without reaching the entry.
    @usableFromInline
    final func observeIfValidating<Service>(_ serviceType: Service.Type, name: String?) {
        guard _slowPath(hierarchy.isValidating) else { return }
        hierarchy.validation?.observeRequest(
            ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name),
            from: self, isWrapper: Service.self is any ResolutionWrapper.Type, in: hierarchy)
    }

    /// Takes the hierarchy's mutex for a call on a view; pair with ``exitViewLock()``.
    @usableFromInline
    final func enterViewLock() { hierarchy.enterLocked() }

    @usableFromInline
    final func exitViewLock() { hierarchy.exitLocked() }
}
