// Graft — MIT License.

extension Container {
    /// Registers how to make `serviceType`, optionally under a name and with arguments.
    ///
    /// Registering the same type, name and argument types again replaces the earlier registration.
    ///
    /// ```swift
    /// container.register(Animal.self) { _ in Cat() }
    /// container.register(Animal.self, name: "dog") { _ in Dog() }
    /// container.register(Animal.self) { _, name in Cat(name: name) }  // resolve(_:argument:)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - factory: Makes the service from a resolver (for its dependencies) and the arguments
    ///     given to `resolve`. It may capture state: the container calls it on one thread at a
    ///     time, or under the hierarchy's mutex through ``synchronize()``.
    /// - Returns: The registration, to chain ``ServiceEntry/inObjectScope(_:)-7rfw5`` and
    ///   ``ServiceEntry/initCompleted(_:)``.
    @discardableResult
    public func register<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, repeat each Argument) -> Service
    ) -> ServiceEntry<Service> {
        let argumentsType = (repeat each Argument).self
        let entry = ServiceEntry<Service>(
            serviceType: serviceType,
            argumentsType: argumentsType,
            name: name,
            factory: Factory<Service, repeat each Argument>(factory),
            objectScope: defaultObjectScope
        )
        entry.container = self
        services[ServiceKey(service: serviceType, arguments: argumentsType, name: name)] = entry
        for behavior in behaviors {
            behavior.container(self, didRegisterType: serviceType, toService: entry, withName: name)
        }
        return entry
    }
}
