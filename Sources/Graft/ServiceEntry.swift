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
    /// The registered service type.
    public let serviceType: Any.Type
    /// The tuple type of the factory's arguments (`Void` for none).
    public let argumentsType: Any.Type
    /// The registration name, or `nil`.
    public let name: String?
    /// The scope instances of this registration live in.
    public var objectScope: ObjectScopeProtocol { scope }
    @usableFromInline var scope: ObjectScopeProtocol

    /// The factory of a registration without arguments, stored as given.
    @usableFromInline let plainFactory: ((Resolver) -> Service)?
    /// The factory of a registration with arguments: it reads them from a pointer to their tuple,
    /// so the resolution path never needs the argument types' metadata.
    @usableFromInline let argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?
    @usableFromInline let argumentCount: Int
    @usableFromInline let argumentTypeNames: () -> [String]
    /// The container registered in, where `implements` adds forwarded types. `unowned`, not
    /// `weak`: a weak reference would give the container a side table and slow every retain of it.
    @usableFromInline unowned let container: Container

    @exclusivity(unchecked) @usableFromInline var scopeKind: ObjectScope.Kind
    @exclusivity(unchecked) @usableFromInline var storage: InstanceStorage?
    /// The `initCompleted` actions, each taking a pointer to the new instance: an array of a
    /// non-generic function type, so making an entry and running them needs no metadata lookup.
    @exclusivity(unchecked) @usableFromInline var initCompletedActions: [(Resolver, UnsafeRawPointer) -> Void] = []
    @exclusivity(unchecked) @usableFromInline var hasInitCompletedActions = false

    /// Where this entry's instances are kept; the registration table keeps a copy of the pointer.
    @usableFromInline let cell = InstanceCell(for: Service.self)
    /// The instance `.weak` shares while someone else holds it.
    @exclusivity(unchecked) @usableFromInline weak var weakInstance: AnyObject?
    /// Index of this entry's running factory in the hierarchy's construction stack, or -1.
    @exclusivity(unchecked) @usableFromInline var factoryFrame = -1
    /// The last graph whose identifier escaped (to a `Lazy`, say) and the instance made in it,
    /// so resolving in that graph again finds the instance while something still holds it.
    @exclusivity(unchecked) @usableFromInline var rememberedGraph: GraphIdentifier?
    @exclusivity(unchecked) @usableFromInline weak var rememberedObject: AnyObject?
    @exclusivity(unchecked) @usableFromInline var remembersAGraph = false

    /// Inlinable, so the caller (usually the inlinable `register`) allocates the entry with its
    /// cached metadata instead of asking the runtime for `ServiceEntry<Service>` each time.
    @inlinable
    init(
        serviceType: Any.Type,
        argumentsType: Any.Type,
        name: String?,
        container: Container,
        argumentCount: Int,
        argumentTypeNames: @escaping () -> [String],
        plainFactory: ((Resolver) -> Service)?,
        argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?
    ) {
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.name = name
        self.container = container
        self.argumentCount = argumentCount
        self.argumentTypeNames = argumentTypeNames
        self.plainFactory = plainFactory
        self.argumentFactory = argumentFactory
        self.scope = container.defaultObjectScope
        (scopeKind, storage) = container.defaultScopeStorage()
    }

    deinit {
        cell.deallocate(Service.self)
    }

    var hasInstance: Bool { cell.hasInstance }
    var hasGraphInstance: Bool { cell.hasGraphInstance }

    /// The instance kept by `.container`; only while `hasInstance`.
    var instance: Service { cell.instance(as: Service.self) }
    func setInstance(_ made: Service) { cell.setInstance(made) }
    func clearInstance() { cell.clearInstance(Service.self) }

    /// The current graph's instance; only while `hasGraphInstance`.
    var graphInstance: Service { cell.graphInstance(as: Service.self) }
    func setGraphInstance(_ made: Service) { cell.setGraphInstance(made) }
    func clearGraphInstance() { cell.clearGraphInstance(Service.self) }

    /// Sets the scope that decides how long resolved instances are kept. Any kept instance is dropped.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Sets a custom scope that decides how long resolved instances are kept.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScopeProtocol) -> Self {
        self.scope = objectScope
        (scopeKind, storage) = ObjectScope.storage(for: objectScope)
        clearInstance()
        clearGraphInstance()
        weakInstance = nil
        return self
    }

    /// Adds an action run after each new instance is created and stored in its scope, before the
    /// instance is returned: the place for property injection and circular dependencies.
    /// Several actions run in the order they were added.
    @discardableResult
    public func initCompleted(_ completed: @escaping (Resolver, Service) -> Void) -> Self {
        initCompletedActions.append { resolver, instance in
            completed(resolver, instance.assumingMemoryBound(to: Service.self).pointee)
        }
        hasInitCompletedActions = true
        return self
    }

}

