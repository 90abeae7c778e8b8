import Testing

@testable import Graft

@Suite struct ObjectScopeTests {
    /// A cat whose food and whose owner's food both come from `Food`'s registration.
    private func registerOwnerGraph(_ container: Container, food scope: ObjectScope) {
        container.register(Food.self) { _ in Sushi() }.inObjectScope(scope)
        container.register(Animal.self) { r in
            let cat = Cat()
            cat.favoriteFood = r.resolve(Food.self)
            return cat
        }
        container.register(PetOwner.self) { r in
            let owner = PetOwner(pet: r.resolve(Animal.self)!)
            owner.favoriteFood = r.resolve(Food.self)
            return owner
        }
    }

    private func foods(of owner: PetOwner?) -> (Food?, Food?) {
        (owner?.favoriteFood, (owner?.pet as? Cat)?.favoriteFood)
    }

    @Test func transientMakesANewInstanceEachTime() {
        let container = Container()
        registerOwnerGraph(container, food: .transient)
        let (ownersFood, catsFood) = foods(of: container.resolve(PetOwner.self))
        #expect(ownersFood != nil && catsFood != nil)
        #expect(ownersFood !== catsFood)
        #expect(container.resolve(Food.self) !== container.resolve(Food.self))
    }

    @Test func graphSharesWithinOneResolutionOnly() {
        let container = Container()
        registerOwnerGraph(container, food: .graph)
        let (ownersFood, catsFood) = foods(of: container.resolve(PetOwner.self))
        #expect(ownersFood != nil)
        #expect(ownersFood === catsFood)
        let (nextFood, _) = foods(of: container.resolve(PetOwner.self))
        #expect(nextFood !== ownersFood)
    }

    @Test func graphIsTheDefaultScope() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }
        #expect(container.resolve(Food.self) !== container.resolve(Food.self))
    }

    @Test func graphKeepsNothingAfterTheResolution() {
        let live = Counter()
        let container = Container()
        container.register(Tracked.self) { _ in Tracked(live) }
        container.register(PetOwner.self) { r in
            _ = r.resolve(Tracked.self)
            return PetOwner()
        }
        for _ in 0..<1_000 { _ = container.resolve(PetOwner.self) }
        #expect(live.value == 0)
    }

    @Test func containerScopeKeepsOneInstance() {
        let container = Container()
        let made = Counter()
        container.register(Animal.self) { _ in
            made.increment(); return Cat()
        }.inObjectScope(.container)
        let first = container.resolve(Animal.self)
        #expect(first === container.resolve(Animal.self))
        #expect(made.value == 1)
    }

    @Test func containerScopeIsSharedWithinAGraph() {
        let container = Container()
        registerOwnerGraph(container, food: .container)
        let (ownersFood, catsFood) = foods(of: container.resolve(PetOwner.self))
        #expect(ownersFood === catsFood)
        #expect(ownersFood === container.resolve(Food.self))
    }

    @Test func weakSharesWhileHeldAndRecreatesAfterRelease() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.weak)
        var held = container.resolve(Animal.self)
        #expect(held != nil)
        #expect(held === container.resolve(Animal.self))
        weak let released = held
        held = nil
        #expect(released == nil)
        #expect(container.resolve(Animal.self) != nil)
    }

    @Test func weakKeepsNoStrongReference() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.weak)
        weak let cat = container.resolve(Animal.self)
        #expect(cat == nil)
    }

    @Test func weakRootStaysAliveWhileItsGraphResolves() {
        final class B { let food: Food; init(food: Food) { self.food = food } }
        final class Bowl: Food { weak var owner: B? }
        let container = Container()
        container.register(B.self) { r in B(food: r.resolve(Food.self)!) }.inObjectScope(.weak)
        container.register(Food.self) { _ in Bowl() }
            .initCompleted { r, food in (food as? Bowl)?.owner = r.resolve(B.self) }
        let b = container.resolve(B.self)
        #expect((b?.food as? Bowl)?.owner === b)
    }

    @Test(arguments: [ObjectScope.transient, .graph, .container, .weak])
    func valueTypesAreCopiedWhateverTheScope(_ scope: ObjectScope) {
        let container = Container()
        container.register(Turtle.self) { _ in Turtle(name: "Ninja") }.inObjectScope(scope)
        var first = container.resolve(Turtle.self)!
        first.name = "Samurai"
        #expect(container.resolve(Turtle.self)?.name == "Ninja")
    }

    @Test(arguments: [(ObjectScope.transient, 2), (.graph, 2), (.container, 1), (.weak, 2)])
    func factoryRunsAsOftenAsTheScopeNeeds(_ scope: ObjectScope, _ expected: Int) {
        let container = Container()
        let made = Counter()
        container.register(Turtle.self) { _ in
            made.increment(); return Turtle(name: "Ninja")
        }
        .inObjectScope(scope)
        _ = container.resolve(Turtle.self)
        _ = container.resolve(Turtle.self)
        #expect(made.value == expected)
    }

    @Test func resetObjectScopeDropsOnlyThatScopesInstances() {
        let container = Container()
        container.register(Animal.self, name: "kept") { _ in Cat() }.inObjectScope(.container)
        container.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        let cat = container.resolve(Animal.self, name: "kept")
        let food = container.resolve(Food.self)

        container.resetObjectScope(.graph)
        #expect(container.resolve(Animal.self, name: "kept") === cat)

        container.resetObjectScope(.container, serviceType: Food.self)
        #expect(container.resolve(Food.self) !== food)
        #expect(container.resolve(Animal.self, name: "kept") === cat)

        container.resetObjectScope(.container)
        #expect(container.resolve(Animal.self, name: "kept") !== cat)
    }

    @Test func resetObjectScopeReachesAncestors() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        let child = Container(parent: parent)
        let cat = parent.resolve(Animal.self)
        child.resetObjectScope(.container)
        #expect(parent.resolve(Animal.self) !== cat)
    }

    @Test func scopesDescribeThemselves() {
        #expect("\(ObjectScope.transient)" == "transient")
        #expect("\(ObjectScope.graph)" == "graph")
        #expect("\(ObjectScope.container)" == "container")
        #expect("\(ObjectScope.weak)" == "weak")
    }

    @Test func weakScopeSharesAnOptionalService() {
        let container = Container()
        container.register(Cat?.self) { _ in Cat() }.inObjectScope(.weak)
        let held = container.resolve(Cat?.self)!!
        #expect(container.resolve(Cat?.self)!! === held)
    }
}
