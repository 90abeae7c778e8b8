// Graft — MIT License.

/// One registration: its factory, its object scope, the instance that scope keeps, and the actions
/// to run once an instance is created. Returned by `register` so settings can be chained:
///
/// ```swift
/// container.register(Database.self) { _ in PostgresDatabase() }
///     .inObjectScope(.container)
///     .initCompleted { r, db in db.logger = r.resolve(Logger.self) }
/// ```
public final class ServiceEntry<Service> {
    /// The memory of this entry's cell when `Service` is a class type (40 bytes: the cell's header
    /// and two references), so a registration is one allocation. It must stay the first stored
    /// property: the cell is at `_getUnsafePointerToStoredProperties(self)`, which debug builds
    /// check against this property's own address on every access of ``cell``. Never read or
    /// written as a property after `init`, only through the cell.
    @usableFromInline var inlineCellMemory: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)

    // Field order is memory layout: the cell's memory first, the one-byte fields last, together.
    // A registration of a class type with a plain factory and a built-in scope is this one object
    // (at most 152 bytes, `EntryExtrasTests` checks); what few registrations use is in `extras`,
    // made the first time it is needed.

    /// The registered service type.
    public let serviceType: Any.Type
    /// The type of the factory's whole argument list, as in Swinject: `(any Resolver).self` for a
    /// factory without arguments, `(any Resolver, Int).self` for one taking an `Int`, and so on
    /// (they print as `Resolver` and `(Resolver, Int)`).
    public var argumentsType: Any.Type { link.hierarchy.withLock { extras?.argumentsType ?? (any Resolver).self } }
    /// The registration name, or `nil`.
    public let name: String?
    /// The scope instances of this registration live in.
    public var objectScope: ObjectScopeProtocol { link.hierarchy.withLock { asyncRegistration?.scope ?? scope } }

    /// The factory of a registration without arguments, stored as given, if
    /// ``hasPlainFactory``; else one that is never called. Not an `Optional`: a call unwrapping
    /// one copies the closure (a retain and a release) where a stored closure is borrowed.
    @usableFromInline let plainFactory: (Resolver) -> Service
    /// The container registered in, where `implements` adds forwarded types. An entry can outlive
    /// its container (the application may keep it); `implements` is then a no-op, as in Swinject.
    @usableFromInline let link: ContainerLink

    /// The memory of this entry's cell when it is not inline (`Service` is not a class type).
    @usableFromInline let outOfLineCellMemory: UnsafeMutableRawPointer?

    /// Where this entry's instances are kept; the registration table keeps a copy of the pointer.
    @inlinable @inline(__always)
    var cell: InstanceCell {
        assert(outOfLineCellMemory != nil || inlineCellIsWhereExpected(), "ServiceEntry: inline cell moved")
        return InstanceCell(existingAt: outOfLineCellMemory ?? _getUnsafePointerToStoredProperties(self))
    }

    /// Debug check: the first stored property is where the cell is looked for.
    @usableFromInline
    func inlineCellIsWhereExpected() -> Bool {
        withUnsafeMutablePointer(to: &inlineCellMemory) { UnsafeMutableRawPointer($0) }
            == _getUnsafePointerToStoredProperties(self)
    }

    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        /// The rarely used settings; `nil` until one is set. Set at most once, never cleared (its
        /// factories are called through them unretained: ``unretainedExtras``). Kept
        /// out of `state`, as the one field whose type is generic: in the group it would make the
        /// group generic, and the unspecialized code that makes and copies entries would then copy
        /// it through its metadata. Held there untyped instead, as a second reference it made the
        /// group's initialization an outlined copy and destroy, paid by every registration.
        @usableFromInline var extras: EntryExtras<Service>? {
            didSet { assert(oldValue == nil && extras != nil, "ServiceEntry: its extras were replaced or cleared") }
        }
        /// What changes after registration (``ServiceEntryState``).
        @usableFromInline var state: ServiceEntryState
    #else
        @exclusivity(unchecked) @usableFromInline var extras: EntryExtras<Service>?
        @exclusivity(unchecked) @usableFromInline var state: ServiceEntryState
    #endif
    /// `throwingFactory != nil`, as one byte in the entry: every general construction asks.
    @usableFromInline let hasThrowingFactory: Bool
    /// Whether ``plainFactory`` is the registration's (else it is ``noPlainFactory()``'s, never called).
    @usableFromInline let hasPlainFactory: Bool
    /// `argumentsKey != noArgumentsKey`, as one byte: cycle detection asks on every construction.
    @usableFromInline let takesArguments: Bool
    /// What kind of registration this is: its general path refuses a main-actor one off the main
    /// actor, and its slots never keep its cell for the inlined hit (``directCell(forKeyOf:)``).
    @usableFromInline let kind: RegistrationKind

    /// The factory of a registration with arguments: it reads them from a pointer to their tuple,
    /// so the resolution path never needs the argument types' metadata.
    @usableFromInline var argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)? { extras?.argumentFactory }
    /// A factory that may throw, with or without arguments. Kept apart from the two above so that
    /// a factory that cannot throw is called with no error handling at all: in a debug build that
    /// handling costs stack on every level of a deep chain.
    @usableFromInline var throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)? {
        extras?.throwingFactory
    }
    @usableFromInline var argumentTypeNames: () -> [String] { extras?.argumentTypeNames ?? { [] } }
    /// The argument part of this registration's key (see ``argumentsKey(_:)``).
    @inlinable var argumentsKey: UInt { extras?.argumentsKey ?? noArgumentsKey }
    @inlinable var keptGeneration: Int {
        @inline(__always) get { Int(state.keptGeneration) }
        @inline(__always) set { state.keptGeneration = UInt32(truncatingIfNeeded: newValue) }
    }
    @inlinable var factoryFrame: Int {
        @inline(__always) get { Int(state.factoryFrame) }
        @inline(__always) set { state.factoryFrame = Int32(truncatingIfNeeded: newValue) }
    }
    /// A built-in scope (one of `ObjectScope`'s statics, the only scopes of their kinds) is not
    /// stored but named by its kind: an entry in one retains and releases no scope. A custom
    /// scope, which few registrations use, is kept in the extras.
    @usableFromInline var scope: ObjectScopeProtocol {
        switch state.setKind {
        case .transient: ObjectScope.transient
        case .graph: ObjectScope.graph
        case .container: ObjectScope.container
        case .weak: ObjectScope.weak
        case .custom: extras!.state.customScope!
        }
    }
    @inlinable var instanceCount: Int {
        @inline(__always) get { state.instanceCount }
        @inline(__always) set { state.instanceCount = newValue }
    }
    /// How the path keeps this entry's instances; set only by ``setScope(_:keptAs:)`` (and, for a
    /// validation's duration, ``setKindWhileValidating(_:)``).
    @inlinable @inline(__always) var scopeKind: ObjectScope.Kind { state.scopeKind }

    /// The one writer of the entry's scope after `init`: the scope as set (``scope``), how the
    /// path keeps its instances (``scopeKind``, and a custom scope's ``storage``, which the cell
    /// notes), and the plan derived from them, all at once, so none of them can disagree.
    func setScope(_ scope: ObjectScopeProtocol, keptAs kept: (kind: ObjectScope.Kind, storage: InstanceStorage?)) {
        // A built-in kind's scope is that kind's static: stored only to clear a custom one.
        if kept.kind == .custom || extras != nil { madeExtras.state.customScope = kept.kind == .custom ? scope : nil }
        state.setKind = kept.kind
        setKeeping(kept.kind, storage: kept.storage)
    }

    /// ``setScope(_:keptAs:)`` without the scope, for an async entry: its scope is its
    /// registration's (``AsyncServiceEntry``), and the entry reads what the registration built.
    @inline(__always)
    func setKeeping(_ kind: ObjectScope.Kind, storage: InstanceStorage?) {
        state.scopeKind = kind
        self.storage = storage
        updatePlan()
    }

    /// `validate()` resolves every scope but `.transient` as `.graph`, then sets the kind back:
    /// what the real scopes keep is left alone.
    @usableFromInline
    func setKindWhileValidating(_ kind: ObjectScope.Kind) {
        state.scopeKind = kind
        updatePlan()
    }
    @inlinable var hasInitCompletedActions: Bool {
        @inline(__always) get { state.hasInitCompletedActions }
        set {
            state.hasInitCompletedActions = newValue
            updatePlan()
        }
    }

    /// The extras of an entry that has them, unretained, to call a factory of theirs with no
    /// retain of the extras or of the factory's captures (release builds). Sound while the entry
    /// lives: the extras are set at most once and never cleared, and the factories are constants
    /// of theirs. A caller keeps the entry alive for the call: the general path holds it, and the
    /// planned path's invariant keeps an entry whose factory runs (``Container/resolvePlannedConstruction(_:cell:)``).
    @inline(__always)
    var unretainedExtras: Unmanaged<EntryExtras<Service>> { Unmanaged.passUnretained(extras.unsafelyUnwrapped) }

    /// The extras, made now if they were not.
    var madeExtras: EntryExtras<Service> {
        if extras == nil { extras = EntryExtras<Service>() }
        return extras!
    }

    /// A custom scope's storage (`nil` for the built-in scopes); set with the scope
    /// (``setScope(_:keptAs:)``).
    @usableFromInline private(set) var storage: InstanceStorage? {
        get { extras?.state.storage }
        set {
            if newValue != nil || extras != nil { madeExtras.state.storage = newValue }
            cell.entryHasStorage = newValue != nil
        }
    }
    /// The `initCompleted` actions, each taking a pointer to the new instance: an array of a
    /// non-generic function type, so making an entry and running them needs no metadata lookup.
    var initCompletedActions: [(Resolver, UnsafeRawPointer) -> Void] {
        get { extras?.state.initCompletedActions ?? [] }
        set { madeExtras.state.initCompletedActions = newValue }
    }
    /// The instance `.weak` shares while someone else holds it.
    var weakInstance: AnyObject? {
        get { extras?.state.weakInstance }
        set { if newValue != nil || extras != nil { madeExtras.state.weakInstance = newValue } }
    }

    /// Runs a change of settings under the hierarchy's mutex, as every change to a container: the
    /// entry may be resolved on other threads as soon as it is in the table.
    func changingSettings(_ change: () -> Void) -> Self {
        link.hierarchy.withChange(Service.self, call: "a setting of the registration of", change)
        return self
    }

    /// Inlinable, so the caller (usually the inlinable `register`) allocates the entry with its
    /// cached metadata instead of asking the runtime for `ServiceEntry<Service>` each time.
    @inlinable
    init(
        serviceType: Any.Type,
        argumentsType: Any.Type = (any Resolver).self,
        argumentsKey: UInt = noArgumentsKey,
        name: String?,
        container: Container,
        argumentTypeNames: @escaping () -> [String] = { [] },
        plainFactory: ((Resolver) -> Service)? = nil,
        argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)? = nil,
        throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)? = nil,
        kind: RegistrationKind = .plain
    ) {
        let inline = InstanceCell.isReference(Service.self)
        outOfLineCellMemory = inline ? nil : InstanceCell.allocateMemory(for: Service.self)
        self.serviceType = serviceType
        self.name = name
        self.link = container.link
        self.plainFactory = plainFactory ?? noPlainFactory()
        self.hasPlainFactory = plainFactory != nil
        self.hasThrowingFactory = throwingFactory != nil
        self.takesArguments = argumentsKey != noArgumentsKey
        self.kind = kind
        if kind == .mainActor { container.hierarchy.diagnostics.noteMainActorEntry() }
        let hasArgumentTypes = ObjectIdentifier(argumentsType) != ObjectIdentifier((any Resolver).self)
        if argumentFactory != nil || throwingFactory != nil || takesArguments || hasArgumentTypes {
            extras = EntryExtras(
                argumentsType: argumentsType, argumentsKey: argumentsKey, argumentTypeNames: argumentTypeNames,
                argumentFactory: argumentFactory, throwingFactory: throwingFactory)
        }
        // How a new entry in the default scope keeps instances.
        let scopeKind = container.defaultScopeKind
        state = ServiceEntryState(scopeKind: scopeKind)
        let cell = InstanceCell(
            for: Service.self, in: outOfLineCellMemory ?? _getUnsafePointerToStoredProperties(self), isInline: inline)
        // A custom default scope is kept, with a storage for each entry, in the extras, made on that
        // branch alone, so that the other scopes hold no optional scope or storage to release.
        if scopeKind == .custom { setCustomDefaultScope(container.defaultObjectScope) }
        cell.plan = Self.plan(
            scopeKind: scopeKind, hasPlainFactory: plainFactory != nil, hasThrowingFactory: throwingFactory != nil,
            takesArguments: argumentsKey != noArgumentsKey, hasInitCompletedActions: false)
    }

    /// At `init`, in a container whose default scope is custom: records that scope and makes its
    /// storage for this entry.
    @usableFromInline
    func setCustomDefaultScope(_ scope: ObjectScopeProtocol) {
        setScope(scope, keptAs: (.custom, scope.makeStorage()))
    }

    /// Writes to the cell which construction the inlinable path may run itself (see
    /// ``InstanceCell/plan``): called whenever the scope, the `initCompleted` actions or (at init)
    /// the factories are set, so the cell never says more than the entry allows.
    @inlinable @inline(__always)
    func updatePlan() {
        cell.plan = Self.plan(
            scopeKind: scopeKind, hasPlainFactory: hasPlainFactory, hasThrowingFactory: hasThrowingFactory,
            takesArguments: takesArguments, hasInitCompletedActions: hasInitCompletedActions)
    }

    /// The plan of an entry with these settings (``updatePlan()``). `init` passes its own
    /// arguments, which the caller it is specialized in knows, rather than reading back the
    /// fields it has just written.
    @inlinable @inline(__always)
    static func plan(
        scopeKind: ObjectScope.Kind, hasPlainFactory: Bool, hasThrowingFactory: Bool, takesArguments: Bool,
        hasInitCompletedActions: Bool
    ) -> UInt8 {
        // A plain factory, or a throwing one without arguments (the planned path calls it out of line).
        let plain = (hasPlainFactory || (hasThrowingFactory && !takesArguments)) && !hasInitCompletedActions
        return switch scopeKind {
        case .transient where plain: InstanceCell.planTransient
        case .graph where plain: InstanceCell.planGraph
        default: InstanceCell.planGeneral
        }
    }

    deinit {
        // An inline cell that holds nothing has nothing to release, and its memory goes with the
        // entry: the common case skips the call.
        let cell = cell
        if outOfLineCellMemory != nil || cell.hasInstance || cell.graphSlotIsOccupied { cell.deallocate(Service.self) }
    }

    /// The cell a table slot under a key of type `Key` keeps for the inlined path (a `.container`
    /// hit, a planned construction), or `nil`: only where the key's type is this entry's static
    /// `Service`, the type the cell stores, and not for a main-actor registration (it must be
    /// checked by its general path on every resolution, a hit included). An async entry's cell
    /// never holds an instance (its kind is custom, with no storage: it reads what its registration
    /// built), so the inlined hit passes it to the general path; `resolveAsync` reads its
    /// presence as "this slot's entry is a `ServiceEntry<Service>`". Every insert into a table
    /// asks here.
    @inlinable
    func directCell<Key>(forKeyOf _: Key.Type) -> InstanceCell? {
        kind != .mainActor && Key.self == Service.self ? cell : nil
    }

    @inline(__always) var hasInstance: Bool { cell.hasInstance }
    @inline(__always) var hasGraphInstance: Bool { cell.hasGraphInstance }

    /// The instance kept by `.container`; only while `hasInstance`.
    var instance: Service { cell.instance(as: Service.self) }

    /// The current graph's instance; only while `hasGraphInstance`.
    var graphInstance: Service { cell.graphInstance(as: Service.self) }
    /// Stores the current graph's instance. A value still in the slot (a finished graph's, not yet
    /// released) goes to the hierarchy, released when the resolution is consistent: released here,
    /// its `deinit` would run with this entry holding an instance not yet on the graph's list.
    @inline(__always)
    func setGraphInstance(_ made: Service, in hierarchy: SharedState) {
        if cell.graphSlotIsOccupied { displaceGraphSlot(in: hierarchy) }
        cell.setGraphInstance(made)
    }

    @inline(never)
    func displaceGraphSlot(in hierarchy: SharedState) {
        hierarchy.releaseLater(cell.takeGraphSlot(Service.self))
    }

    /// Sets the scope that decides how long resolved instances are kept. Any kept instance is dropped.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Sets a custom scope that decides how long resolved instances are kept.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScopeProtocol) -> Self {
        if let asyncRegistration {
            asyncRegistration.setScope(objectScope)  // kept by the registration, which builds
            return self
        }
        return changingSettings {
            let newStorage = ObjectScope.storage(for: objectScope)  // user code: a custom scope's storage
            let dropped = link.hierarchy.uncheckedSection { () -> (Any?, Any?, InstanceStorage?, ObjectScopeProtocol) in
                let instance: Any? = hasInstance ? cell.moveInstance(Service.self) : nil
                let graphInstance: Any? = hasGraphInstance ? cell.takeGraphSlot(Service.self) : nil
                let replaced = (instance, graphInstance, storage, scope)
                keptGeneration &+= 1
                setScope(objectScope, keptAs: newStorage)
                weakInstance = nil
                return replaced
            }
            withExtendedLifetime(dropped) {}  // released once the entry is consistent
        }
    }

    /// Adds an action run after each new instance is created and stored in its scope, before the
    /// instance is returned: the place for property injection and circular dependencies.
    /// Several actions run in the order they were added.
    @discardableResult
    public func initCompleted(_ completed: @escaping (Resolver, Service) -> Void) -> Self {
        if let asyncRegistration {
            // No instance made here to run it on: not run, and the log says so once per action. Any
            // thread may configure: the message is held, delivered unlocked.
            link.hierarchy.withLock {
                link.hierarchy.log {
                    "Graft: initCompleted on \(asyncRegistration.label), an async service, is not run: do that work "
                        + "in its async factory."
                }
            }
            return self
        }
        return changingSettings {
            initCompletedActions.append { resolver, instance in
                completed(resolver, instance.assumingMemoryBound(to: Service.self).pointee)
            }
            hasInitCompletedActions = true
        }
    }

}

