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
/// own: a failure of the factory's request does not take back what the `Lazy` keeps, nor what that
/// request had made before the read (the value may be one of those instances). Like Swinject, it keeps
/// the registration found when it was made. Resolving
/// `Lazy<Service>` returns `nil` when nothing is registered for `Service` with that name and
/// those arguments. The name and arguments given when resolving the `Lazy` are used for `Service`.
public final class Lazy<Service>: DeferredWrapper {
    private let access: FirstAccess<Service>
    private let policy: LazyPolicy<Service>

    /// Remembers the graph being resolved, if any, to resolve in it later.
    init(_ resolution: DeferredResolution<Service>, madeIn container: Container) {
        access = FirstAccess(in: resolution.hierarchy, capturing: nil, name: resolution.name)
        policy = LazyPolicy(resolution: resolution, graph: container.hierarchy.resolution.escapedGraph)
    }

    /// The instance, resolved on first access. Once resolved it is returned from the `Lazy` itself,
    /// even after the container is gone; a first access after that stops with a message.
    ///
    /// A first access that user code re-enters (a `deinit` run at the end of the resolution reads
    /// this `Lazy` again) hands out one instance: the one kept first. For `Lazy<Service?>`, the
    /// `nil` of a registration that failed is not kept: the next access resolves again.
    public var instance: Service { access.value(policy) }
}

/// `Lazy`'s first access: the registration found when it was made, resolved in the graph it was
/// made in, and kept.
struct LazyPolicy<Service>: FirstAccessPolicy {
    let resolution: DeferredResolution<Service>
    let graph: GraphIdentifier?

    static var wrapperName: StaticString { "Lazy" }

    var isolation: FirstAccessIsolation { resolution.isolation }

    func resolve(through _: SynchronizedResolver?, for _: FirstAccess<Service>) throws(ResolutionError) -> Service {
        // Read inside a resolution, a `Lazy` with no graph of its own (made outside any) still
        // resolves as a request of its own, as `@Injected` does: what it keeps must not be
        // something a failure of the enclosing request rolls back.
        // A new graph when a factory of the current request is running (a `Lazy` read by a
        // factory), else none: read directly in `withObjectGraph`, it resolves in that graph, as
        // any resolution there does.
        let graph = graph ?? (resolution.hierarchy.isAtRequestBase ? nil : GraphIdentifier())
        return try resolution.resolveNow(inGraph: graph, wrapper: "\(Self.wrapperName)")
    }

    func failedAccess(name _: String?) -> String { "Lazy<\(Service.self)>.instance could not be resolved" }
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
public final class Provider<Service>: DeferredWrapper {
    private let access: FirstAccess<Service>
    private let policy: ProviderPolicy<Service>

    /// Needs nothing of the container: each access is a resolution of its own.
    init(_ resolution: DeferredResolution<Service>, madeIn _: Container) {
        access = FirstAccess(in: resolution.hierarchy, capturing: nil, name: resolution.name)
        policy = ProviderPolicy(resolution: resolution)
    }

    /// A new resolution of `Service` (a new instance unless its scope keeps one). Stops with a
    /// message saying why if it cannot be resolved, or if the container is gone.
    ///
    /// Read in a factory, it resolves as part of that factory's resolution: if that resolution
    /// then fails, what it made is not kept by any scope.
    public var instance: Service { access.value(policy) }
}

/// `Provider`'s access: a first access that keeps nothing, so every access is one, and its
/// scope's storage is its cache.
struct ProviderPolicy<Service>: FirstAccessPolicy {
    let resolution: DeferredResolution<Service>

    static var wrapperName: StaticString { "Provider" }

    static var keeps: Bool { false }

    var isolation: FirstAccessIsolation { resolution.isolation }

    func resolve(through _: SynchronizedResolver?, for _: FirstAccess<Service>) throws(ResolutionError) -> Service {
        try resolution.resolveNow(inGraph: nil, wrapper: "\(Self.wrapperName)")
    }

    func failedAccess(name _: String?) -> String { "Provider<\(Service.self)>.instance could not be resolved" }
}
