import Testing

@testable import Graft

private struct AnimalAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Animal.self) { _ in Cat(name: "Whiskers") }
    }
}

private struct FoodAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Food.self) { _ in Sushi() }
    }
}

private struct OwnerAssembly: Assembly {
    func assemble(container: Container) {
        container.register(PetOwner.self) { r in
            let owner = PetOwner(pet: r.resolve(Animal.self))
            owner.favoriteFood = r.resolve(Food.self)
            return owner
        }
    }
}

/// Records the order of its calls, and checks in `loaded` that every assembly has registered.
private final class RecordingAssembly: Assembly {
    let name: String
    let journal: Journal
    init(_ name: String, _ journal: Journal) { self.name = name; self.journal = journal }
    func assemble(container: Container) {
        journal.entries.append("assemble \(name)")
        container.register(String.self, name: name) { _ in self.name }
    }
    func loaded(resolver: Resolver) {
        let visible = ["a", "b"].compactMap { resolver.resolve(String.self, name: $0) }
        journal.entries.append("loaded \(name) sees \(visible.joined())")
    }
}

private final class Journal { var entries: [String] = [] }

@Suite struct ContainerAssemblerTests {
    @Test func assemblesASingleContainer() {
        let assembler = Assembler([AnimalAssembly()])
        #expect(assembler.resolver.resolve(Animal.self)?.name == "Whiskers")
        #expect(assembler.resolver.resolve(Food.self) == nil)
    }

    @Test func assembliesMayDependOnEachOtherInAnyOrder() {
        let assembler = ContainerAssembler([OwnerAssembly(), FoodAssembly(), AnimalAssembly()])
        let owner = assembler.resolver.resolve(PetOwner.self)
        #expect(owner?.pet != nil)
        #expect(owner?.favoriteFood != nil)
    }

    @Test func allAssembleBeforeAnyLoaded() {
        let journal = Journal()
        _ = ContainerAssembler([RecordingAssembly("a", journal), RecordingAssembly("b", journal)])
        #expect(journal.entries == ["assemble a", "assemble b", "loaded a sees ab", "loaded b sees ab"])
    }

    @Test func applyAddsAssembliesLater() {
        let journal = Journal()
        let assembler = ContainerAssembler()
        assembler.apply(assembly: RecordingAssembly("a", journal))
        assembler.apply(assemblies: [RecordingAssembly("b", journal)])
        #expect(journal.entries == ["assemble a", "loaded a sees a", "assemble b", "loaded b sees ab"])
    }

    @Test func usesTheGivenContainer() {
        let container = Container()
        let assembler = ContainerAssembler([AnimalAssembly()], container: container)
        #expect(container.resolve(Animal.self) != nil)
        #expect(assembler.resolver as? Container === container)
        #expect(ContainerAssembler(container: container).resolver as? Container === container)
    }

    @Test func childAssemblerPerFeatureSeesTheParent() {
        let app = ContainerAssembler([AnimalAssembly(), FoodAssembly()])
        let feature = ContainerAssembler([OwnerAssembly()], parent: app)
        let other = ContainerAssembler(parentAssembler: app)
        #expect(feature.resolver.resolve(PetOwner.self)?.pet?.name == "Whiskers")
        #expect(app.resolver.resolve(PetOwner.self) == nil)
        #expect(other.resolver.resolve(PetOwner.self) == nil)
        #expect(other.resolver.resolve(Food.self) != nil)
        #expect((feature.resolver as? Container)?.parent === app.resolver as? Container)
    }

    @Test func childAssemblerTakesScopeAndBehaviors() {
        let spy = BehaviorSpy()
        let parent = ContainerAssembler()
        let child = ContainerAssembler(
            [AnimalAssembly()], parent: parent, defaultObjectScope: .container,
            behaviors: [spy])
        #expect(spy.seen == ["Animal/-"])
        #expect(child.resolver.resolve(Animal.self) === child.resolver.resolve(Animal.self))
        let empty = ContainerAssembler(parentAssembler: nil, defaultObjectScope: .container)
        empty.apply(assembly: FoodAssembly())
        #expect(empty.resolver.resolve(Food.self) === empty.resolver.resolve(Food.self))
    }
}
