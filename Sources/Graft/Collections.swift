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
    /// name keeps its place. Types forwarded to `serviceType` (``ServiceEntry/implements(_:name:)``,
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
    @inlinable
    public func resolveAll<Service>(_ serviceType: Service.Type) -> [Service]? {
        guard let container = Container.exactly(self).map(Container.strongly) else {
            return foreignCollection(serviceType, [])
        }
        // The path of `resolve` without arguments: a `.container` hit or a plan inlined.
        return container.collection(serviceType, arguments: noArgumentsKey, logsUnavailable: true) { name in
            if _slowPath(container.hierarchy.diagnostics.isValidating) {
                container.observeIfValidating(serviceType, name: name)
            }
            return container.resolveWithoutArguments(serviceType, name: name)
        }
    }

    /// ``resolveAll(_:)`` for the registrations whose factory takes one argument of `argument`'s type.
    @inlinable
    public func resolveAll<Service, each Argument>(
        _ serviceType: Service.Type,
        argument: repeat each Argument
    ) -> [Service]? {
        resolveAll(serviceType, arguments: repeat each argument)
    }

    /// ``resolveAll(_:)`` for the registrations whose factory takes exactly the types of
    /// `arguments`, passing them to each.
    @inlinable
    public func resolveAll<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) -> [Service]? {
        guard let container = Container.exactly(self).map(Container.strongly) else {
            return foreignCollection(serviceType, typeNames(repeat (each Argument).self))
        }
        let key = argumentsKey(repeat (each Argument).self)
        return container.collection(serviceType, arguments: key, logsUnavailable: true) { name in
            container.resolveService(serviceType, name: name, resolver: container, arguments: repeat each arguments)
        }
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
    @inlinable
    public func requireAll<Service>(_ serviceType: Service.Type) throws(ResolutionError) -> [Service] {
        guard let container = Container.exactly(self).map(Container.strongly) else {
            throw foreignResolverCannotList(serviceType, argumentTypeNames: [])
        }
        return try container.requireEach(serviceType, arguments: noArgumentsKey) { name throws(ResolutionError) in
            try container.requireWithoutArguments(serviceType, name: name)
        }
    }

    /// ``requireAll(_:)`` for the registrations whose factory takes one argument of `argument`'s type.
    @inlinable
    public func requireAll<Service, each Argument>(
        _ serviceType: Service.Type,
        argument: repeat each Argument
    ) throws(ResolutionError) -> [Service] {
        try requireAll(serviceType, arguments: repeat each argument)
    }

    /// ``requireAll(_:)`` for the registrations whose factory takes exactly the types of
    /// `arguments`, passing them to each.
    @inlinable
    public func requireAll<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) throws(ResolutionError) -> [Service] {
        guard let container = Container.exactly(self).map(Container.strongly) else {
            throw foreignResolverCannotList(serviceType, argumentTypeNames: typeNames(repeat (each Argument).self))
        }
        let key = argumentsKey(repeat (each Argument).self)
        return try container.requireEach(serviceType, arguments: key) { name throws(ResolutionError) in
            try container.requireService(serviceType, name: name, arguments: repeat each arguments)
        }
    }

    @usableFromInline
    func foreignCollection<Service>(_ serviceType: Service.Type, _ argumentTypeNames: [String]) -> [Service]? {
        // A resolver that is not Graft's: no hierarchy to hold the message.
        Container.log { foreignResolverCannotList(serviceType, argumentTypeNames: argumentTypeNames).description }
        return nil
    }

    @usableFromInline
    func foreignResolverCannotList(_ serviceType: Any.Type, argumentTypeNames: [String]) -> ResolutionError {
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
    @usableFromInline
    final func collectionNames(of service: ObjectIdentifier, arguments: UInt) -> [String?] {
        hierarchy.withLock {
            // The ancestors' names first; the mutex, shared by the hierarchy, is recursive.
            var names = parent?.collectionNames(of: service, arguments: arguments) ?? []
            services.appendNames(of: service, arguments: arguments, to: &names)
            return names
        }
    }

    /// ``Resolver/requireAll(_:)``: each element made by `element`, which throws its failure; the
    /// first failure is thrown. Validation, which goes on past it, is told the others of elements
    /// that take arguments (those are not validated on their own).
    @inlinable
    final func requireEach<Service>(
        _ serviceType: Service.Type, arguments: UInt, element: (String?) throws(ResolutionError) -> Service
    ) throws(ResolutionError) -> [Service] {
        var failure: ResolutionError?
        let elements = collection(serviceType, arguments: arguments, logsUnavailable: false) { name in
            do throws(ResolutionError) {
                return try element(name)
            } catch {
                if failure == nil {
                    failure = error
                } else if arguments != noArgumentsKey {
                    noteFurtherFailureIfValidating(error)
                }
                return nil
            }
        }
        if let failure { throw failure }
        // `nil` with no element's failure: the collection cannot be listed here.
        guard let elements else { throw emptyCollectionFailure(Service.self).unsafelyUnwrapped }
        return elements
    }

    /// The elements of `Service`'s collection, each made by `element` from its name (`nil` when
    /// it fails): under the view's mutex for the whole collection, in the graph in flight, or in
    /// a graph of their own when none is. `nil` when an element failed, or when the collection
    /// cannot be listed here (``emptyCollectionFailure(_:logs:)`` says why, and logs it if
    /// `logsUnavailable`). Validation goes on past a failing element, so its report and graph
    /// show every element.
    @inlinable
    final func collection<Service>(
        _: Service.Type, arguments: UInt, logsUnavailable: Bool, element: (String?) -> Service?
    ) -> [Service]? {
        // Not `onContainer`: no closure frame on the recursion of a deep chain (see `resolve`).
        let locks = isView
        if locks { enterViewLock() }
        defer { if locks { exitViewLock() } }
        let names = collectionNames(of: ObjectIdentifier(Service.self), arguments: arguments)
        if names.isEmpty { return emptyCollectionFailure(Service.self, logs: logsUnavailable) == nil ? [] : nil }
        return inCollectionGraph {
            var elements: [Service] = []
            elements.reserveCapacity(names.count)
            var failed = false
            for name in names {
                if let made = element(name) {
                    elements.append(made)
                } else {
                    failed = true
                    if !hierarchy.diagnostics.isValidating { break }
                }
            }
            return failed ? nil : elements
        }
    }

    /// Why an empty collection of `serviceType` is no answer: asked of `SynchronizedResolver.current`
    /// with no resolver bound (an empty hierarchy), or of a wrapper Graft makes (`Lazy`, `Provider`,
    /// `Optional`), which is never registered itself. `nil` when `[]` is the answer.
    @usableFromInline @inline(never)
    final func emptyCollectionFailure(_ serviceType: Any.Type, logs: Bool = false) -> ResolutionError? {
        guard hierarchy.isUnboundPlaceholder || serviceType is any ResolutionWrapper.Type else { return nil }
        let label = serviceLabel(serviceType, name: nil)
        let why =
            hierarchy.isUnboundPlaceholder
            ? "it was asked of SynchronizedResolver.current with no resolver bound. " + ResolverBinding.howToBind
            : "\(label) is a wrapper Graft makes, never registered: ask for the collection of the type it wraps."
        let error = ResolutionError(
            .notRegistered, path: hierarchy.resolution.path + [label],
            message: "Graft: the collection of \(label) cannot be listed: " + why)
        if logs { hierarchy.log { error.description } }  // held while the view's mutex is
        return error
    }

    /// While ``validate()`` runs, reports the failure of an element after the first that failed
    /// (which the caller throws).
    @usableFromInline
    final func noteFurtherFailureIfValidating(_ error: ResolutionError) {
        hierarchy.diagnostics.validation?.furtherFailures.append(error)
    }

    /// Runs `body` in the graph in flight, or in a graph of its own when none is.
    @usableFromInline
    final func inCollectionGraph<T>(_ body: () -> T) -> T {
        hierarchy.resolution.depth > 0 ? body() : hierarchy.withGraph(nil, resolving: "resolveAll", body)
    }
}

