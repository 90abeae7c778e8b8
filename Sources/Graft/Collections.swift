// Graft — MIT License.

// Collections: every registration of a service type, resolved together. Several modules each
// register an implementation under a name of their own; one consumer takes them all.
extension Resolver {
    /// Resolves every registration of `serviceType` that takes no arguments, named and unnamed,
    /// in this container and its ancestors, in one object graph.
    ///
    /// ```swift
    /// container.register(HealthCheck.self, name: "database") { r in DatabaseCheck(r ~> Database.self) }
    /// container.register(HealthCheck.self, name: "cache") { _ in CacheCheck() }
    /// let checks = container.resolveAll(HealthCheck.self)   // [DatabaseCheck, CacheCheck]
    /// ```
    ///
    /// The order is stable: the root container's registrations first, then each child's; within a
    /// container, the order of registration. A registration in a child under a name an ancestor
    /// also uses hides the ancestor's, as `resolve` does, and takes its place. Re-registering a
    /// name keeps its place. Types forwarded to `serviceType` (``ServiceEntry/implements(_:)``,
    /// ``Container/forward(_:name:to:)``) are elements as `resolve` sees them. Two unnamed
    /// registrations replace each other: modules that contribute to one collection register
    /// under names.
    ///
    /// Each element follows its own registration's scope; graph-scoped instances are shared by
    /// the elements of one call (and, called in a factory, with the graph in flight).
    ///
    /// - Returns: The elements (`[]` when none is registered), or `nil` when one of them cannot
    ///   be resolved: no element is ever left out silently. The failure is logged, as
    ///   `resolve` logs it. Code that must not miss an element calls ``requireAll(_:)``, which
    ///   throws it. A resolver other than Graft's `Container` and its view cannot list its
    ///   registrations: `nil`, logged.
    public func resolveAll<Service>(_ serviceType: Service.Type) -> [Service]? {
        guard let container = Container.exactly(self) else { return foreignCollection(serviceType, []) }
        return container.resolveCollection(serviceType)
    }

    /// ``resolveAll(_:)`` for the registrations whose factory takes one argument of `argument`'s type.
    public func resolveAll<Service, each Argument>(
        _ serviceType: Service.Type,
        argument: repeat each Argument
    ) -> [Service]? {
        resolveAll(serviceType, arguments: repeat each argument)
    }

    /// ``resolveAll(_:)`` for the registrations whose factory takes exactly the types of
    /// `arguments`, passing them to each.
    public func resolveAll<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) -> [Service]? {
        guard let container = Container.exactly(self) else {
            return foreignCollection(serviceType, typeNames(repeat (each Argument).self))
        }
        return container.resolveCollection(serviceType, repeat each arguments)
    }

    /// Resolves every registration of `serviceType` that takes no arguments, as
    /// ``resolveAll(_:)`` does, or throws why one of them cannot be resolved and where.
    ///
    /// ```swift
    /// let interceptors = try r.requireAll(Interceptor.self)
    /// ```
    ///
    /// - Throws: ``ResolutionError``: the first element that fails, with its path; through a
    ///   resolver other than Graft's `Container` and its view, which cannot list its
    ///   registrations, `notRegistered`.
    public func requireAll<Service>(_ serviceType: Service.Type) throws(ResolutionError) -> [Service] {
        guard let container = Container.exactly(self) else {
            throw foreignResolverCannotList(serviceType, argumentTypeNames: [])
        }
        return try container.requireCollection(serviceType)
    }

    /// ``requireAll(_:)`` for the registrations whose factory takes one argument of `argument`'s type.
    public func requireAll<Service, each Argument>(
        _ serviceType: Service.Type,
        argument: repeat each Argument
    ) throws(ResolutionError) -> [Service] {
        try requireAll(serviceType, arguments: repeat each argument)
    }

    /// ``requireAll(_:)`` for the registrations whose factory takes exactly the types of
    /// `arguments`, passing them to each.
    public func requireAll<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) throws(ResolutionError) -> [Service] {
        guard let container = Container.exactly(self) else {
            throw foreignResolverCannotList(serviceType, argumentTypeNames: typeNames(repeat (each Argument).self))
        }
        return try container.requireCollection(serviceType, repeat each arguments)
    }

    private func foreignCollection<Service>(_ serviceType: Service.Type, _ argumentTypeNames: [String]) -> [Service]? {
        let error = foreignResolverCannotList(serviceType, argumentTypeNames: argumentTypeNames)
        Container.log { error.description }
        return nil
    }

    private func foreignResolverCannotList(_ serviceType: Any.Type, argumentTypeNames: [String]) -> ResolutionError {
        let label = serviceLabel(serviceType, name: nil)
        return ResolutionError(
            .notRegistered, path: [label],
            message: "Graft: the collection of \(label) taking \(argumentsPhrase(argumentTypeNames)) was asked of "
                + "\(Self.self), which is not a Graft container and cannot list its registrations: ask a "
                + "Container, its synchronize() view, or the resolver a factory receives.")
    }
}

