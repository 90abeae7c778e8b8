// Graft — MIT License.

extension Container {
    /// Registers how to make `serviceType`, optionally under a name.
    ///
    /// Registering the same type, name and argument types again replaces the earlier registration.
    ///
    /// ```swift
    /// container.register(Animal.self) { _ in Cat() }
    /// container.register(Animal.self, name: "dog") { _ in Dog() }
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - factory: Makes the service from a resolver, for its dependencies. It may capture state:
    ///     the container calls it on one thread at a time, or under the hierarchy's mutex
    ///     through ``synchronize()``.
    /// - Returns: The registration, to chain ``ServiceEntry/inObjectScope(_:)-(ObjectScope)`` and
    ///   ``ServiceEntry/initCompleted(_:)``.
    @inlinable  // specialized in the caller, so making the entry needs no runtime metadata lookup
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver) -> Service
    ) -> ServiceEntry<Service> {
        add(ServiceEntry(serviceType: serviceType, name: name, container: self, plainFactory: factory))
    }

    /// Registers how to make `serviceType` from arguments given to `resolve`.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name in Cat(name: name) }
    /// let cat = container.resolve(Animal.self, argument: "Mimi")
    /// ```
    ///
    /// The argument types are part of the registration's identity: resolving with other types, or
    /// another number of arguments, does not find it.
    @inlinable
    @discardableResult
    public func register<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, repeat each Argument) -> Service
    ) -> ServiceEntry<Service> {
        let key = argumentsKey(repeat (each Argument).self)
        let readArguments: (Resolver, UnsafeRawPointer) -> Service = { callFactory(factory, $0, $1) }
        // An empty pack (generic code can make one) keys as "no arguments", which the path
        // resolves without an argument pointer: such a factory is a plain one.
        let isPlain = key == noArgumentsKey
        return add(
            ServiceEntry(
                serviceType: serviceType, argumentsType: (any Resolver, repeat each Argument).self,
                argumentsKey: key, name: name, container: self,
                argumentTypeNames: { typeNames(repeat (each Argument).self) },
                plainFactory: isPlain ? { resolver in withUnsafePointer(to: ()) { readArguments(resolver, $0) } } : nil,
                argumentFactory: isPlain ? nil : readArguments))
    }

    /// Registers a factory that may throw: `resolve` then returns `nil` (and logs the error), and
    /// ``Resolver/require(_:name:)`` throws ``ResolutionError/Reason/factoryFailed(_:)`` with the
    /// error and the path. Nothing made by the failed resolution is kept, in any scope.
    ///
    /// ```swift
    /// container.register(Repository.self) { r in try Repository(database: r.require(Database.self)) }
    /// ```
    @inlinable
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver) throws -> Service
    ) -> ServiceEntry<Service> {
        add(
            ServiceEntry(
                serviceType: serviceType, name: name, container: self,
                throwingFactory: { resolver, _ in try factory(resolver) }))
    }

    /// Registers a factory that takes arguments and may throw; see the throwing `register(_:name:factory:)` above.
    @inlinable
    @discardableResult
    public func register<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (Resolver, repeat each Argument) throws -> Service
    ) -> ServiceEntry<Service> {
        add(
            ServiceEntry(
                serviceType: serviceType, argumentsType: (any Resolver, repeat each Argument).self,
                argumentsKey: argumentsKey(repeat (each Argument).self), name: name, container: self,
                argumentTypeNames: { typeNames(repeat (each Argument).self) },
                throwingFactory: { try callFactory(factory, $0, $1) }))
    }

    /// Runs `registrations` under one hold of the hierarchy's mutex, and returns its result: what
    /// it registers, with every setting chained on each registration, becomes visible to other
    /// threads whole. Every change to a container takes the mutex, but a chained setting takes it
    /// on its own, after `register` has returned: a thread resolving in between would get the
    /// registration without it.
    ///
    /// ```swift
    /// view.registerAtomically { container in
    ///     container.register(Settings.self) { _ in Settings() }
    ///         .inObjectScope(.container)
    ///         .initCompleted { _, settings in settings.load() }
    /// }
    /// ```
    ///
    /// A setting chained later on a registration other threads already resolve takes the mutex
    /// and applies to the resolutions that start after it; an instance a scope already keeps is
    /// dropped by a new scope, and kept by a new `initCompleted` action, which runs only on
    /// instances made from then on. `registrations` must not wait for another thread that uses
    /// this hierarchy: that thread would wait for the mutex.
    ///
    /// - Parameter registrations: Registers, given this container (or view).
    @discardableResult
    public final func registerAtomically<Result>(_ registrations: (Container) throws -> Result) rethrows -> Result {
        try onContainer(changing: "registerAtomically", batch: true) { _ in try registrations(self) }
    }

    /// Inlinable, so that turning the entry into a table entry uses the caller's cached metadata.
    @inlinable @inline(__always)
    func add<Service>(_ entry: ServiceEntry<Service>) -> ServiceEntry<Service> {
        // Not `onContainer` here: its closures, specialized in the caller for each service type,
        // would be two more arguments of every copy of `register` the optimizer merges.
        if isView { return addThroughView(entry) }
        // Under the hierarchy's mutex, as every change: the entry enters the table and the
        // behaviors hear of it under one hold. Inside an assembler's hold, nothing more to take.
        guard Platform.threadValue(changeMark.key) == changeMark.hierarchy else { return addHoldingChanges(entry) }
        #if DEBUG
            hierarchy.assertMarkedThreadHoldsChanges()
        #endif
        insert(entry, as: Service.self, name: entry.name)
        return entry
    }

    /// ``add(_:)`` by a thread that does not hold the hierarchy's changes: under the mutex, out of
    /// line. Inlinable, so it is specialized for the service as `add` is.
    @inlinable @inline(never)
    func addHoldingChanges<Service>(_ entry: ServiceEntry<Service>) -> ServiceEntry<Service> {
        let outerThread = hierarchy.lockForChange(Service.self)
        insert(entry, as: Service.self, name: entry.name)
        hierarchy.unlockAfterChange(outerThread)
        return entry
    }

    /// ``add(_:)`` on a view, out of line.
    @usableFromInline
    func addThroughView<Service>(_ entry: ServiceEntry<Service>) -> ServiceEntry<Service> {
        onContainer(registering: "register(\(Service.self).self)") { $0.add(entry) }
    }

    /// Puts `entry` in the table under the key of `Key` and `name`, then tells this container's
    /// behaviors that `type` resolves through it: the entry is finished first, since a behavior is
    /// application code and may copy or resolve the registration it is told about. `Key` is its
    /// own service type or a type forwarded to it; a registration is keyed by the static `Service`,
    /// not `entry.serviceType` (the metatype value passed, which may be a subclass): the fast path
    /// returns the cell's contents as the key's type. The slot keeps the entry's cell for the
    /// inlined hit where `Key` is the entry's own service type (a type forwarded to its own
    /// registration under another name).
    @inlinable @inline(__always)
    func insert<Key, Service>(_ entry: ServiceEntry<Service>, as type: Key.Type, name: String?) {
        hierarchy.assertUserCodeMayRun("a registration")
        let key = ServiceKey(service: Key.self, arguments: entry.argumentsKey, name: name)
        services.insert(entry, for: key, directCell: entry.directCell(forKeyOf: Key.self))
        if parent != nil { noteChildRegistration(key, of: entry) }
        if !state.behaviors.isEmpty { tellBehaviors(about: type, registeredAs: entry, name: name) }
    }

    /// Tells this container's behaviors that `type` under `name` resolves through `entry` (a
    /// registration, or a forward).
    @usableFromInline
    func tellBehaviors<Type, Service>(about type: Type.Type, registeredAs entry: ServiceEntry<Service>, name: String?) {
        for behavior in state.behaviors {
            behavior.container(self, didRegisterType: type, toService: entry, withName: name)
        }
    }

    /// Tells the hierarchy about a registration of `entry` under `key` in this child container, for
    /// failure messages in other containers (which never read a child's table: it may be filled on
    /// another thread).
    @usableFromInline
    func noteChildRegistration(_ key: ServiceKey, of entry: AnyServiceEntry) {
        hierarchy.noteChildRegistration(
            ChildRegistration(
                key: key, argumentTypeNames: entry.argumentTypeNames,
                lineage: selfAndAncestors.map(ObjectIdentifier.init)))
    }
}

/// Calls `factory` with the argument tuple at `arguments`. The resolution path passes a pointer to
/// exactly this tuple type (the registration's key includes it), and the placeholder address only
/// for a tuple of zero size, which is never read.
@inlinable @inline(__always)
func callFactory<Service, each Argument>(
    _ factory: (Resolver, repeat each Argument) throws -> Service, _ resolver: Resolver, _ arguments: UnsafeRawPointer
) rethrows -> Service {
    assert(
        arguments != zeroSizedArguments || MemoryLayout<(repeat each Argument)>.size == 0,
        "Graft: no argument tuple passed to a factory that takes \((repeat each Argument).self)")
    let values = arguments.assumingMemoryBound(to: (repeat each Argument).self).pointee
    return try factory(resolver, repeat each values)
}
