import Graft

/// The collection layer: `resolveAll` of three named registrations, next to the three named
/// resolutions it replaces.
extension GraftWorkloads {
    static let collectionNames = ["a", "b", "c"]

    /// A workload that makes a collection of three and keeps its last element.
    private static func collecting<T: AnyObject>(
        _ make: @escaping () -> [T]?, check: @escaping ([T]) -> Bool
    ) -> Workload {
        Workload(
            check: { try require(make().map(check) == true, "Graft: wrong collection of \(T.self)") },
            run: { count in for _ in 0..<count { BlackHole.consume(make()?.last) } })
    }

    /// Three transients: the collection in a graph of its own, the plain path three graphs.
    static func collectionOfTransients() -> (layer: Workload, plain: Workload) {
        let container = container()
        for name in collectionNames { container.register(Service.self, name: name) { _ in Service() } }
        return (
            collecting({ container.resolveAll(Service.self) }) { $0.count == 3 },
            collecting({
                [
                    container.resolve(Service.self, name: "a")!, container.resolve(Service.self, name: "b")!,
                    container.resolve(Service.self, name: "c")!,
                ]
            }) { $0.count == 3 }
        )
    }

    /// Three elements sharing a graph-scoped dependency: the plain path resolves them in one
    /// `withObjectGraph`.
    static func collectionSharingAGraph() -> (layer: Workload, plain: Workload) {
        let container = container()
        container.register(N8.self) { _ in N8() }
        for name in collectionNames { container.register(N4.self, name: name) { r in N4(r.resolve(N8.self)!) } }
        func shareOne(_ elements: [N4]) -> Bool {
            elements.count == 3 && elements.allSatisfy { $0.n8 === elements[0].n8 }
        }
        return (
            collecting({ container.resolveAll(N4.self) }, check: shareOne),
            collecting(
                {
                    container.withObjectGraph(GraphIdentifier()) { graph in
                        [
                            graph.resolve(N4.self, name: "a")!, graph.resolve(N4.self, name: "b")!,
                            graph.resolve(N4.self, name: "c")!,
                        ]
                    }
                }, check: shareOne)
        )
    }
}
