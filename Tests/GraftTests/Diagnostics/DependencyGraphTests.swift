import Graft
import Testing

private final class Stamp {}
private final class Letter { init(stamp: Stamp?) {} }

@Suite struct DependencyGraphTests {
    @Test func nodesNameTheContainerThatHoldsTheirRegistration() {
        let root = Container()
        let feature = Container(parent: root)
        root.register(Stamp.self, name: "root") { _ in Stamp() }
        feature.register(Letter.self) { r in Letter(stamp: r.resolve(Stamp.self, name: "root")) }
        let graph = feature.validate().graph
        #expect(graph.nodes.map(\.containerDescription).sorted() == ["its parent", "this container"])
    }

    /// A factory that resolves through a sibling or a child it captured reaches a container that
    /// is neither the validated one nor an ancestor.
    @Test(arguments: [false, true])
    func aNodeOutsideTheAncestorsIsInAnotherContainerOfTheHierarchy(throughAChild: Bool) {
        let root = Container()
        let feature = Container(parent: root)
        let other = Container(parent: throughAChild ? feature : root)
        other.register(Stamp.self) { (_, _: Int) in Stamp() }
        feature.register(Letter.self) { [unowned other] _ in Letter(stamp: other.resolve(Stamp.self, argument: 1)) }
        let graph = feature.validate().graph
        let stamp = graph.nodes.first { $0.serviceType == "Stamp" }
        #expect(stamp?.containerLevel == -1)
        #expect(stamp?.containerDescription == "another container of the hierarchy")
        #expect(graph.description.contains("Stamp [graph, another container of the hierarchy]"))
        withExtendedLifetime(other) {}
    }
}
