import GraftTesting
import Testing

@testable import Graft

// Behaviour Swinject 2.10's own tests pin, checked on Graft where Graft's other tests do not
// already check it: registration, hierarchy, behaviors, forwarding, descriptions and assemblers.
// SwinjectParityLazyProviderTests.swift and SwinjectParityGraphTests.swift hold the rest.

private final class Kitten {
    let name: String
    let sleeping: Bool
    init(name: String) { (self.name, sleeping) = (name, false) }
    init(name: String, sleeping: Bool) { (self.name, self.sleeping) = (name, sleeping) }
}

private enum Outer { final class Inner {} }
private struct Crate<Content> { let content: Content }

@Suite(.capturedLog) struct SwinjectParityRegistrationTests {
    @Test func registrationsOfOneTypeAreKeptApartByTheirArguments() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }
        container.register(Animal.self) { (_, name: String, sleeping: Bool) in Cat(name: name, sleeping: sleeping) }

        #expect((container.resolve(Animal.self) as? Cat)?.name == nil)
        #expect((container.resolve(Animal.self, argument: "Mimi") as? Cat)?.name == "Mimi")
        let mew = container.resolve(Animal.self, arguments: "Mew", true) as? Cat
        #expect(mew?.name == "Mew")
        #expect(mew?.sleeping == true)
    }

    /// Swinject's own code leaves the argument types to inference from the factory's body.
    @Test func argumentTypesAreInferredFromTheFactory() {
        let container = Container()
        container.register(Kitten.self) { _, a in Kitten(name: a) }
        container.register(Kitten.self) { _, a, b in Kitten(name: a + b) }
        container.register(Kitten.self) { _, a, b, c in Kitten(name: a + b + c) }
        container.register(Kitten.self) { _, a, b, c, d in Kitten(name: a + b + c + d) }
        container.register(Kitten.self, name: "two kinds") { _, name, sleeping in
            Kitten(name: name, sleeping: sleeping)
        }
        container.register(Kitten.self, name: "partly typed") { (_, name, _: Int) in Kitten(name: name) }

        #expect(container.resolve(Kitten.self, argument: "1")?.name == "1")
        #expect(container.resolve(Kitten.self, arguments: "1", "2")?.name == "12")
        #expect(container.resolve(Kitten.self, arguments: "1", "2", "3")?.name == "123")
        #expect(container.resolve(Kitten.self, arguments: "1", "2", "3", "4")?.name == "1234")
        #expect(container.resolve(Kitten.self, name: "two kinds", arguments: "Mew", true)?.sleeping == true)
        #expect(container.resolve(Kitten.self, name: "partly typed", arguments: "Mimi", 3)?.name == "Mimi")
    }

    @Test func everyInitCompletedActionRunsOnce() {
        let container = Container()
        let runs = Counter()
        container.register(Animal.self) { _ in Cat() }
            .initCompleted { _, _ in runs.increment() }
            .initCompleted { _, _ in runs.increment() }
            .initCompleted { _, _ in runs.increment() }
            .initCompleted { _, _ in runs.increment() }
        #expect(container.resolve(Animal.self) != nil)
        #expect(runs.value == 4)
    }

    @Test func newEntryTakesItsOwnContainersDefaultScope() {
        #expect(Container().register(Int.self) { _ in 0 }.objectScope === ObjectScope.graph)
        let parent = Container(parent: nil, defaultObjectScope: .weak)
        #expect(parent.register(Int.self) { _ in 0 }.objectScope === ObjectScope.weak)
        let child = Container(parent: parent)
        #expect(child.register(Int.self) { _ in 0 }.objectScope === ObjectScope.graph)
    }

    @Test func customScopeNeedsOnlyAStorageFactory() {
        final class Slot: InstanceStorage { var instance: Any? }
        let slot = Slot()
        let scope = ObjectScope(storageFactory: { slot })
        #expect(scope.description == "")
        let container = Container()
        container.register(Int.self) { _ in 0 }.inObjectScope(scope)
        slot.instance = 42
        #expect(container.resolve(Int.self) == 42)
    }

    @Test func scopeOfYourOwnTypeKeepsAndResets() {
        final class Kept: ObjectScopeProtocol {
            var storagesMade = 0
            func makeStorage() -> InstanceStorage {
                storagesMade += 1
                return PermanentStorage()
            }
        }
        let scope = Kept()
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.inObjectScope(scope)
        let first = container.resolve(Dog.self)
        #expect(first === container.resolve(Dog.self))
        container.resetObjectScope(scope)
        let second = container.resolve(Dog.self)
        #expect(second !== first)
        container.resetObjectScope(scope, serviceType: Dog.self)
        #expect(container.resolve(Dog.self) !== second)
        #expect(scope.storagesMade == 1)
    }

    @Test func anEmptyNameIsANameOfItsOwn() {
        let container = Container()
        container.register(Dog.self, name: "") { _ in Dog(name: "empty") }
        #expect(container.resolve(Dog.self, name: "")?.name == "empty")
        #expect(LogCapture().capturing { container.resolve(Dog.self) } == nil)
    }

    @Test func aRegisteredOptionalAnswersOnlyForTheOptional() {
        let container = Container()
        container.register(Dog?.self) { _ in Dog(name: "maybe") }
        #expect((container.resolve(Dog?.self) ?? nil)?.name == "maybe")
        #expect(LogCapture().capturing { container.resolve(Dog.self) } == nil)
    }

    @Test func theContainerIsNotAServiceUnlessRegistered() {
        let container = Container()
        #expect(LogCapture().capturing { container.resolve(Resolver.self) } == nil)
        #expect(LogCapture().capturing { container.resolve(Container.self) } == nil)
        container.register(Dog.self) { _ in Dog() }
        #expect(!container.hasAnyRegistration(of: Lazy<Dog>.self))
        #expect(!container.hasAnyRegistration(of: Dog?.self))
        #expect(!container.hasAnyRegistration(of: GraphIdentifier.self))
    }
}

