import Testing

@testable import Graft

@Suite struct HierarchyTests {
    @Test func childSeesParentRegistrationsAndParentNeverSeesChilds() {
        let parent = Container()
        let child = Container(parent: parent)
        parent.register(Animal.self) { _ in Cat() }
        child.register(Food.self) { _ in Sushi() }

        #expect(child.resolve(Animal.self) is Cat)
        #expect(child.resolve(Food.self) != nil)
        #expect(parent.resolve(Food.self) == nil)
    }

    @Test func grandchildResolvesFromTheRoot() {
        let root = Container { $0.register(Animal.self) { _ in Cat(name: "root") } }
        let grandchild = Container(parent: Container(parent: root))
        #expect(grandchild.resolve(Animal.self)?.name == "root")
    }

    @Test func childOverridesForItselfOnly() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "parent") }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog(name: "child") }
        let sibling = Container(parent: parent)

        #expect(child.resolve(Animal.self)?.name == "child")
        #expect(parent.resolve(Animal.self)?.name == "parent")
        #expect(sibling.resolve(Animal.self)?.name == "parent")
    }

    @Test func parentsFactoryResolvesDependenciesThroughTheAskingChild() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "parent") }
        parent.register(PetOwner.self) { r in PetOwner(pet: r.resolve(Animal.self)) }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog(name: "child") }

        #expect(child.resolve(PetOwner.self)?.pet?.name == "child")
        #expect(parent.resolve(PetOwner.self)?.pet?.name == "parent")
    }

    @Test func containerScopedInstanceLivesWithTheParentsRegistration() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        parent.register(Animal.self, name: "dog") { _ in Dog() }.inObjectScope(.container)
        let child = Container(parent: parent)

        #expect(parent.resolve(Animal.self) === child.resolve(Animal.self))
        #expect(child.resolve(Animal.self, name: "dog") === parent.resolve(Animal.self, name: "dog"))
    }

    @Test func graphIsSharedAcrossParentAndChildDuringOneResolution() {
        let parent = Container()
        parent.register(Food.self) { _ in Sushi() }
        let child = Container(parent: parent)
        child.register(Animal.self) { r in
            let cat = Cat()
            cat.favoriteFood = r.resolve(Food.self)
            return cat
        }
        // This factory asks the parent directly, inside the child's resolution.
        child.register(PetOwner.self) { r in
            let owner = PetOwner(pet: r.resolve(Animal.self))
            owner.favoriteFood = parent.resolve(Food.self)
            return owner
        }
        let owner = child.resolve(PetOwner.self)
        #expect(owner?.favoriteFood != nil)
        #expect(owner?.favoriteFood === (owner?.pet as? Cat)?.favoriteFood)
    }

    @Test func parentReleasesWhatAChildResolutionMade() {
        let parent = Container()
        parent.register(Cat.self) { _ in Cat() }
        let child = Container(parent: parent)
        weak let cat = child.resolve(Cat.self)
        #expect(cat == nil)
    }
}
