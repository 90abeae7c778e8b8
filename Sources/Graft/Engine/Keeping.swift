// Graft — MIT License.

// Keeping instances per scope: whether the scope holds one for the resolution in flight, reading
// it, and keeping a new one (noted so that a failed resolution can drop it).

extension ServiceEntry {
    /// Whether the scope already holds an instance for the resolution in flight. Asked before
    /// ``keptInstance(in:)`` rather than catching its error: a throw on every transient
    /// construction would slow it down.
    func isKeepingAnInstance(in hierarchy: SharedState) -> Bool {
        switch scopeKind {
        case .transient: false
        case .graph: hasGraphInstance
        case .container: hasInstance
        case .weak: hasGraphInstance || weakInstance != nil
        case .custom: storageHoldsAnInstance(in: hierarchy)
        }
    }

    /// Whether the custom storage holds a `Service` for the current graph (a value of another type
    /// counts as none). Out of line, and asked with `is`: a `Service?` here would cost every
    /// construction in unspecialized code a metadata lookup, custom scope or not.
    @inline(never)
    func storageHoldsAnInstance(in hierarchy: SharedState) -> Bool {
        storedValue(in: hierarchy).map { $0 is Service } ?? false
    }

    /// What the custom storage holds for the current graph; for an async entry, which has no
    /// storage, what its registration has built.
    private func storedValue(in hierarchy: SharedState) -> Any? {
        asyncRegistration?.builtValue
            ?? hierarchy.outsideCall { storage?.instance(inGraph: hierarchy.resolution.currentGraph) }
    }

    /// The instance the scope holds; only after ``isKeepingAnInstance(in:)`` said there is one.
    @inline(never)
    func keptInstance(in hierarchy: SharedState) throws(ResolutionFailed) -> Service {
        switch scopeKind {
        case .graph, .weak:
            if hasGraphInstance { return graphInstance }
            if scopeKind == .weak { return try sharedWeakInstance() }
        case .container: if hasInstance { return instance }
        case .custom:
            if let stored = storedInstance(in: hierarchy) { return stored }
        case .transient: break
        }
        throw ResolutionFailed()
    }

    /// Keeps a new instance as the scope says, noting it so a failed resolution can drop it.
    func keep(_ made: Service, in hierarchy: SharedState) {
        switch scopeKind {
        case .transient:
            return
        case .graph, .weak:
            // `.weak` keeps the graph's instance, and shares it beyond the graph while alive.
            setGraphInstance(made, in: hierarchy)
            hierarchy.resolution.holdGraphInstance(self, cell: cell)
            guard scopeKind == .weak else { return }
            weakInstance = WeakStorage.referenceOrNil(made)
            keptGeneration &+= 1
        case .container:
            cell.setInstance(made)
            keptGeneration &+= 1
        case .custom:
            hierarchy.outsideCall { storage?.setInstance(made, inGraph: hierarchy.resolution.currentGraph) }
            // Noted with the generation it was kept in, not a new one: a storage keeps an instance
            // per graph, so a keep in another graph (a nested `withObjectGraph`) leaves this graph's
            // instance to this request's rollback; only a reset (or a storage set since) moves it on.
            if !cell.isListedInGraph {
                cell.isListedInGraph = true
                hierarchy.resolution.holdGraphInstance(self, cell: cell)
            }
        }
        hierarchy.resolution.keptNewInstance(self, generation: keptGeneration)
    }

    /// The instance `.weak` shares, if still alive. Out of line: its `as?` needs an
    /// `Optional<Service>`, whose metadata lookup would otherwise be paid by every resolution.
    @inline(never)
    func sharedWeakInstance() throws(ResolutionFailed) -> Service {
        guard let object = weakInstance, let instance = object as? Service else { throw ResolutionFailed() }
        return instance
    }

    /// A custom scope's storage is asked with the graph's identifier, so the graph (and, at the
    /// top, the request) must exist before the storage is read.
    @inline(never)
    func resolveInStorage(
        in hierarchy: SharedState,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Service {
        let request = openRequest(if: hierarchy.isAtRequestBase, in: hierarchy)
        let result = Result { () throws(ResolutionFailed) -> Service in
            if let stored = storedInstance(in: hierarchy) { return stored }
            return try constructKept(in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: false)
        }
        if let request, !hierarchy.endRequest(request) { throw ResolutionFailed() }
        return try result.get()
    }

    /// What the custom storage holds for the current graph, if it is a `Service`. A value of
    /// another type (a storage shared by the registrations of a custom scope, or filled by its
    /// owner) counts as none, as in Swinject: the factory runs and its instance replaces it.
    /// The storage's `Any?` is checked for `nil` before the cast: for an `Optional`, `Any` or
    /// `AnyObject` service a cast of `nil` would succeed and the factory would never run.
    func storedInstance(in hierarchy: SharedState) -> Service? {
        storedValue(in: hierarchy).flatMap { $0 as? Service }
    }
}
