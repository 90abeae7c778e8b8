import GraftTesting
import Testing

@testable import Graft

private protocol Walker: AnyObject {}
private protocol Swimmer: AnyObject {}
private protocol Barker: AnyObject {}
extension Dog: Walker, Swimmer, Barker {}

@Suite(.capturedLog) struct TypeForwardingTests {
    @Test func forwardedTypeResolvesThroughTheEntry() {
        let container = Container()
        let entry = container.register(Dog.self) { _ in Dog() }
        container.forward(Animal.self, to: entry)
        #expect(container.resolve(Animal.self) is Dog)
    }

    @Test func containerScopedEntryAnswersToAllItsTypesWithOneInstance() {
        let container = Container()
        let made = Counter()
        container.register(Dog.self) { _ in
            made.increment(); return Dog()
        }
        .inObjectScope(.container)
        .implements(Animal.self, Walker.self, Swimmer.self)
        let dog = container.resolve(Dog.self)
        #expect(container.resolve(Animal.self) === dog)
        #expect(container.resolve(Walker.self) === dog)
        #expect(container.resolve(Swimmer.self) === dog)
        #expect(made.value == 1)
    }

    @Test func graphScopedForwardsShareWithinAGraph() {
        final class Kennel {
            let animal: Animal
            let walker: Walker
            init(animal: Animal, walker: Walker) { self.animal = animal; self.walker = walker }
        }
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self).implements(Walker.self)
        container.register(Kennel.self) { r in Kennel(animal: r.resolve(Animal.self)!, walker: r.resolve(Walker.self)!)
        }
        let kennel = container.resolve(Kennel.self)
        #expect(kennel?.animal === kennel?.walker)
        #expect(container.resolve(Kennel.self)?.animal !== kennel?.animal)
    }

    @Test func forwardingKeepsArgumentsAndNames() {
        let container = Container()
        container.register(Dog.self) { (_, name: String) in Dog(name: name) }
            .implements(Animal.self, name: "pet")
        #expect(container.resolve(Animal.self, name: "pet", argument: "Rex")?.name == "Rex")
        #expect(container.resolve(Animal.self, argument: "Rex") == nil)
        #expect(container.resolve(Animal.self, name: "pet") == nil)
    }

    @Test func namesOfForwardsAreRespected() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
            .implements(Walker.self, name: "1")
            .implements(Swimmer.self, name: "2")
        #expect(container.resolve(Walker.self, name: "1") != nil)
        #expect(container.resolve(Walker.self) == nil)
        #expect(container.resolve(Swimmer.self, name: "1") == nil)
        #expect(container.resolve(Swimmer.self, name: "2") != nil)
    }

    @Test func incompatibleForwardResolvesToNil() {
        let container = Container()
        let entry = container.register(Dog.self) { _ in Dog() }
        container.forward(Cat.self, to: entry)
        #expect(LogCapture().capturing { container.resolve(Cat.self) } == nil)
    }

    @Test func forwardToTheImplementationOfAProtocolRegistration() {
        let container = Container()
        let entry = container.register(Animal.self) { _ in Dog() }
        container.forward(Dog.self, to: entry)
        #expect(container.resolve(Dog.self) != nil)
    }

    @Test func childSeesForwardsOfItsParent() {
        let parent = Container()
        parent.register(Dog.self) { _ in Dog() }.inObjectScope(.container).implements(Barker.self)
        let child = Container(parent: parent)
        #expect(child.resolve(Barker.self) === parent.resolve(Dog.self))
        #expect(child.hasAnyRegistration(of: Barker.self))
    }

    @Test func behaviorsAreToldAboutForwards() {
        let spy = BehaviorSpy()
        let container = Container(behaviors: [spy])
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self, name: "a")
        #expect(spy.seen == ["Dog/-", "Animal/a"])
    }

    @Test func resetReachesTheSharedInstance() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.inObjectScope(.container).implements(Animal.self)
        let dog = container.resolve(Animal.self)
        container.resetObjectScope(.container, serviceType: Animal.self)
        #expect(container.resolve(Dog.self) !== dog)
    }

    @Test func forwardingIsKeyedByTheStaticType() {
        let container = Container()
        let forwarded: Pet.Type = PetDog.self
        container.register(PetCat.self) { _ in PetCat() }.implements(forwarded)
        #expect(container.resolve(PetDog.self) == nil)
        #expect(container.resolve(Pet.self) is PetCat)

        let other = Container()
        let entry = other.register(PetCat.self) { _ in PetCat() }.inObjectScope(.container)
        other.forward(forwarded, to: entry)
        #expect(other.resolve(PetDog.self) == nil)
        #expect(other.resolve(Pet.self) === other.resolve(PetCat.self))
    }

    @Test func implementsAfterTheContainerIsGoneDoesNothing() {
        var container: Container? = Container()
        let entry = container!.register(Cat.self) { _ in Cat() }
        container = nil
        entry.implements(Animal.self)
        entry.implements(Animal.self, Food.self)
        #expect(ObjectIdentifier(entry.serviceType) == ObjectIdentifier(Cat.self))
    }

    @Test func forwardingInAChildToTheParentsEntryIsOneHierarchy() {
        let parent = Container()
        let entry = parent.register(Cat.self) { _ in Cat() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward(Animal.self, to: entry)
        #expect(child.resolve(Animal.self) === parent.resolve(Cat.self))
    }
}