@Suite(.capturedLog) struct SwinjectParityHierarchyTests {
    @Test func factoryResolvingThroughACapturedChildCompletesTheParentsResolution() {
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Cat() }
        parent.register(Food.self) { _ in Sushi() }
        parent.register(PetOwner.self) { r in
            let owner = PetOwner(pet: child.resolve(Animal.self)!)
            owner.favoriteFood = r.resolve(Food.self)
            return owner
        }
        let owner = parent.resolve(PetOwner.self)
        #expect(owner?.pet is Cat)
        #expect(owner?.favoriteFood is Sushi)
    }

    @Test(arguments: [ObjectScope.transient, .graph, .container])
    func valueInAParentIsCopiedForEachRequestOfAChild(_ scope: ObjectScope) {
        let parent = Container()
        parent.register(Turtle.self) { _ in Turtle(name: "Ninja") }.inObjectScope(scope)
        let child = Container(parent: parent)
        var first = child.resolve(Turtle.self)!
        first.name = "Samurai"
        #expect(child.resolve(Turtle.self)?.name == "Ninja")
    }

    @Test func parentsInitCompletedReceivesTheAskingChild() {
        let parent = Container()
        let received = Box<Resolver?>(nil)
        parent.register(Cat.self) { _ in Cat() }.initCompleted { r, _ in received.value = r }
        let child = Container(parent: parent)
        _ = child.resolve(Cat.self)
        #expect((received.value as? Container) === child)
    }

    @Test func childKeepsItsParentAndRemovesOnlyItsOwn() {
        let child = Container(parent: Container { $0.register(Dog.self) { _ in Dog() } })
        child.register(Cat.self) { _ in Cat() }
        child.removeAll()
        #expect(child.resolve(Dog.self) != nil)
        #expect(LogCapture().capturing { child.resolve(Cat.self) } == nil)
    }
}

