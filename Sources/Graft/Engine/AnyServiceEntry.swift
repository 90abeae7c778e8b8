// Graft — MIT License.

/// What the container needs of an entry without knowing its service type.
@usableFromInline
protocol AnyServiceEntry: AnyObject {
    /// The service type the registration is keyed by: the static `Service` of its `register`
    /// call, never the metatype value passed (`let t: Animal.Type = Cat.self; register(t)`
    /// registers `Animal`), which only ``ServiceEntry/serviceType`` keeps, for Swinject's API.
    var keyType: Any.Type { get }
    var name: String? { get }
    /// The registration's scope (an async entry's is its registration's, `.container` or `.transient`).
    var objectScope: ObjectScopeProtocol { get }
    /// The scope this entry keeps its own instances in (an async entry's kind is custom, with no
    /// storage: it reads the instance its registration built, whatever the registration's scope).
    var scope: ObjectScopeProtocol { get }
    var scopeKind: ObjectScope.Kind { get }
    /// ``ServiceEntry/setKindWhileValidating(_:)``.
    func setKindWhileValidating(_ kind: ObjectScope.Kind)
    var factoryFrame: Int { get }
    var argumentsKey: UInt { get }
    var argumentTypeNames: () -> [String] { get }
    var link: ContainerLink { get }
    var cell: InstanceCell { get }
    var instanceCount: Int { get set }
    var kind: RegistrationKind { get }
    /// An async entry's registration (an ``AnyAsyncEntry``); `nil` for the other kinds.
    var asyncRegistrationObject: AnyObject? { get }
    /// ``ServiceEntry/directCell(forKeyOf:)`` for a key whose service type is `service`.
    func directCell(forKeyWith service: ObjectIdentifier) -> InstanceCell?
    /// Resolves this entry for ``Container/validate()``: its factory runs even if its scope keeps
    /// an instance, and nothing made is kept beyond the validation's graph. `arguments` points to
    /// a tuple of the factory's argument types (a sample's), or is `nil` for a factory without.
    /// - Returns: Whether the resolution succeeded.
    func validateAsRoot(in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?) -> Bool
    /// A registration like this one in `container`: same factories, scope and `initCompleted`
    /// actions, no instance (for ``withOverrides(_:operation:)-(_,()->R)``).
    func copy(into container: Container) -> AnyServiceEntry
    /// Resolves this entry as `Requested`: its own service type, or a type it is forwarded to.
    func resolve<Requested>(
        as requested: Requested.Type, in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?
    ) -> Requested?
    /// ``resolve(as:in:resolver:arguments:)`` that throws instead of returning `nil`: no
    /// `Optional<Requested>` for unspecialized callers to look up.
    func resolveOrFail<Requested>(
        as requested: Requested.Type, in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Requested
    /// Remembers weakly, in `record`, the current graph's instance (the graph is ending). Runs no
    /// user code.
    func rememberGraphInstance(in record: GraphRecord)
    /// Releases the value of a graph that has ended; returns the custom storage to tell that the
    /// graph ended, if any.
    func releaseFinishedGraphInstance() -> InstanceStorage?
    /// Undoes what a failed request kept: moves the `.container` instance out into `values`,
    /// forgets the `.weak` one; returns the custom storage to clear, if any. Only if `generation` is
    /// still the entry's (nothing was kept or reset since; a custom scope's keep does not move it).
    func moveKeptInstance(into values: inout [Any], generation: Int) -> InstanceStorage?
    /// Drops what the scope keeps beyond the graph (`resetObjectScope`).
    func resetKeptInstance()
    /// Moves the current graph's instance out, so another graph can be resolved meanwhile.
    func takeGraphInstance() -> Any?
    func restoreGraphInstance(_ instance: Any?, in hierarchy: SharedState)
    /// `Service: …, Factory: …, ObjectScope: …` as `Container.description` shows it for `key`.
    func entryDescription(for key: ServiceKey) -> String
}

/// What kind of registration an entry is; every kind lives once in the one table.
@usableFromInline
enum RegistrationKind: UInt8 {
    /// `register`, `autoregister`.
    case plain
    /// `registerMain`: made and handed out on the main actor only.
    case mainActor
    /// `registerAsync`: built by `resolveAsync`; a synchronous `resolve` reads what was built.
    case async
}

extension AnyServiceEntry {
    /// An async entry's registration; `nil` for the other kinds.
    var asyncRegistration: AnyAsyncEntry? { asyncRegistrationObject as? AnyAsyncEntry }
}

extension ServiceEntry: AnyServiceEntry {
    @usableFromInline var keyType: Any.Type { Service.self }

