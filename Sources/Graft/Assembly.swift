// Graft — MIT License.

/// A group of related registrations, applied to a container by a ``ContainerAssembler``.
///
/// ```swift
/// struct NetworkAssembly: Assembly {
///     func assemble(container: Container) {
///         container.register(HTTPClient.self) { _ in URLSessionClient() }.inObjectScope(.container)
///     }
/// }
/// ```
public protocol Assembly {
    /// Registers this assembly's services in `container`.
    func assemble(container: Container)

    /// Called once every assembly applied together has registered its services, so services
    /// from other assemblies can be resolved. Does nothing unless implemented.
    func loaded(resolver: Resolver)
}

extension Assembly {
    public func loaded(resolver: Resolver) {}
}