/// The collection an autoregistered parameter of type `Dependency` takes after `error`, its
/// failure to resolve: `nil` unless `Dependency` is an array type with no registration of its own.
@usableFromInline
func autoregisteredCollection<Dependency>(
    _: Dependency.Type, after error: ResolutionError, from resolver: Resolver
) throws(ResolutionError) -> Dependency? {
    guard case .notRegistered = error.reason, let collection = Dependency.self as? any RangeReplaceableCollection.Type,
        let container = resolver as? Container,
        container.slot(for: ServiceKey(service: Dependency.self, arguments: noArgumentsKey, name: nil)) == nil
    else { return nil }
    return try requireAll(collection, from: container) as? Dependency
}

/// The collection of `Collection`'s elements when `Collection` is an `Array`, else `nil` (a
/// `String` or `Data` parameter is not a collection of services).
private func requireAll<Collection: RangeReplaceableCollection>(
    _: Collection.Type, from container: Container
) throws(ResolutionError) -> Collection? {
    guard Collection.self == [Collection.Element].self else { return nil }
    // Validation saw the array asked for as a registration: not an absent dependency after all.
    container.hierarchy.diagnostics.validation?.retractAbsent(
        serviceLabel(Collection.self, name: nil), in: container.hierarchy)
    return Collection(try container.requireAll(Collection.Element.self))
}