@Suite(.capturedLog) struct SwinjectParityBehaviorTests {
    final class Spy: Behavior {
        var names: [String?] = []
        var types: [Any.Type] = []
        var entries: [AnyObject] = []
        func container<Type, Service>(
            _ container: Container,
            didRegisterType type: Type.Type,
            toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            names.append(name)
            types.append(type)
            entries.append(entry)
        }
    }

    @Test func eachBehaviorIsToldOnceAboutARegistration() {
        let first = Spy()
        let second = Spy()
        let container = Container()
        container.addBehavior(first)
        container.addBehavior(second)
        container.register(Animal.self, name: "Hachi") { _ in Dog() }
        #expect(first.names == ["Hachi"])
        #expect(second.names == ["Hachi"])
        #expect(first.types.first == Animal.self)
    }

    @Test func forwardWithoutANameIsReportedWithoutOne() {
        let spy = Spy()
        let container = Container(behaviors: [spy])
        container.register(Dog.self, name: "Hachi") { _ in Dog() }.implements(Animal.self)
        #expect(spy.names == ["Hachi", nil])
        #expect(spy.types.count == 2)
        #expect(spy.types.first == Dog.self)
        #expect(spy.types.last == Animal.self)
    }

    @Test func everyForwardedTypeIsReportedWithTheOneEntry() {
        let spy = Spy()
        let container = Container(behaviors: [spy])
        let entry = container.register(Sushi.self) { _ in Sushi() }.implements(Food.self, AnyObject.self, Any.self)
        #expect(spy.entries.count == 4)
        #expect(spy.entries.allSatisfy { $0 === entry })
    }

    @Test func removeAllKeepsTheBehaviors() {
        let spy = Spy()
        let container = Container(behaviors: [spy])
        container.removeAll()
        container.register(Cat.self) { _ in Cat() }
        #expect(spy.entries.count == 1)
    }
}

@Suite(.capturedLog) struct SwinjectParityTypeForwardingTests {
    private protocol Walker {}
    private protocol Swimmer {}
    private protocol Runner {}
    private final class Otter: Walker, Swimmer, Runner {}

    @Test func forwardedTypeTakesTheEntrysArguments() {
        let container = Container()
        let entry = container.register(Cat.self) { (_, name: String, sleeping: Bool) in
            Cat(name: name, sleeping: sleeping)
        }
        container.forward(Animal.self, to: entry)
        let animal = container.resolve(Animal.self, arguments: "Mimi", true) as? Cat
        #expect(animal?.name == "Mimi")
        #expect(animal?.sleeping == true)
    }

    @Test func forwardToAnIncompatibleTypeWithArgumentsResolvesToNil() {
        let container = Container()
        let entry = container.register(Dog.self) { (_, name: String) in Dog(name: name) }
        container.forward(Cat.self, to: entry)
        #expect(LogCapture().capturing { container.resolve(Cat.self, argument: "Rex") } == nil)
    }

    @Test func severalTypesAtOnceAndOneAtATimeWithNames() {
        let container = Container()
        container.register(Otter.self) { _ in Otter() }.implements(Walker.self, Swimmer.self, Runner.self)
        #expect(container.resolve(Walker.self) != nil)
        #expect(container.resolve(Swimmer.self) != nil)
        #expect(container.resolve(Runner.self) != nil)

        let named = Container()
        named.register(Otter.self) { _ in Otter() }
            .implements(Walker.self, name: "1")
            .implements(Swimmer.self, name: "2")
        #expect(named.resolve(Walker.self, name: "1") != nil)
        #expect(LogCapture().capturing { named.resolve(Swimmer.self) } == nil)
        #expect(LogCapture().capturing { named.resolve(Swimmer.self, name: "1") } == nil)
    }

    @Test func forwardOfANamedEntryIsUnnamedUnlessGivenAName() {
        let container = Container()
        container.register(Sushi.self, name: "a") { _ in Sushi() }.implements(Food.self)
        #expect(container.resolve(Food.self) != nil)
        #expect(LogCapture().capturing { container.resolve(Food.self, name: "a") } == nil)
    }

