// Graft — MIT License.

/// Resolves `Service` on first access to ``instance``, then returns that same instance.
///
/// Ask for it instead of `Service` to delay creation, or to break a cycle:
///
/// ```swift
/// container.register(ReportScreen.self) { r in
///     ReportScreen(exporter: r.resolve(Lazy<PDFExporter>.self)!)  // no PDFExporter made yet
/// }
/// ```
///
/// The instance is resolved in the object graph the `Lazy` was created in, so graph-scoped
/// services that graph made (and that are still alive) are shared with it. A `Lazy` made outside
/// any resolution and first read by a factory resolves in a graph of its own, as a request of its
/// own: a failure of the factory's request does not take back what the `Lazy` keeps. Like Swinject, it keeps
/// the registration found when it was made. Resolving
/// `Lazy<Service>` returns `nil` when nothing is registered for `Service` with that name and
/// those arguments. The name and arguments given when resolving the `Lazy` are used for `Service`.
public final class Lazy<Service> {
    private let access: DeferredAccess<Service>
    private let graph: GraphIdentifier?
    private var resolved: Service?

    init(_ access: DeferredAccess<Service>, graph: GraphIdentifier?) {
        self.access = access
        self.graph = graph
    }

    /// The instance, resolved on first access. Once resolved it is returned from the `Lazy` itself,
    /// even after the container is gone; a first access after that stops with a message.
    ///
    /// A first access that user code re-enters (a `deinit` run at the end of the resolution reads
    /// this `Lazy` again) hands out one instance: the one kept first. For `Lazy<Service?>`, the
    /// `nil` of a registration that failed is not kept: the next access resolves again.
    public var instance: Service {
        access.withLock {
            if let resolved { return resolved }
            let failures = access.failureCount
            // Read inside a resolution, a `Lazy` with no graph of its own (made outside any) still
            // resolves as a request of its own, as `@Injected` does: what it keeps must not be
            // something a failure of the enclosing request rolls back.
            let outcome = access.resolveNow(inGraph: graph ?? access.graphOfItsOwnInsideAResolution(), wrapper: "Lazy")
            // User code run by that resolution (a factory, a `deinit` at its end) may have read
            // this `Lazy` and kept an instance: that first one is everyone's, and `outcome` is
            // released on return.
            if let resolved { return resolved }
            switch outcome {
            case .success(let made):
                if access.mayKeep(failuresBefore: failures, isNone: isNone(made)) { resolved = made }
                return made
            case .failure(let error):
                stop("Graft: Lazy<\(Service.self)>.instance could not be resolved: \(error.descriptionWithoutPrefix)")
            }
        }
    }
}

/// Resolves `Service` anew on every access to ``instance``, as its scope says.
///
/// ```swift
/// container.register(RequestHandler.self) { r in
///     RequestHandler(makeSession: r.resolve(Provider<Session>.self)!)
/// }
/// ```
///
/// Resolving `Provider<Service>` returns `nil` when nothing is registered for `Service` with that
/// name and those arguments.
public final class Provider<Service> {
    private let access: DeferredAccess<Service>

    init(_ access: DeferredAccess<Service>) {
        self.access = access
    }

    /// A new resolution of `Service` (a new instance unless its scope keeps one). Stops with a
    /// message saying why if it cannot be resolved, or if the container is gone.
    ///
    /// Read in a factory, it resolves as part of that factory's resolution: if that resolution
    /// then fails, what it made is not kept by any scope.
    public var instance: Service {
        access.withLock {
            switch access.resolveNow(inGraph: nil, wrapper: "Provider") {
            case .success(let made):
                return made
            case .failure(let error):
                stop(
                    "Graft: Provider<\(Service.self)>.instance could not be resolved: \(error.descriptionWithoutPrefix)"
                )
            }
        }
    }
}

