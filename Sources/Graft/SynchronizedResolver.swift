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

    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        container.hierarchy.mutex.withLock {
            container.resolveWithoutArguments(serviceType, name: nil, resolver: self)
        }
    }

    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        container.hierarchy.mutex.withLock {
            container.resolveWithoutArguments(serviceType, name: name, resolver: self)
        }
    }

    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        container.hierarchy.mutex.withLock {
            container.resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
        }
    }
}
