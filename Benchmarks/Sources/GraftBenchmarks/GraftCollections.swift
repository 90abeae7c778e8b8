import Graft

/// The collection layer: `resolveAll` of three named registrations, next to the three named
/// resolutions it replaces.
extension GraftWorkloads {
    static let collectionNames = ["a", "b", "c"]

    /// Three transients: the collection in a graph of its own, the plain path three graphs.
    static func collectionOfTransients() -> (layer: Workload, plain: Workload) {
        let container = container()
        for name in collectionNames { container.register(Service.self, name: name) { _ in Service() } }
        return (
            resolving("Graft", { container.resolveAll(Service.self).map { $0 as AnyObject } }) {
                ($0 as? [Service])?.count == 3
            },
            resolving("Graft", { collectionNames.map { container.resolve(Service.self, name: $0)! } as AnyObject }) {
                ($0 as? [Service])?.count == 3
            }
        )
    }

    /// Three elements sharing a graph-scoped dependency: the plain path resolves them in one
    /// `withObjectGraph`.
    static func collectionSharingAGraph() -> (layer: Workload, plain: Workload) {
        let container = container()
        container.register(N8.self) { _ in N8() }
        for name in collectionNames { container.register(N4.self, name: name) { r in N4(r.resolve(N8.self)!) } }
        func shareOne(_ value: AnyObject) -> Bool {
            guard let elements = value as? [N4], elements.count == 3 else { return false }
            return elements.allSatisfy { $0.n8 === elements[0].n8 }
        }
        return (
            resolving("Graft", { container.resolveAll(N4.self).map { $0 as AnyObject } }, check: shareOne),
            resolving(
                "Graft",
                {
                    container.withObjectGraph(GraphIdentifier()) { graph in
                        collectionNames.map { graph.resolve(N4.self, name: $0)! } as AnyObject
                    }
                },
                check: shareOne)
        )
    }
}