/// What changes in a ``ServiceEntry`` after registration. Touched by one thread at a time (a plain
/// container's contract), or under the hierarchy's mutex (every change to settings), and read by
/// inlinable code in other modules, where each access would be a dynamic exclusivity check: the
/// entry's field is unchecked in release builds, and debug builds keep the checks. Not generic (not
/// nested in the entry), so unspecialized code copies and destroys it without metadata. The
/// one-byte fields last: the entry's own one-byte fields follow them.
@usableFromInline
struct ServiceEntryState {
    /// Counts what this entry's scope has kept: each new kept instance, reset or change of scope
    /// moves it on, so undoing a failed request drops an instance only if it is still the one that
    /// request kept. (32 bits, wrapping: it is only compared for equality with a recent value.)
    @usableFromInline var keptGeneration: UInt32 = 0
    /// Index of this entry's innermost running factory in the resolution's frame stack (`ResolutionState.stack`), or -1 (the
    /// stack is at most `SharedState.maximumDepth` deep, so 32 bits are plenty).
    @usableFromInline var factoryFrame: Int32 = -1
    /// Instances this entry's factory made (for `Container.registrations`).
    @usableFromInline var instanceCount = 0
    /// How the path keeps this entry's instances, the kind of ``scope``; set through
    /// ``ServiceEntry/setScope(_:keptAs:)`` (or ``ServiceEntry/setKindWhileValidating(_:)``, and
    /// an async entry's ``ServiceEntry/setKeeping(_:storage:)``), which updates the plan.
    @usableFromInline var scopeKind: ObjectScope.Kind
    /// Set through ``ServiceEntry/hasInitCompletedActions``, which updates the plan.
    @usableFromInline var hasInitCompletedActions = false
    /// The kind of the scope as set (``ServiceEntry/scope``), which names a built-in one: the kind
    /// ``scopeKind`` changes without the scope while a validation runs, and for an async entry.
    @usableFromInline var setKind: ObjectScope.Kind

    @inlinable
    init(scopeKind: ObjectScope.Kind) {
        self.scopeKind = scopeKind
        self.setKind = scopeKind
    }
}

/// The ``ServiceEntry/plainFactory`` of an entry without one: every call of it is preceded by a
/// test of ``ServiceEntry/hasPlainFactory``, so it is never called. A closure literal of the
/// generic type would be a context allocated for each such registration; in release builds it is
/// one closure, made once, of a type whose calls differ from the field's only in the result,
/// which a call that stops never writes. Debug builds store a closure of the field's own type,
/// which stops if called.
@inlinable
func noPlainFactory<Service>() -> (Resolver) -> Service {
    #if DEBUG
        return { _ in fatalError("ServiceEntry: the plain factory of an entry without one was called") }
    #else
        return unsafeBitCast(neverCalledPlainFactory as (Resolver) -> Never, to: ((Resolver) -> Service).self)
    #endif
}

@usableFromInline
func neverCalledPlainFactory(_: Resolver) -> Never {
    fatalError("ServiceEntry: the plain factory of an entry without one was called")
}
