import Testing

@testable import Graft

private final class GraphLedger {}

/// A `Lazy` made outside any resolution has no graph of its own. Read directly in a
/// `withObjectGraph(_:closure:)` closure (no factory running), it resolves in the graph the
/// application asked for, as a `resolve` made there does: it shares that graph's instances.
@Suite struct GraphlessLazyReadInAnObjectGraphTests {
    @Test(arguments: [false, true])
    func graphlessLazyReadInWithObjectGraphSharesThatGraphsInstance(throughView: Bool) throws {
        let container = Container()
        container.register(GraphLedger.self) { _ in GraphLedger() }.inObjectScope(.graph)
        let r: Container = throughView ? container.synchronize() : container
        let lazy = try #require(r.resolve(Lazy<GraphLedger>.self))

        let (resolved, read) = r.withObjectGraph(GraphIdentifier()) { c in
            (c.resolve(GraphLedger.self), lazy.instance)
        }

        #expect(resolved != nil)
        #expect(read === resolved, "the Lazy resolved in a graph other than the one withObjectGraph set")
    }

    /// The same for a graph resolved earlier and entered again: the `Lazy` finds the instance that
    /// graph remembers.
    @Test(arguments: [false, true])
    func graphlessLazyReadInARememberedGraphGivesItsInstance(throughView: Bool) throws {
        let container = Container()
        container.register(GraphLedger.self) { _ in GraphLedger() }.inObjectScope(.graph)
        let r: Container = throughView ? container.synchronize() : container
        let lazy = try #require(r.resolve(Lazy<GraphLedger>.self))
        let graph = GraphIdentifier()
        let kept = try #require(r.withObjectGraph(graph) { $0.resolve(GraphLedger.self) })

        let read = r.withObjectGraph(graph) { _ in lazy.instance }

        #expect(read === kept)
    }
}
