// Graft — MIT License.

/// The thread-safe view of a ``Container`` that ``Container/synchronize()`` returns.
///
/// It shares the container's registrations and instances. Every call runs under the recursive
/// mutex of the container's whole hierarchy, so a factory may resolve more services through the
/// resolver it is given, and a child's view never deadlocks against its parent's.
///
/// ```swift
/// let resolver = container.synchronize()
/// await withTaskGroup(of: Void.self) { group in
///     for _ in 0..<8 { group.addTask { _ = resolver.resolve(Database.self) } }
/// }
/// ```
public final class SynchronizedResolver: Resolver, @unchecked Sendable {
    // All state behind `container.hierarchy.mutex`: the container is only used while holding it.
    let container: Container

    init(container: Container) {
        self.container = container
    }

    // Lock and unlock without a closure around the call: a closure frame per level adds up on a
    // deep chain of resolutions in a debug build.

    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        let hierarchy = container.hierarchy
        hierarchy.enterLocked()
        defer { hierarchy.exitLocked() }
        return container.resolveWithoutArguments(serviceType, name: nil, resolver: self)
    }

    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        let hierarchy = container.hierarchy
        hierarchy.enterLocked()
        defer { hierarchy.exitLocked() }
        return container.resolveWithoutArguments(serviceType, name: name, resolver: self)
    }

    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        let hierarchy = container.hierarchy
        hierarchy.enterLocked()
        defer { hierarchy.exitLocked() }
        return container.resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
    }
}