    @Test func optionalWithAWrongNameIsSomeNil() {
        let container = Container()
        container.register(Dog.self, name: "Hachi") { _ in Dog() }
        #expect((container.resolve(Dog?.self, name: "Hachi") ?? nil) != nil)
        let result = LogCapture().capturing { container.resolve(Dog?.self, name: "Mimi") }
        guard case .some(.none) = result else {
            Issue.record("expected .some(nil), got \(String(describing: result))")
            return
        }
    }

    @Test func settingsGivenAfterImplementsApplyToTheForwardedType() {
        final class Marked: Animal {
            let name: String? = nil
            var completed = 0
        }
        let container = Container()
        container.register(Marked.self) { _ in Marked() }.implements(Animal.self).inObjectScope(.container)
            .initCompleted { _, marked in marked.completed += 1 }
        let animal = container.resolve(Animal.self)
        #expect(animal === container.resolve(Animal.self))
        #expect((animal as? Marked)?.completed == 1)
    }

    @Test func resetThroughTheForwardedTypeDropsTheSharedInstance() {
        let container = Container()
        container.register(Sushi.self) { _ in Sushi() }.inObjectScope(.container).implements(Food.self)
        let first = container.resolve(Sushi.self)
        container.resetObjectScope(.container, serviceType: Food.self)
        #expect(container.resolve(Sushi.self) !== first)
    }
}

@Suite(.capturedLog) struct SwinjectParityDescriptionTests {
    @Test func forwardedEntryIsListedUnderEachType() {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.implements(Animal.self)
        container.register(Sushi.self, name: "a") { _ in Sushi() }.implements(Food.self)
        #expect(
            container.description == """
                [
                    { Service: Cat, Factory: Resolver -> Animal, ObjectScope: graph },
                    { Service: Cat, Factory: Resolver -> Cat, ObjectScope: graph },
                    { Service: Sushi, Factory: Resolver -> Food, ObjectScope: graph },
                    { Service: Sushi, Name: "a", Factory: Resolver -> Sushi, ObjectScope: graph }
                ]
                """)
    }

    @Test func childListsOnlyItsOwnRegistrations() {
        let parent = Container { $0.register(Cat.self) { _ in Cat() } }
        #expect(Container(parent: parent).description == "[\n]")
    }

    /// Type names as Swift prints them, one line for every kind of type and scope.
    @Test func everyKindOfTypeAndScopeIsNamedAsSwiftPrintsIt() {
        final class Slot: InstanceStorage { var instance: Any? }
        let container = Container()
        container.register(Outer.Inner.self) { _ in Outer.Inner() }
        container.register(Crate<Int>.self) { _ in Crate(content: 1) }
        container.register(Dog?.self) { _ in Dog() }
        container.register((Animal & Food).self, name: "both") { _ in fatalError("never resolved") }
        container.register((() -> Void).self) { _ in {} }
        container.register(Any.self, name: "any") { (_, text: String?, number: Int) in number }
        container.register(Int.self, name: "pair") { (_, pair: (Int, Int)) in pair.0 }
        container.register(Animal.self, name: "custom") { _ in Dog() }
            .inObjectScope(ObjectScope(storageFactory: Slot.init))
            .initCompleted { _, _ in }
            .initCompleted { _, _ in }
        container.register(Animal.self, name: "weak") { _ in Dog() }.inObjectScope(.weak)
        container.register(Animal.self, name: "nine") {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int) in Dog()
        }
        container.register(Animal.self, name: "q\"uote") { _ in Dog() }
        #expect(
            container.description == """
                [
                    { Service: () -> (), Factory: Resolver -> () -> (), ObjectScope: graph },
                    { Service: Animal & Food, Name: "both", Factory: Resolver -> Animal & Food, ObjectScope: graph },
                    { Service: Animal, Name: "custom", Factory: Resolver -> Animal, ObjectScope: , InitCompleted: Specified 2 closures },
                    { Service: Animal, Name: "nine", Factory: (Resolver, Int, Int, Int, Int, Int, Int, Int, Int, Int) -> Animal, ObjectScope: graph },
                    { Service: Animal, Name: "q"uote", Factory: Resolver -> Animal, ObjectScope: graph },
                    { Service: Animal, Name: "weak", Factory: Resolver -> Animal, ObjectScope: weak },
                    { Service: Any, Name: "any", Factory: (Resolver, Optional<String>, Int) -> Any, ObjectScope: graph },
                    { Service: Crate<Int>, Factory: Resolver -> Crate<Int>, ObjectScope: graph },
                    { Service: Inner, Factory: Resolver -> Inner, ObjectScope: graph },
                    { Service: Int, Name: "pair", Factory: (Resolver, (Int, Int)) -> Int, ObjectScope: graph },
                    { Service: Optional<Dog>, Factory: Resolver -> Optional<Dog>, ObjectScope: graph }
                ]
                """)
    }
}