/// What the container needs of an entry without knowing its service type.
@usableFromInline
protocol AnyServiceEntry: AnyObject {
    var serviceType: Any.Type { get }
    var name: String? { get }
    var objectScope: ObjectScopeProtocol { get }
    var factoryFrame: Int { get }
    /// Resolves this entry as `Requested`: its own service type, or a type it is forwarded to.
    func resolve<Requested>(
        as requested: Requested.Type,
        in container: Container,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) -> Requested?
    /// Drops the instance a finished graph held, remembering it weakly if the graph may come back.
    func endGraph(remembering graph: GraphIdentifier?)
    /// Drops the instance kept by its scope (reset, or a failed resolution being rolled back).
    func dropKeptInstance()
    /// Moves the current graph's instance out, so another graph can be resolved meanwhile.
    func takeGraphInstance() -> Any?
    func restoreGraphInstance(_ instance: Any?)
    /// `{ Service: …, Factory: …, ObjectScope: … }` as in `Container.description`.
    var entryDescription: String { get }
}

extension ServiceEntry: AnyServiceEntry {
    @usableFromInline
    func endGraph(remembering graph: GraphIdentifier?) {
        if let graph, hasGraphInstance, let object = WeakStorage.referenceOrNil(graphInstance) {
            rememberedGraph = graph
            rememberedObject = object
            remembersAGraph = true
        }
        clearGraphInstance()
        storage?.graphResolutionCompleted()
    }

    /// Whether the instance made in the graph being resolved again is still alive; if so it is
    /// the current graph's instance again.
    func recall(in hierarchy: Hierarchy) -> Bool {
        guard let graph = hierarchy.knownGraph, graph == rememberedGraph,
            let object = rememberedObject, let instance = object as? Service
        else { return false }
        setGraphInstance(instance)
        hierarchy.holdsGraphInstance(self)
        return true
    }

    @usableFromInline
    func dropKeptInstance() {
        clearInstance()
        clearGraphInstance()
        weakInstance = nil
        storage?.instance = nil
    }

    @usableFromInline
    func takeGraphInstance() -> Any? {
        guard hasGraphInstance else { return nil }
        defer { clearGraphInstance() }
        return graphInstance
    }

    @usableFromInline
    func restoreGraphInstance(_ instance: Any?) {
        if let instance = instance as? Service { setGraphInstance(instance) } else { clearGraphInstance() }
    }

    @usableFromInline
    var entryDescription: String {
        var text = "Service: \(serviceType)"
        if let name { text += ", Name: \"\(name)\"" }
        let arguments = argumentTypeNames()
        let parameters = arguments.isEmpty ? "Resolver" : "(Resolver, \(arguments.joined(separator: ", ")))"
        text += ", Factory: \(parameters) -> \(serviceType)"
        text += ", ObjectScope: \(objectScope)"
        if !initCompletedActions.isEmpty {
            text += ", InitCompleted: Specified \(initCompletedActions.count) closures"
        }
        return text
    }
}