/// What `Lazy` and `Provider` keep to resolve later: the registration found when they were made
/// (as Swinject does, so a later replacement, override or `removeAll()` does not change what they
/// resolve), the container, and whether to go through its mutex.
///
/// The container is reached through its ``ContainerLink``, not held: services holding a `Lazy`
/// often live in that container (a strong reference would be a cycle), and a `Lazy` may outlive
/// it. The link holds the hierarchy, which owns the mutex, so a synchronized `Lazy` can always
/// lock before looking at anything else.
final class DeferredAccess<Service> {
    private let link: ContainerLink
    private let synchronized: Bool
    private let resolve: (Container, Resolver) -> Service?

    private var hierarchy: Hierarchy { link.hierarchy }
    private var container: Container? { link.container }

    /// The failures recorded in this hierarchy so far, for ``mayKeep(failuresBefore:isNone:)``.
    var failureCount: Int { hierarchy.errorCount }

    /// Whether a first access may keep what it resolved (see `mayKeep(failuresBefore:in:isNone:)`).
    func mayKeep(failuresBefore failures: Int, isNone: @autoclosure () -> Bool) -> Bool {
        Graft.mayKeep(failuresBefore: failures, in: hierarchy, isNone: isNone())
    }

    init(container: Container, resolver: Resolver, resolve: @escaping (Container, Resolver) -> Service?) {
        self.link = container.link
        self.synchronized = resolver is SynchronizedResolver
        self.resolve = resolve
    }

    /// Runs `body` under the hierarchy's mutex when made through a synchronized view.
    func withLock<T>(_ body: () -> T) -> T {
        synchronized ? hierarchy.locked(body) : body()
    }

    /// A new graph when a factory of the current request is running (a `Lazy` read by a factory),
    /// else `nil`: read directly in `withObjectGraph`, it resolves in that graph, as any
    /// resolution there does.
    func graphOfItsOwnInsideAResolution() -> GraphIdentifier? {
        hierarchy.isAtRequestBase ? nil : GraphIdentifier()
    }

    /// Resolves now (in `graph` if given), or says why it cannot: the wrapper stops with that
    /// reason, so it is not logged as well. Stops with a message if the container is gone: there
    /// is nothing left to resolve in.
    ///
    /// Without a graph, a resolution in a factory is part of that factory's request; if the
    /// request has failed already, its failure is set aside meanwhile, so the service is resolved
    /// (its own failure is its own) and whatever it keeps is dropped with the request.
    ///
    /// An `Optional` service whose wrapped service is registered and failed is `nil`, logged as
    /// `resolve` logs it, not a reason to stop: an `Optional` asked for is a "maybe".
    func resolveNow(inGraph graph: GraphIdentifier?, wrapper: String) -> Result<Service, ResolutionError> {
        guard let container else {
            stop(
                "Graft: \(wrapper)<\(Service.self)> was accessed after its container was released; "
                    + "keep the container alive as long as the services that hold a \(wrapper)")
        }
        let resolver: Resolver = synchronized ? SynchronizedResolver(container: container) : container
        let errors = hierarchy.errorCount
        let outer = hierarchy.beginCallHandingFailureToCaller()
        let made: Service?
        if let graph {
            made = container.withObjectGraph(graph) { _ in resolve(container, resolver) }
        } else {
            let setAside = hierarchy.setFailureAside()
            made = resolve(container, resolver)
            hierarchy.takeBackFailure(setAside)
        }
        hierarchy.endCallHandingFailureToCaller(outer)
        if let made { return .success(made) }
        let error =
            hierarchy.failure(since: errors)
            ?? ResolutionError(
                .notRegistered, path: hierarchy.path + ["\(Service.self)"],
                message: "Graft: resolution failed: \(Service.self) is not registered (any more).")
        if let absent = hierarchy.absentAfterFailure(of: Service.self, error) { return .success(absent) }
        return .failure(error)
    }
}

extension DeferredAccess: CustomReflectable {
    /// Whether it locks, and nothing of the container: it may be gone, and a `dump` or a debugger
    /// must never load it.
    var customMirror: Mirror {
        Mirror(self, children: ["synchronized": synchronized], displayStyle: .class)
    }
}

