import Testing

@testable import Graft

@Suite struct ContainerTests {
    @Test func resolvesNilWithoutRegistration() {
        #expect(Container().resolve(Cat.self) == nil)
    }

    @Test func resolvesRegisteredService() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        #expect(container.resolve(Animal.self)?.name == "Mimi")
    }

    @Test func namedAndUnnamedRegistrationsAreDistinct() {
        let container = Container()
        container.register(Animal.self, name: "mimi") { _ in Cat(name: "Mimi") }
        container.register(Animal.self, name: "mew") { _ in Cat(name: "Mew") }
        container.register(Animal.self) { _ in Cat() }

        #expect(container.resolve(Animal.self, name: "mimi")?.name == "Mimi")
        #expect(container.resolve(Animal.self, name: "mew")?.name == "Mew")
        #expect(container.resolve(Animal.self)?.name == nil)
        #expect(container.resolve(Animal.self)! is Cat)
        #expect(container.resolve(Animal.self, name: "other") == nil)
    }

    @Test func registeringTheSameKeyAgainReplacesIt() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "first") }
        container.register(Animal.self) { _ in Cat(name: "second") }
        #expect(container.resolve(Animal.self)?.name == "second")
        #expect(container.services.count == 1)
    }

    @Test func replacingAContainerScopedRegistrationDropsItsInstance() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "first") }.inObjectScope(.container)
        let first = container.resolve(Animal.self)
        container.register(Animal.self) { _ in Cat(name: "second") }.inObjectScope(.container)
        let second = container.resolve(Animal.self)
        #expect(first !== second)
        #expect(second?.name == "second")
    }

    @Test func removeAllDropsEveryRegistration() {
        let container = Container()
        container.register(Animal.self, name: "a") { _ in Cat() }
        container.register(Food.self) { _ in Sushi() }
        container.removeAll()
        #expect(container.resolve(Animal.self, name: "a") == nil)
        #expect(container.resolve(Food.self) == nil)
    }

    @Test func registeringClosureRunsAtInit() {
        let container = Container { $0.register(Animal.self) { _ in Cat() } }
        #expect(container.resolve(Animal.self) is Cat)
    }

    @Test func hasAnyRegistrationLooksAtNamesAndAncestors() {
        let parent = Container { $0.register(Animal.self) { _ in Cat() } }
        let child = Container(parent: parent) {
            $0.register(Food.self, name: "sushi") { _ in Sushi() }
            $0.register(PetOwner.self) { (_, name: String) in PetOwner() }
        }
        #expect(child.hasAnyRegistration(of: Animal.self))
        #expect(child.hasAnyRegistration(of: Food.self, name: "sushi"))
        #expect(child.hasAnyRegistration(of: PetOwner.self))
        #expect(!child.hasAnyRegistration(of: Food.self))
        #expect(!child.hasAnyRegistration(of: Food.self, name: "pizza"))
        #expect(!parent.hasAnyRegistration(of: Food.self, name: "sushi"))
    }

    @Test func initializerPropertyAndMethodInjection() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(PetOwner.self, name: "init") { r in PetOwner(pet: r.resolve(Animal.self)!) }
        container.register(PetOwner.self, name: "property") { _ in PetOwner() }
            .initCompleted { r, owner in owner.pet = r.resolve(Animal.self) }

        #expect(container.resolve(PetOwner.self, name: "init")?.pet is Cat)
        #expect(container.resolve(PetOwner.self, name: "property")?.pet is Cat)
    }

    @Test func initCompletedActionsRunInOrderOncePerNewInstance() {
        let container = Container()
        let order = OrderLog()
        container.register(Animal.self) { _ in Cat() }
            .inObjectScope(.container)
            .initCompleted { _, _ in order.add(1) }
            .initCompleted { _, _ in order.add(2) }
            .initCompleted { _, _ in order.add(3) }
        _ = container.resolve(Animal.self)
        _ = container.resolve(Animal.self)
        #expect(order.items == [1, 2, 3])
    }

    @Test func registeredSubclassResolvesAsItsBaseType() {
        final class Siamese: Animal { let name: String? = "Siam" }
        let container = Container()
        container.register(Animal.self) { _ in Siamese() }
        #expect(container.resolve(Animal.self) is Siamese)
    }

    @Test func factoriesReceiveTheContainerAsResolver() {
        let container = Container()
        nonisolated(unsafe) var received: Resolver?
        container.register(Animal.self) { r in
            received = r; return Cat()
        }
        _ = container.resolve(Animal.self)
        #expect(received as? Container === container)
    }

    @Test func behaviorIsToldAboutLaterRegistrations() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }
        let spy = BehaviorSpy()
        container.addBehavior(spy)
        container.register(Animal.self, name: "cat") { _ in Cat() }
        container.register(PetOwner.self) { _ in PetOwner() }
        #expect(spy.seen == ["Animal/cat", "PetOwner/-"])
    }

    @Test func behaviorsGivenAtInitSeeEveryRegistration() {
        let spy = BehaviorSpy()
        let container = Container(behaviors: [spy]) { $0.register(Food.self) { _ in Sushi() } }
        container.register(Animal.self) { _ in Cat() }
        #expect(spy.seen == ["Food/-", "Animal/-"])
    }

    @Test func behaviorCanConfigureTheEntry() {
        struct MakeSingletons: Behavior {
            func container<Type, Service>(
                _ container: Container, didRegisterType type: Type.Type,
                toService entry: ServiceEntry<Service>, withName name: String?
            ) {
                entry.inObjectScope(.container)
            }
        }
        let container = Container(behaviors: [MakeSingletons()])
        container.register(Animal.self) { _ in Cat() }
        #expect(container.resolve(Animal.self) === container.resolve(Animal.self))
    }

    @Test func defaultObjectScopeAppliesToNewRegistrations() {
        let container = Container(defaultObjectScope: .container)
        let entry = container.register(Animal.self) { _ in Cat() }
        #expect(entry.objectScope === ObjectScope.container)
        #expect(container.resolve(Animal.self) === container.resolve(Animal.self))
        #expect(Container().register(Animal.self) { _ in Cat() }.objectScope === ObjectScope.graph)
    }

    @Test func registrationIsKeyedByTheStaticType() {
        let container = Container()
        let type: Pet.Type = PetCat.self
        container.register(type) { _ in PetDog() }.inObjectScope(.container)
        #expect(container.resolve(PetCat.self) == nil)
        #expect(container.resolve(Pet.self) is PetDog)
        #expect(container.resolve(Pet.self) === container.resolve(Pet.self))
        #expect(container.resolve(PetCat.self) == nil)  // also once an instance is kept
    }

    @Test func resolutionIsKeyedByTheStaticType() {
        let container = Container()
        container.register(Pet.self) { _ in PetDog() }
        container.register(PetCat.self) { _ in PetCat() }
        let asked: Pet.Type = PetCat.self
        #expect(container.resolve(asked) is PetDog)
    }

    @Test func canonicallyEquivalentNamesAreOneName() {
        let container = Container()
        container.register(Unit.self, name: "caf\u{E9}") { _ in Unit() }.inObjectScope(.container)
        #expect(container.resolve(Unit.self, name: "cafe\u{301}") != nil)
        #expect(container.resolve(Unit.self, name: "cafe\u{301}") === container.resolve(Unit.self, name: "caf\u{E9}"))
        container.register(Unit.self, name: "cafe\u{301}") { _ in Unit() }
        #expect(container.services.count == 1)

        container.register(Unit.self, name: "\u{212A}elvin") { _ in Unit() }  // KELVIN SIGN
        #expect(container.resolve(Unit.self, name: "Kelvin") != nil)
        container.register(Unit.self, name: "semi;") { _ in Unit() }
        #expect(container.resolve(Unit.self, name: "semi\u{037E}") != nil)
        #expect(container.hasAnyRegistration(of: Unit.self, name: "Kelvin"))
    }
}

final class OrderLog {
    private(set) var items: [Int] = []
    func add(_ item: Int) { items.append(item) }
}

final class BehaviorSpy: Behavior {
    private(set) var seen: [String] = []
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>, withName name: String?
    ) {
        seen.append("\(type)/\(name ?? "-")")
    }
}
