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