@Suite(.capturedLog) struct SwinjectParityAssemblerTests {
    private struct ExposesItsContainer: Assembly {
        func assemble(container: Container) {
            container.register(Container.self) { _ in container }
        }
    }

    private final class Spy: Behavior {
        var count = 0
        func container<Type, Service>(
            _ container: Container,
            didRegisterType type: Type.Type,
            toService entry: ServiceEntry<Service>,
            withName name: String?
        ) { count += 1 }
    }

    @Test func resolverIsTheGivenContainer() {
        let container = Container()
        #expect((Assembler(container: container).resolver as? Container) === container)
        #expect((Assembler([], container: container).resolver as? Container) === container)
    }

    @Test func assemblerGivesItsContainerTheDefaultScope() {
        let plain = Assembler([], parent: nil)
        plain.apply(assembly: ExposesItsContainer())
        #expect(plain.resolver.resolve(Container.self)?.register(Int.self) { _ in 0 }.objectScope === ObjectScope.graph)
        let singletons = Assembler([], parent: nil, defaultObjectScope: .container)
        singletons.apply(assembly: ExposesItsContainer())
        #expect(
            singletons.resolver.resolve(Container.self)?.register(Int.self) { _ in 0 }.objectScope
                === ObjectScope.container)
    }

    @Test func childAssemblerGivesItsContainerTheDefaultScope() {
        let parent = Assembler(container: Container())
        let child = Assembler(parentAssembler: parent, defaultObjectScope: .container)
        child.apply(assembly: ExposesItsContainer())
        #expect(
            child.resolver.resolve(Container.self)?.register(Int.self) { _ in 0 }.objectScope === ObjectScope.container)
        let plain = Assembler(parentAssembler: parent)
        plain.apply(assembly: ExposesItsContainer())
        #expect(plain.resolver.resolve(Container.self)?.register(Int.self) { _ in 0 }.objectScope === ObjectScope.graph)
    }

    @Test func behaviorsOfAChildAssemblerSeeItsFirstAssemblies() {
        let spy = Spy()
        _ = Assembler([ExposesItsContainer()], parent: Assembler(), behaviors: [spy])
        #expect(spy.count == 1)
        let later = Spy()
        let assembler = Assembler(parentAssembler: Assembler(), behaviors: [later])
        assembler.apply(assembly: ExposesItsContainer())
        #expect(later.count == 1)
    }

    @Test func parentAssemblerSeesNothingOfItsChild() {
        let parent = Assembler()
        let child = Assembler([ExposesItsContainer()], parent: parent)
        #expect(child.resolver.resolve(Container.self) != nil)
        #expect(LogCapture().capturing { parent.resolver.resolve(Container.self) } == nil)
        #expect(LogCapture().capturing { Assembler(parentAssembler: nil).resolver.resolve(Container.self) } == nil)
    }
}
