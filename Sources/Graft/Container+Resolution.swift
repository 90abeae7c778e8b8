// Graft — MIT License.

extension Container: Resolver {
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        resolveService(serviceType, name: nil, resolver: self)
    }

    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolveService(serviceType, name: name, resolver: self)
    }

    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
    }
}

// The one path every resolution takes (see DESIGN.md): key, lookup up the hierarchy, the entry's
// scope, and on a miss the factory, storing per scope and running `initCompleted`.
//
// The generic code runs unspecialized (callers are in other modules, and factories call through
// the `Resolver` existential), so the hot path stays out of the runtime's metadata caches: the
// entry's own methods do the work, reading `Service` from the entry itself, and arguments travel
// as a pointer to their tuple.
extension Container {
    /// Resolves `serviceType` with no arguments, passing `resolver` to the factories that run.
    func resolveService<Service>(_ serviceType: Service.Type, name: String?, resolver: Resolver) -> Service? {
        let key = ServiceKey(service: serviceType, arguments: Void.self, name: name)
        if let entry = entry(for: key),
            let instance = entry.resolve(as: serviceType, in: self, resolver: resolver, arguments: nil)
        {
            return instance
        }
        return resolveUnregistered(serviceType, key: key, resolver: resolver)
    }

    /// Resolves `serviceType` with `arguments`, passing `resolver` to the factories that run.
    func resolveService<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        let key = ServiceKey(service: serviceType, arguments: (repeat each Argument).self, name: name)
        if let entry = entry(for: key) {
            let instance = withUnsafePointer(to: (repeat each arguments)) {
                entry.resolve(as: serviceType, in: self, resolver: resolver, arguments: UnsafeRawPointer($0))
            }
            if let instance { return instance }
        }
        return resolveUnregistered(serviceType, key: key, resolver: resolver, arguments: repeat each arguments)
    }

    /// The entry for `key` in this container or the nearest ancestor that has one.
    @inline(__always)
    func entry(for key: ServiceKey) -> AnyServiceEntry? {
        let hash = RegistrationTable.hash(key)
        var container = self
        while true {
            if let entry = container.services.entry(for: key, hash: hash) { return entry }
            guard let parent = container.parent else { return nil }
            container = parent
        }
    }

    /// Nothing is registered under the key: answer what Graft itself provides, or report the miss.
    private func resolveUnregistered<Service, each Argument>(
        _ serviceType: Service.Type,
        key: ServiceKey,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        if serviceType == GraphIdentifier.self, key.arguments == ObjectIdentifier(Void.self),
            let graph = hierarchy.graphIfResolving
        {
            return graph as? Service
        }
        if let wrapper = serviceType as? any ResolutionWrapper.Type,
            let wrapped = wrapper.wrap(from: self, resolver: resolver, name: key.name, arguments: repeat each arguments)
        {
            return wrapped as? Service
        }
        Container.log {
            var names: [String] = []
            repeat names.append(String(describing: (each Argument).self))
            return resolutionFailureMessage(serviceType, name: key.name, argumentTypeNames: names)
        }
        return nil
    }
}

extension ServiceEntry {
    func resolve<Requested>(
        as requested: Requested.Type,
        in container: Container,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) -> Requested? {
        let instance = resolveInstance(in: container, resolver: resolver, arguments: arguments)
        if requested == Service.self {
            return unsafeBitCast(instance, to: Requested?.self)  // the same type
        }
        // Forwarded from another type's registration (`implements`, `forward`).
        return instance as? Requested
    }

    @inline(__always)
    private func resolveInstance(in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?) -> Service? {
        switch scopeKind {
        case .container:
            if let instance { return instance }
        case .graph:
            if let graphInstance { return graphInstance }
            if remembersAGraph, let recalled = recall(in: container.hierarchy) { return recalled }
        case .weak:
            if let graphInstance { return graphInstance }
            if remembersAGraph, let recalled = recall(in: container.hierarchy) { return recalled }
            if let object = weakInstance, let instance = object as? Service { return instance }
        case .transient:
            break
        case .custom:
            return resolveInStorage(in: container, resolver: resolver, arguments: arguments)
        }
        return construct(in: container.hierarchy, resolver: resolver, arguments: arguments)
    }

    /// A custom scope's storage is asked with the graph's identifier, so the graph must exist first.
    private func resolveInStorage(in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?) -> Service? {
        let hierarchy = container.hierarchy
        let isTopLevel = hierarchy.depth == 0
        hierarchy.depth += 1
        let result = keptInstance(in: hierarchy) ?? construct(in: hierarchy, resolver: resolver, arguments: arguments)
        hierarchy.depth -= 1
        if isTopLevel && !hierarchy.finishResolution() { return nil }
        return result
    }

    /// Calls the factory, keeps the instance per scope, then runs the `initCompleted` actions.
    private func construct(in hierarchy: Hierarchy, resolver: Resolver, arguments: UnsafeRawPointer?) -> Service? {
        let isTopLevel = hierarchy.depth == 0
        if argumentCount == 0 && hierarchy.isConstructorCycle(self) {
            let chain = hierarchy.chain(reentering: self)
            hierarchy.fail(chain)
            Container.log {
                "Graft: circular dependency: \(chain). Each factory needs the next to be made first; "
                    + "break the cycle by injecting one side in `initCompleted`."
            }
            return nil
        }
        if hierarchy.depth >= Hierarchy.maximumDepth {
            let chain = hierarchy.chain(reentering: self)
            hierarchy.fail(chain)
            Container.log { "Graft: resolution deeper than \(Hierarchy.maximumDepth) levels: \(chain)" }
            return nil
        }

        let outerFrame = factoryFrame
        factoryFrame = hierarchy.pushFactory(self)
        let made = factory(resolver, arguments)
        hierarchy.popFactory()
        factoryFrame = outerFrame

        var result = made
        if hierarchy.failure == nil {
            // A circular `initCompleted` may have made and kept one while the factory ran: keep that.
            if let kept = keptInstance(in: hierarchy) {
                result = kept
            } else {
                keep(made, in: hierarchy)
                if !initCompletedActions.isEmpty {
                    hierarchy.runCompletion(self) {
                        for action in initCompletedActions { action(resolver, made) }
                    }
                }
            }
        }
        if isTopLevel && !hierarchy.finishResolution() { return nil }
        return result
    }

    /// The instance the scope already holds for the resolution in flight, if any.
    private func keptInstance(in hierarchy: Hierarchy) -> Service? {
        switch scopeKind {
        case .transient: return nil
        case .graph: return graphInstance
        case .container: return instance
        case .weak: return graphInstance ?? (weakInstance as? Service)
        case .custom: return storage?.instance(inGraph: hierarchy.currentGraph) as? Service
        }
    }

    /// Keeps a new instance as the scope says, noting it so a failed resolution can drop it.
    private func keep(_ made: Service, in hierarchy: Hierarchy) {
        switch scopeKind {
        case .transient:
            return
        case .graph:
            graphInstance = made
            hierarchy.holdsGraphInstance(self)
        case .container:
            instance = made
            hierarchy.keptNewInstance(self)
        case .weak:
            graphInstance = made
            weakInstance = WeakStorage.referenceOrNil(made)
            hierarchy.holdsGraphInstance(self)
            hierarchy.keptNewInstance(self)
        case .custom:
            storage?.setInstance(made, inGraph: hierarchy.currentGraph)
            hierarchy.holdsGraphInstance(self)
            hierarchy.keptNewInstance(self)
        }
    }
}
