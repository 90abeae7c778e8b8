// Graft — MIT License.

/// Holds registrations and resolves services from them.
///
/// A `Container` is for one thread at a time and takes no lock: register at start-up, then hand
/// worker threads the view ``synchronize()`` returns, which runs every call under the hierarchy's
/// recursive mutex.
///
/// ```swift
/// let container = Container()
/// container.register(Logger.self) { _ in ConsoleLogger() }.inObjectScope(.container)
/// container.register(UserRepository.self) { r in UserRepository(logger: r.resolve(Logger.self)!) }
/// let repository = container.resolve(UserRepository.self)
/// ```
///
/// A child container sees its parent's registrations; its own override the parent's for the child
/// only, and the parent never sees the child's.
public final class Container {
    let parent: Container?
    let hierarchy: Hierarchy
    @usableFromInline let defaultObjectScope: ObjectScopeProtocol
    /// The default scope's kind, worked out once rather than per registration.
    private let defaultScopeKind: ObjectScope.Kind
    @usableFromInline let services = RegistrationTable()
    @usableFromInline private(set) var behaviors: [Behavior] = []
    /// How entries, `Lazy` and `Provider` reach this container, and learn that it is gone.
    @usableFromInline private(set) var link: ContainerLink!

    /// Makes a container.
    ///
    /// - Parameters:
    ///   - parent: A container whose registrations this one falls back to.
    ///   - defaultObjectScope: The scope of registrations that do not set one (``ObjectScope/graph``).
    ///   - behaviors: Behaviors told about each registration made in this container.
    ///   - registeringClosure: Registers services in the new container.
    public init(
        parent: Container? = nil,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [Behavior] = [],
        registeringClosure: (Container) -> Void = { _ in }
    ) {
        self.parent = parent
        self.hierarchy = parent?.hierarchy ?? Hierarchy()
        self.defaultObjectScope = defaultObjectScope
        self.defaultScopeKind = defaultObjectScope.kind
        link = ContainerLink(self, hierarchy: hierarchy)
        behaviors.forEach(addBehavior)
        registeringClosure(self)
    }

    deinit {
        link.containerIsGone()
    }

    /// How a new entry in the default scope keeps instances (a custom default makes a storage each).
    @usableFromInline
    func defaultScopeStorage() -> (ObjectScope.Kind, InstanceStorage?) {
        defaultScopeKind == .custom ? (.custom, defaultObjectScope.makeStorage()) : (defaultScopeKind, nil)
    }

    /// Removes every registration of this container (its parent's stay).
    public func removeAll() {
        services.removeAll()
    }

    /// Drops the instances kept by `objectScope` in this container and its ancestors, so the next
    /// resolution creates new ones.
    public func resetObjectScope(_ objectScope: ObjectScope) {
        resetObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Drops the instances kept by a custom `objectScope` in this container and its ancestors.
    public func resetObjectScope(_ objectScope: ObjectScopeProtocol) {
        resetEntries { _, entry in entry.objectScope === objectScope }
    }

    /// Drops the instances of `serviceType` kept by `objectScope` in this container and its ancestors.
    public func resetObjectScope(_ objectScope: ObjectScope, serviceType: Any.Type) {
        resetObjectScope(objectScope as ObjectScopeProtocol, serviceType: serviceType)
    }

    /// Drops the instances of `serviceType` kept by a custom `objectScope` here and in ancestors.
    public func resetObjectScope(_ objectScope: ObjectScopeProtocol, serviceType: Any.Type) {
        let service = ObjectIdentifier(serviceType)
        resetEntries { key, entry in key.service == service && entry.objectScope === objectScope }
    }

    /// Walks a copy of each table: a `deinit` run by a reset may register or remove.
    private func resetEntries(where matches: (ServiceKey, AnyServiceEntry) -> Bool) {
        var container: Container? = self
        while let current = container {
            for (key, entry) in current.services.registrations where matches(key, entry) {
                entry.resetKeptInstance()
            }
            container = current.parent
        }
    }

    /// Adds a behavior, told about every registration made in this container from now on.
    public func addBehavior(_ behavior: Behavior) {
        behaviors.append(behavior)
    }

    /// Whether `serviceType` is registered under `name` (with any arguments) here or in an ancestor.
    public func hasAnyRegistration<Service>(of serviceType: Service.Type, name: String? = nil) -> Bool {
        let service = ObjectIdentifier(serviceType)
        var container: Container? = self
        while let current = container {
            if current.services.registrations.contains(where: { $0.key.service == service && $0.key.name == name }) {
                return true
            }
            container = current.parent
        }
        return false
    }

    /// A thread-safe view of this container: same registrations, same instances, every call under
    /// the recursive mutex shared by this container's whole hierarchy.
    ///
    /// ```swift
    /// let resolver = container.synchronize()
    /// Thread { _ = resolver.resolve(Database.self) }
    /// ```
    public func synchronize() -> SynchronizedResolver {
        SynchronizedResolver(container: self)
    }

    /// Resolves inside the graph `identifier`: graph-scoped instances made by `closure`'s
    /// resolutions are shared with each other, as within one top-level `resolve`.
    public func withObjectGraph<T>(_ identifier: GraphIdentifier, closure: (Container) throws -> T) rethrows -> T {
        try hierarchy.withGraph(identifier) { try closure(self) }
    }

    /// The graph being resolved, or `nil` between resolutions.
    public var currentObjectGraph: GraphIdentifier? {
        hierarchy.escapedGraph
    }
}

extension Container: CustomStringConvertible {
    /// This container's own registrations, one per line, sorted.
    public var description: String {
        let lines = services.registrations.map { "    { \($0.entry.entryDescription(for: $0.key)) }" }.sorted()
        return lines.isEmpty ? "[\n]" : "[\n" + lines.joined(separator: ",\n") + "\n]"
    }
}
