// Graft — MIT License.

extension Container: Resolver {
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        resolveService(serviceType, name: nil, argumentsType: Void.self, resolver: self)
    }

    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolveService(serviceType, name: name, argumentsType: Void.self, resolver: self)
    }

    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        resolveService(
            serviceType, name: name, argumentsType: (repeat each Argument).self, resolver: self,
            arguments: repeat each arguments)
    }
}

// The one path every resolution takes (see DESIGN.md): key, lookup up the hierarchy, the entry's
// scope, and on a miss the factory, storing per scope and running `initCompleted`.
extension Container {
    /// Resolves `serviceType`, passing `resolver` to the factories that run.
    func resolveService<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        argumentsType: Any.Type,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        let key = ServiceKey(service: serviceType, arguments: argumentsType, name: name)
        if let found = entry(for: key) {
            if let entry = found as? ServiceEntry<Service> {
                return resolve(entry, resolver: resolver, arguments: repeat each arguments)
            }
            // Forwarded from another type's registration (`implements`, `forward`): resolve that, then cast.
            let instance = found.resolveErased(from: self, resolver: resolver, arguments: repeat each arguments)
            if let instance = instance as? Service { return instance }
        }
        return resolveUnregistered(serviceType, key: key, resolver: resolver, arguments: repeat each arguments)
    }

    /// The entry for `key` in this container or the nearest ancestor that has one.
    @inline(__always)
    func entry(for key: ServiceKey) -> AnyServiceEntry? {
        var container = self
        while true {
            if let entry = container.services[key] { return entry }
            guard let parent = container.parent else { return nil }
            container = parent
        }
    }

    @inline(__always)
    fileprivate func resolve<Service, each Argument>(
        _ entry: ServiceEntry<Service>,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        switch entry.scopeKind {
        case .container:
            if let instance = entry.instance { return instance }
        case .graph:
            if let instance = entry.graphInstance { return instance }
            if entry.remembersAGraph, let instance = entry.recall(in: hierarchy) { return instance }
        case .weak:
            if let instance = entry.graphInstance { return instance }
            if entry.remembersAGraph, let instance = entry.recall(in: hierarchy) { return instance }
            if let object = entry.weakInstance, let instance = object as? Service { return instance }
        case .transient:
            break
        case .custom:
            return resolveInStorage(entry, resolver: resolver, arguments: repeat each arguments)
        }
        return construct(entry, resolver: resolver, arguments: repeat each arguments)
    }

    /// A custom scope's storage is asked with the graph's identifier, so the graph must exist first.
    private func resolveInStorage<Service, each Argument>(
        _ entry: ServiceEntry<Service>,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        let hierarchy = self.hierarchy
        let isTopLevel = hierarchy.depth == 0
        hierarchy.depth += 1
        let result = entry.keptInstance(in: hierarchy)
            ?? construct(entry, resolver: resolver, arguments: repeat each arguments)
        hierarchy.depth -= 1
        if isTopLevel && !hierarchy.finishResolution() { return nil }
        return result
    }

    /// Calls the factory, keeps the instance per scope, then runs the `initCompleted` actions.
    private func construct<Service, each Argument>(
        _ entry: ServiceEntry<Service>,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Service? {
        let hierarchy = self.hierarchy
        let isTopLevel = hierarchy.depth == 0
        if entry.factory.argumentCount == 0 && hierarchy.isConstructorCycle(entry) {
            let chain = hierarchy.chain(reentering: entry)
            hierarchy.fail(chain)
            Container.log {
                "Graft: circular dependency: \(chain). Each factory needs the next to be made first; "
                    + "break the cycle by injecting one side in `initCompleted`."
            }
            return nil
        }
        if hierarchy.depth >= Hierarchy.maximumDepth {
            let chain = hierarchy.chain(reentering: entry)
            hierarchy.fail(chain)
            Container.log { "Graft: resolution deeper than \(Hierarchy.maximumDepth) levels: \(chain)" }
            return nil
        }
        // The key this entry was found under has exactly these argument types.
        let factory = unsafeDowncast(entry.factory, to: Factory<Service, repeat each Argument>.self)

        let outerFrame = entry.factoryFrame
        entry.factoryFrame = hierarchy.pushFactory(entry)
        let made = factory.body(resolver, repeat each arguments)
        hierarchy.popFactory()
        entry.factoryFrame = outerFrame

        var result = made
        if hierarchy.failure == nil {
            // A circular `initCompleted` may have made and kept one while the factory ran: keep that.
            if let kept = entry.keptInstance(in: hierarchy) {
                result = kept
            } else {
                entry.keep(made, in: hierarchy)
                if !entry.initCompletedActions.isEmpty {
                    hierarchy.runCompletion(entry) {
                        for action in entry.initCompletedActions { action(resolver, made) }
                    }
                }
            }
        }
        if isTopLevel && !hierarchy.finishResolution() { return nil }
        return result
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
    func resolveErased<each Argument>(
        from container: Container,
        resolver: Resolver,
        arguments: repeat each Argument
    ) -> Any? {
        container.resolve(self, resolver: resolver, arguments: repeat each arguments)
    }

    /// The instance the scope already holds for the resolution in flight, if any.
    func keptInstance(in hierarchy: Hierarchy) -> Service? {
        switch scopeKind {
        case .transient: return nil
        case .graph: return graphInstance
        case .container: return instance
        case .weak: return graphInstance ?? (weakInstance as? Service)
        case .custom: return storage?.instance(inGraph: hierarchy.currentGraph) as? Service
        }
    }

    /// Keeps a new instance as the scope says, noting it so a failed resolution can drop it.
    func keep(_ made: Service, in hierarchy: Hierarchy) {
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
