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
/// services that graph made (and that are still alive) are shared with it. Resolving
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

    /// The instance, resolved on first access.
    public var instance: Service {
        access.withLock { container, resolver in
            if let resolved { return resolved }
            let made: Service? =
                if let graph {
                    container.withObjectGraph(graph) { _ in access.resolve(container, resolver) }
                } else {
                    access.resolve(container, resolver)
                }
            guard let made else {
                preconditionFailure("Lazy<\(Service.self)>: resolution failed (see the logged message)")
            }
            resolved = made
            return made
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

    /// A new resolution of `Service` (a new instance unless its scope keeps one).
    public var instance: Service {
        access.withLock { container, resolver in
            guard let made = access.resolve(container, resolver) else {
                preconditionFailure("Provider<\(Service.self)>: resolution failed (see the logged message)")
            }
            return made
        }
    }
}

/// What `Lazy` and `Provider` keep to resolve later: the container, whether to go through its
/// mutex, and the request. The container is held `unowned`: services holding a `Lazy` often live
/// in that container (a strong reference would be a cycle), and a `weak` one would give the
/// container a side table, slowing every retain of it on the resolution path.
final class DeferredAccess<Service> {
    private unowned let container: Container
    private let synchronized: Bool
    let resolve: (Container, Resolver) -> Service?

    init(container: Container, resolver: Resolver, resolve: @escaping (Container, Resolver) -> Service?) {
        self.container = container
        self.synchronized = resolver is SynchronizedResolver
        self.resolve = resolve
    }

    func withLock<T>(_ body: (Container, Resolver) -> T) -> T {
        guard synchronized else { return body(container, container) }
        return container.hierarchy.mutex.withLock { body(container, SynchronizedResolver(container: container)) }
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
    /// Whether `Wrapped` with these argument types and name could be resolved here.
    func canResolve<Wrapped>(_ type: Wrapped.Type, argumentsType: Any.Type, name: String?) -> Bool {
        slot(for: ServiceKey(service: type, arguments: argumentsType, name: name)) != nil
            || type is any ResolutionWrapper.Type
    }

    func deferredAccess<Wrapped, each Argument>(
        to type: Wrapped.Type,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> DeferredAccess<Wrapped>? {
        let argumentsType = (repeat each Argument).self
        guard canResolve(type, argumentsType: argumentsType, name: name) else { return nil }
        let values = (repeat each arguments)
        return DeferredAccess(container: self, resolver: resolver) { container, resolver in
            container.resolveService(type, name: name, resolver: resolver, arguments: repeat each values)
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
        self.init(access, graph: container.hierarchy.graphIfResolving)
    }
}

extension Provider: DeferredWrapper {
    /// Needs nothing of the container: each access is a resolution of its own.
    convenience init(_ access: DeferredAccess<Service>, madeIn container: Container) {
        self.init(access)
    }
}

extension Optional: ResolutionWrapper {
    /// `resolve(Dog?.self)` is `.some(dog)`, or `.some(nil)` when no `Dog` can be resolved.
    static func wrap<each Argument>(
        from container: Container,
        resolver: Resolver,
        name: String?,
        arguments: repeat each Argument
    ) -> Any? {
        let wrapped: Wrapped? = container.resolveService(
            Wrapped.self, name: name, resolver: resolver, arguments: repeat each arguments)
        return wrapped as Any
    }
}
