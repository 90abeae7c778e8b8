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
///
/// Not open: the only subclass is ``SynchronizedResolver``, the view ``synchronize()`` returns.
/// Every member is `final`, so calls from other modules are direct and inlinable.
public class Container {
    @usableFromInline final let parent: Container?
    @usableFromInline final let hierarchy: SharedState
    @usableFromInline final let defaultObjectScope: ObjectScopeProtocol
    /// The default scope's kind, worked out once rather than per registration.
    @usableFromInline final let defaultScopeKind: ObjectScope.Kind
    @usableFromInline final let services: RegistrationTable
    /// What registering changes in a container. Touched by one thread at a time (a container's
    /// contract; a view's calls hold the hierarchy's mutex), and read on every registration, where
    /// a dynamic exclusivity check on each access is a measurable share of its cost: unchecked in
    /// release builds, checked in debug builds.
    @usableFromInline
    struct State {
        /// Told about each registration made in this container; added to only in this file.
        @usableFromInline var behaviors: [Behavior] = []
        /// How entries, `Lazy` and `Provider` reach this container, and learn that it is gone. Set
        /// once, by `init`.
        @usableFromInline var link: ContainerLink!
    }
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        @usableFromInline final var state = State()
    #else
        @exclusivity(unchecked) @usableFromInline final var state = State()
    #endif
    /// How entries, `Lazy` and `Provider` reach this container (``State/link``).
    @inlinable final var link: ContainerLink { state.link }
    /// For a synchronized view, the container it views (which holds the registrations); `nil` for a
    /// plain container. Every public member of a view takes the hierarchy's mutex, then runs on
    /// this container: one test of this field is all a plain container pays for the view.
    @usableFromInline final let viewed: Container?
    /// The hierarchy's mark for a thread that holds its changes, and the key it is kept under
    /// (``SharedState/withChange(_:call:batch:_:)``), copied here so a registration asks without retaining the
    /// hierarchy around the call. Compared, never dereferenced.
    @usableFromInline final let changeMark: (key: Platform.ThreadKey, hierarchy: UnsafeMutableRawPointer)

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
        // A view as parent stands for the container it views: walks up the hierarchy then meet only
        // containers that hold registrations (a view's own lists are always empty).
        let parent = parent.map { $0.viewed ?? $0 }
        stopUnless(
            parent?.hierarchy.isUnboundPlaceholder != true,
            "Graft: Container(parent: SynchronizedResolver.current) with no resolver bound: the child would join an "
                + "empty, process-wide hierarchy. " + ResolverBinding.howToBind)
        self.parent = parent
        self.hierarchy = parent?.hierarchy ?? SharedState()
        self.defaultObjectScope = defaultObjectScope
        self.defaultScopeKind = defaultObjectScope.kind
        self.services = RegistrationTable(in: hierarchy)
        self.viewed = nil
        self.changeMark = (hierarchy.heldChangesKey, Unmanaged.passUnretained(hierarchy).toOpaque())
        state.link = ContainerLink(self, hierarchy: hierarchy)
        // Noted for validation, which puts every live table back; forgotten when the container ends.
        hierarchy.mutex.withLock { hierarchy.diagnostics.tables[ObjectIdentifier(services)] = services }
        behaviors.forEach(addBehavior)
        registeringClosure(self)
    }

    /// Makes a synchronized view of `container`: it shares the table, parent, hierarchy and link,
    /// so a child made with the view as parent sees the same registrations.
    init(viewing container: Container) {
        let viewed = container.viewed ?? container
        self.parent = viewed.parent
        self.hierarchy = viewed.hierarchy
        self.defaultObjectScope = viewed.defaultObjectScope
        self.defaultScopeKind = viewed.defaultScopeKind
        self.services = viewed.services
        self.viewed = viewed
        self.changeMark = viewed.changeMark
        state.link = viewed.link
    }

    deinit {
        // A view shares its container's link. A child's end forgets the records of its
        // registrations that its hierarchy keeps for failure messages.
        if !isView { link.containerIsGone(with: services, asChild: parent == nil ? nil : ObjectIdentifier(self)) }
    }

    /// Removes every registration of this container (its parent's stay).
    public final func removeAll() {
        onContainer(changing: "removeAll()") { container in
            // The records go first: a `deinit` the removal runs may register again, and is noted.
            // The change holds the mutex that guards them.
            if container.parent != nil {
                container.hierarchy.diagnostics.childRegistrations.forget(
                    [ObjectIdentifier(container)], services: container.services.serviceTypes)
            }
            container.hierarchy.keepEntriesWhileResolving(container.services)
            container.services.replaceAll(with: [])
        }
    }

    /// Drops the instances kept by `objectScope` in this container and its ancestors, so the next
    /// resolution creates new ones.
    public final func resetObjectScope(_ objectScope: ObjectScope) {
        resetObjectScope(objectScope as ObjectScopeProtocol)
    }

    /// Drops the instances kept by a custom `objectScope` in this container and its ancestors.
    public final func resetObjectScope(_ objectScope: ObjectScopeProtocol) {
        onContainer(changing: "resetObjectScope") { $0.resetEntries(keptBy: objectScope, service: nil) }
    }

    /// Drops the instances of `serviceType` kept by `objectScope` in this container and its ancestors.
    public final func resetObjectScope(_ objectScope: ObjectScope, serviceType: Any.Type) {
        resetObjectScope(objectScope as ObjectScopeProtocol, serviceType: serviceType)
    }

    /// Drops the instances of `serviceType` kept by a custom `objectScope` here and in ancestors.
    public final func resetObjectScope(_ objectScope: ObjectScopeProtocol, serviceType: Any.Type) {
        onContainer(changing: "resetObjectScope") {
            $0.resetEntries(keptBy: objectScope, service: ObjectIdentifier(serviceType))
        }
    }

    /// `resetObjectScope` on the container that holds the registrations: the entries of `service`
    /// (of every service if `nil`) kept by `objectScope`. Walks a copy of each table: a `deinit`
    /// run by a reset may register or remove. A reset by a factory that `validate()` runs drops
    /// nothing: the validation's instances live in its graph and go at its end, and the instances
    /// kept before it must be there after it.
    private final func resetEntries(keptBy objectScope: ObjectScopeProtocol, service: ObjectIdentifier?) {
        guard !hierarchy.diagnostics.isValidating else { return }
        for container in selfAndAncestors {
            for (key, entry) in container.services.registrations
            where (service == nil || key.service == service) && entry.objectScope === objectScope {
                entry.resetKeptInstance()
            }
        }
    }

    /// Adds a behavior, told about every registration made in this container from now on.
    public final func addBehavior(_ behavior: Behavior) {
        // Through a view, the registrations' gate: refused on the unbound placeholder, where the
        // behavior would be kept for the process and never told anything.
        onContainer(changing: "addBehavior") { $0.state.behaviors.append(behavior) }
    }

    /// Whether `serviceType` is registered under `name` (with any arguments) here or in an ancestor.
    public final func hasAnyRegistration<Service>(of serviceType: Service.Type, name: String? = nil) -> Bool {
        onContainerLocked { container in
            let service = ObjectIdentifier(serviceType)
            return container.selfAndAncestors.contains { level in
                level.services.containsKey { $0.service == service && $0.name == name }
            }
        }
    }

    /// A thread-safe view of this container: same registrations, same instances, every call under
    /// the recursive mutex shared by this container's whole hierarchy.
    ///
    /// ```swift
    /// let resolver = container.synchronize()
    /// Thread { _ = resolver.resolve(Database.self) }
    /// ```
    ///
    /// The view is itself a `Container` (as in Swinject, where code casts it to one), so it can also
    /// register, and its registrations go to this container, under the mutex. Called on a view, it
    /// returns a view of the same container.
    public final func synchronize() -> SynchronizedResolver { onContainer { SynchronizedResolver(container: $0) } }

    /// Resolves inside the graph `identifier`: graph-scoped instances made by `closure`'s
    /// resolutions are shared with each other, as within one top-level `resolve`.
    ///
    /// On a synchronized view the mutex is held for the whole closure, which receives the view.
    public final func withObjectGraph<T>(_ identifier: GraphIdentifier, closure: (Container) throws -> T) rethrows -> T
    {
        // The closure receives this container or view, as a factory does.
        try onContainer { _ in try hierarchy.withGraph(identifier) { try closure(self) } }
    }

    /// The graph being resolved, or `nil` between resolutions.
    public final var currentObjectGraph: GraphIdentifier? { onContainer { $0.hierarchy.resolution.escapedGraph } }
}

extension Container: CustomStringConvertible {
    /// This container's own registrations, one per line, sorted.
    public final var description: String {
        onContainerLocked { container in
            let lines = container.services.registrations.map { "    { \($0.entry.entryDescription(for: $0.key)) }" }
            return lines.isEmpty ? "[\n]" : "[\n" + lines.sorted().joined(separator: ",\n") + "\n]"
        }
    }
}