    @usableFromInline
    var asyncRegistrationObject: AnyObject? { kind == .async ? extras?.state.asyncRegistration : nil }

    @usableFromInline
    func directCell(forKeyWith service: ObjectIdentifier) -> InstanceCell? {
        kind != .mainActor && service == ObjectIdentifier(Service.self) ? cell : nil
    }

    @usableFromInline
    func rememberGraphInstance(in record: GraphRecord) {
        if hasGraphInstance, let object = WeakStorage.referenceOrNil(graphInstance) { record.remember(self, object) }
    }

    @usableFromInline
    func releaseFinishedGraphInstance() -> InstanceStorage? {
        // A finished graph's value (slot [1]'s, not yet released), if any, after emptying its slot.
        if cell.graphState == InstanceCell.graphFinished { _ = cell.takeGraphSlot(Service.self) }
        return storage
    }

    @usableFromInline
    func moveKeptInstance(into values: inout [Any], generation: Int) -> InstanceStorage? {
        // Reset, or kept again (by a request of its own that succeeded) since: not this one's.
        guard generation == keptGeneration else { return nil }
        if hasInstance { values.append(cell.moveInstance(Service.self)) }
        weakInstance = nil
        return storage
    }

    @usableFromInline
    func resetKeptInstance() {
        // Graph instances stay: a reset inside a factory must not split the graph being resolved.
        let dropped = link.hierarchy.uncheckedSection { () -> Service? in
            keptGeneration &+= 1
            weakInstance = nil
            return hasInstance ? cell.moveInstance(Service.self) : nil
        }
        storage?.instance = nil  // user code: a custom scope's storage
        asyncRegistration?.reset()  // an async entry's instance is its registration's
        withExtendedLifetime(dropped) {}
    }

    /// The instance made the last time this graph was resolved, if still alive; if so it is the
    /// current graph's instance again.
    @inline(never)
    func recall(in hierarchy: SharedState) -> Bool {
        guard let object = hierarchy.resolution.graph.recalled?.object(for: self), let instance = object as? Service
        else { return false }
        setGraphInstance(instance, in: hierarchy)
        hierarchy.resolution.holdGraphInstance(self, cell: cell)
        return true
    }

    @usableFromInline
    func takeGraphInstance() -> Any? {
        cell.isListedInGraph = false
        return hasGraphInstance ? cell.takeGraphSlot(Service.self) : nil
    }

    @usableFromInline
    func restoreGraphInstance(_ instance: Any?, in hierarchy: SharedState) {
        if cell.graphSlotIsOccupied { displaceGraphSlot(in: hierarchy) }
        cell.isListedInGraph = storage != nil
        if let instance = instance as? Service { cell.setGraphInstance(instance) }
    }

    @usableFromInline
    func entryDescription(for key: ServiceKey) -> String {
        let completed = initCompletedActions.count
        return key.registrationDescription(of: serviceType, argumentTypeNames: argumentTypeNames())
            + ", ObjectScope: \(objectScope)"
            + (completed == 0 ? "" : ", InitCompleted: Specified \(completed) closures")
    }

    @usableFromInline
    func copy(into container: Container) -> AnyServiceEntry {
        if let asyncRegistration { return asyncRegistration.copy(into: container) }
        let copy = ServiceEntry(
            serviceType: serviceType, argumentsType: argumentsType, argumentsKey: argumentsKey, name: name,
            container: container, argumentTypeNames: argumentTypeNames,
            plainFactory: hasPlainFactory ? plainFactory : nil,
            argumentFactory: argumentFactory, throwingFactory: throwingFactory, kind: kind)
        copy.setScope(scope, keptAs: ObjectScope.storage(for: scope))
        copy.initCompletedActions = initCompletedActions
        copy.hasInitCompletedActions = hasInitCompletedActions
        return copy
    }
}