extension Container {
    /// The names of a collection's elements: `service` registered with `arguments` in the root,
    /// then in each child down to this container, each container's in registration order; a name
    /// met again (a child's registration hiding its ancestor's) keeps its first place.
    final func collectionNames(of service: Any.Type, arguments: UInt) -> [String?] {
        hierarchy.locked {
            var names: [String?] = []
            for level in selfAndAncestors.reversed() {
                for name in level.services.names(of: ObjectIdentifier(service), arguments: arguments)
                where !names.contains(name) {
                    names.append(name)
                }
            }
            return names
        }
    }

    /// ``Resolver/resolveAll(_:)``: `nil` at the first element that fails, whose failure the
    /// element's `resolve` logged.
    final func resolveCollection<Service, each Argument>(
        _ serviceType: Service.Type, _ arguments: repeat each Argument
    ) -> [Service]? {
        try? collection(serviceType, repeat each arguments) { name throws(ResolutionError) in
            guard
                let element = resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
            else { throw ResolutionError(.notRegistered, path: [], message: "") }  // logged by the element's `resolve`
            return element
        }
    }

    /// ``Resolver/requireAll(_:)``: the first element that fails is thrown.
    final func requireCollection<Service, each Argument>(
        _ serviceType: Service.Type, _ arguments: repeat each Argument
    ) throws(ResolutionError) -> [Service] {
        try collection(serviceType, repeat each arguments) { name throws(ResolutionError) in
            try requireService(serviceType, name: name, arguments: repeat each arguments)
        }
    }

    /// The elements of `Service`'s collection, each made by `element` from its name: under the
    /// view's mutex for the whole collection, in the graph in flight, or in a graph of their own
    /// when none is.
    private final func collection<Service, each Argument>(
        _: Service.Type, _: repeat each Argument,
        element: (String?) throws(ResolutionError) -> Service
    ) throws(ResolutionError) -> [Service] {
        let locks = isView
        if locks { enterViewLock() }
        defer { if locks { exitViewLock() } }
        let names = collectionNames(of: Service.self, arguments: argumentsKey(repeat (each Argument).self))
        if names.isEmpty { return [] }
        var failure: ResolutionError?
        // Validation goes on past a failing element, so its report and graph show every element.
        func elements() -> [Service] {
            var elements: [Service] = []
            for name in names {
                do throws(ResolutionError) {
                    elements.append(try element(name))
                } catch {
                    failure = failure ?? error
                    if !self.hierarchy.diagnostics.isValidating { break }
                }
            }
            return elements
        }
        let made =
            hierarchy.resolution.depth > 0
            ? elements() : hierarchy.withGraph(nil, resolving: "resolveAll(\(Service.self).self)", elements)
        if let failure { throw failure }
        return made
    }
}

/// An array type: an autoregistered initializer's parameter of this type takes the collection of
/// its elements when the array itself is not registered.
private protocol ServiceCollection {
    static func requireAll(from resolver: Resolver) throws(ResolutionError) -> Self
}

extension Array: ServiceCollection {
    fileprivate static func requireAll(from resolver: Resolver) throws(ResolutionError) -> Array {
        try resolver.requireAll(Element.self)
    }
}

/// The collection an autoregistered parameter of type `Dependency` takes after `error`, its
/// failure to resolve: `nil` unless `Dependency` is an array type with no registration of its own.
@usableFromInline
func autoregisteredCollection<Dependency>(
    _: Dependency.Type, after error: ResolutionError, from resolver: Resolver
) throws(ResolutionError) -> Dependency? {
    guard case .notRegistered = error.reason, let collection = Dependency.self as? any ServiceCollection.Type,
        let container = resolver as? Container,
        container.slot(for: ServiceKey(service: Dependency.self, arguments: noArgumentsKey, name: nil)) == nil
    else { return nil }
    return try collection.requireAll(from: container) as? Dependency
}