/// A type the container makes itself around a registered service: `Optional`, `Lazy`, `Provider`.
protocol ResolutionWrapper {
    /// Wraps the resolution of the wrapped type with `name` and `arguments`, or `nil` when that
    /// cannot be resolved. (`Any?`, not `Self?`, so it can be called on `any ResolutionWrapper.Type`.)
    static func wrap<each Argument>(
        from container: Container,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> Any?
}

extension Container {
    /// What a `Lazy` or `Provider` of `Wrapped` resolves: the registration found now, or, for a
    /// wrapper of a wrapper (`Lazy<Provider<X>>`), the same request made again on access; `nil`
    /// when neither exists.
    func deferredAccess<Wrapped, each Argument>(
        to type: Wrapped.Type,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> DeferredAccess<Wrapped>? {
        let key = ServiceKey(service: Wrapped.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        let values = (repeat each arguments)
        if let slot = slot(for: key), let entry = slot.pointee.entry {
            return DeferredAccess(container: self, resolver: resolver) { container, resolver in
                withUnsafePointer(to: values) { pointer in
                    entry.resolve(
                        as: Wrapped.self, in: container, resolver: resolver, arguments: UnsafeRawPointer(pointer))
                }
            }
        }
        guard Wrapped.self is any ResolutionWrapper.Type else { return nil }
        return DeferredAccess(container: self, resolver: resolver) { container, resolver in
            container.resolveService(Wrapped.self, name: name, resolver: resolver, arguments: repeat each values)
        }
    }
}

/// `Lazy` and `Provider`: wrappers made around a request resolved later.
protocol DeferredWrapper: ResolutionWrapper {
    associatedtype Service
    init(_ access: DeferredAccess<Service>, madeIn container: Container)
}

extension DeferredWrapper {
    static func wrap<each Argument>(
        from container: Container,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> Any? {
        container.deferredAccess(to: Service.self, resolver: resolver, name: name, arguments: repeat each arguments)
            .map { Self($0, madeIn: container) }
    }
}

extension Lazy: DeferredWrapper {
    /// Remembers the graph being resolved, if any, to resolve in it later.
    convenience init(_ access: DeferredAccess<Service>, madeIn container: Container) {
        self.init(access, graph: container.hierarchy.escapedGraph)
    }
}

extension Provider: DeferredWrapper {
    /// Needs nothing of the container: each access is a resolution of its own.
    convenience init(_ access: DeferredAccess<Service>, madeIn container: Container) {
        self.init(access)
    }
}

// Each conformance spells out the requirement's signature: `Optional` resolves now, `Lazy` and
// `Provider` (above) defer.
extension Optional: ResolutionWrapper {
    /// `resolve(Dog?.self)` is `.some(dog)`, or `.some(nil)` when no `Dog` can be resolved. An
    /// optional dependency is a deliberate "maybe": as in Swinject, no registration of `Dog` is
    /// not logged (a `Dog` that is registered and fails is).
    ///
    /// A `Dog` that is registered and fails is not absent but broken: where the call hands its
    /// failure to its caller (`require` throws it, a `Lazy` or `Provider` reports it), the
    /// `Optional` is not made (`nil`), so the failure reaches that caller instead of turning into
    /// `.some(nil)` that nobody logs.
    static func wrap<each Argument>(
        from container: Container,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> Any? {
        let hierarchy = container.hierarchy
        let errors = hierarchy.errorCount
        let wrapped: Wrapped? = container.resolveService(
            Wrapped.self, name: name, resolver: resolver, reportsMiss: false, arguments: repeat each arguments)
        if case .none = wrapped, hierarchy.handsFailureToCaller {
            // Failed: a failure recorded since (a factory threw, a cycle, a wrong type), or a
            // registered service refused because the request in flight has failed.
            if hierarchy.errorCount != errors { return nil }
            if hierarchy.hasFailed {
                let key = ServiceKey(
                    service: Wrapped.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
                if container.slot(for: key) != nil { return nil }
            }
        }
        return wrapped as Any
    }
}
