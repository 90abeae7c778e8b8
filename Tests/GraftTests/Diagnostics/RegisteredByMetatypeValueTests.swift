import Testing

@testable import Graft

/// A registration made with a metatype value of a subclass (`let t: Animal.Type = Cat.self;
/// register(t)`) is keyed by the static type, `Animal`, as in Swinject: every diagnostic names
/// it by that type too.
@Suite struct RegisteredByMetatypeValueTests {
    class Animal {}
    final class Cat: Animal {}
    struct Refused: Error {}

    @Test func registrationsReportsTheStaticTypeAndNoForward() throws {
        let container = Container()
        let type: Animal.Type = Cat.self
        container.register(type) { _ in Cat() }
        #expect(container.resolve(Animal.self) is Cat)
        let info = try #require(container.registrations.first)
        #expect(ObjectIdentifier(info.serviceType) == ObjectIdentifier(Animal.self))
        #expect(!info.isForwarded)
    }

    @Test func aFailureAndTheDependencyGraphNameTheStaticType() throws {
        let container = Container()
        let type: Animal.Type = Cat.self
        container.register(type) { _ in throw Refused() }
        let error = try #require(throws: ResolutionError.self) { try container.require(Animal.self) }
        #expect(error.path == ["Animal"])
        let report = container.validate()
        #expect(report.graph.nodes.map(\.serviceType) == ["Animal"])
    }
}
