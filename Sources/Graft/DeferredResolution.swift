// Graft — MIT License.

/// What `Lazy` and `Provider` keep to resolve later: the registration found when they were made
/// (as Swinject does, so a later replacement, override or `removeAll()` does not change what they
/// resolve), the container, and whether to go through its mutex.
///
/// The container is reached through its ``ContainerLink``, not held: services holding a `Lazy`
/// often live in that container (a strong reference would be a cycle), and a `Lazy` may outlive
/// it. The link holds the hierarchy, which owns the mutex, so a synchronized `Lazy` can always
/// lock before looking at anything else.
struct DeferredResolution<Service>: CustomReflectable {
    let link: ContainerLink
    /// Made through a synchronized view: every access takes the mutex.
    let synchronized: Bool
    /// The registration name asked for.
    let name: String?
    let resolve: (Container, Resolver) -> Service?

    var hierarchy: SharedState { link.hierarchy }

    /// What guards the first access's fields: the mutex when made through a synchronized view.
    var isolation: FirstAccessIsolation { synchronized ? .anyThread : .oneThread }

    /// Resolves now (in `graph` if given), or throws why it cannot: the first access decides what
    /// that failure means, so it is not logged here. Stops with a message if the container is
    /// gone: there is nothing left to resolve in.
    ///
    /// Without a graph, a resolution in a factory is part of that factory's request; if the
    /// request has failed already, its failure is set aside meanwhile, so the service is resolved
    /// (its own failure is its own) and whatever it keeps is dropped with the request.
    func resolveNow(inGraph graph: GraphIdentifier?, wrapper: String) throws(ResolutionError) -> Service {
        guard let container = link.container else {
            stop(
                "Graft: \(wrapper)<\(Service.self)> was accessed after its container was released; "
                    + "keep the container alive as long as the services that hold a \(wrapper)")
        }
        let resolver: Resolver = synchronized ? SynchronizedResolver(container: container) : container
        let errors = hierarchy.resolution.errorCount
        let outer = hierarchy.beginCallHandingFailureToCaller()
        let made: Service?
        var failure: ResolutionError?
        if let graph {
            // Read inside the scope: its end forgets the last failure.
            made = container.withObjectGraph(graph) { _ in
                let made = resolve(container, resolver)
                if made == nil {
                    failure = hierarchy.failure(since: errors, resolving: serviceLabel(Service.self, name: name))
                }
                return made
            }
        } else {
            let setAside = hierarchy.setFailureAside()
            made = resolve(container, resolver)
            hierarchy.takeBackFailure(setAside)
        }
        hierarchy.endCallHandingFailureToCaller(outer)
        if let made { return made }
        throw failure ?? hierarchy.failure(since: errors, resolving: serviceLabel(Service.self, name: name))
            ?? ResolutionError(
                .notRegistered, path: hierarchy.resolution.path + ["\(Service.self)"],
                message: "Graft: resolution failed: \(Service.self) is not registered (any more).")
    }

    /// Whether it locks, and nothing of the container: it may be gone, and a `dump` or a debugger
    /// must never load it.
    var customMirror: Mirror { Mirror(self, children: ["synchronized": synchronized], displayStyle: .struct) }
}
