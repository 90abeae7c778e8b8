import Testing

@testable import Graft

@Suite struct ArgumentTests {
    @Test func argumentCountAndTypesChooseTheFactory() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }
        container.register(Animal.self) { (_, name: String, sleeping: Bool) in Cat(name: name, sleeping: sleeping) }

        #expect(container.resolve(Animal.self)?.name == nil)
        #expect(container.resolve(Animal.self, argument: "Mimi")?.name == "Mimi")
        let mew = container.resolve(Animal.self, arguments: "Mew", true) as? Cat
        #expect(mew?.name == "Mew")
        #expect(mew?.sleeping == true)
    }

    /// As in Swinject, `argumentsType` is the factory's whole argument list, the resolver first.
    @Test func argumentsTypeIsTheFactorysWholeArgumentList() {
        let container = Container()
        let plain = container.register(Animal.self) { _ in Cat() }
        let one = container.register(Animal.self) { (_, age: Int) in Cat() }
        let two = container.register(Animal.self) { (_, age: Int, name: String) in Cat(name: name) }
        let throwing = container.register(Animal.self, name: "t") { (_, age: Int) throws in Cat() }
        let pair = container.register(Animal.self) { (_, pair: (Int, String)) in Cat() }
        let main = container.registerMain(Cat.self) { _ in Cat() }

        #expect(ObjectIdentifier(plain.argumentsType) == ObjectIdentifier((any Resolver).self))
        #expect(ObjectIdentifier(one.argumentsType) == ObjectIdentifier((any Resolver, Int).self))
        #expect(ObjectIdentifier(two.argumentsType) == ObjectIdentifier((any Resolver, Int, String).self))
        #expect(ObjectIdentifier(throwing.argumentsType) == ObjectIdentifier((any Resolver, Int).self))
        #expect(ObjectIdentifier(pair.argumentsType) == ObjectIdentifier((any Resolver, (Int, String)).self))
        #expect(ObjectIdentifier(main.argumentsType) == ObjectIdentifier((any Resolver).self))
        #expect("\(plain.argumentsType)" == "Resolver")
        #expect("\(one.argumentsType)" == "(Resolver, Int)")
        #expect("\(two.argumentsType)" == "(Resolver, Int, String)")
        #expect(plain.extras == nil)  // a plain registration still stores nothing for it
    }

    @Test func oneToNineArguments() {
        let container = Container()
        container.register(String.self) { (_, a: String) in a }
        container.register(String.self) { (_, a: String, b: String) in a + b }
        container.register(String.self) { (_, a: String, b: String, c: String) in a + b + c }
        container.register(String.self) { (_, a: String, b: String, c: String, d: String) in a + b + c + d }
        container.register(String.self) { (_, a: String, b: String, c: String, d: String, e: String) in
            a + b + c + d + e
        }
        container.register(String.self) { (_, a: String, b: String, c: String, d: String, e: String, f: String) in
            a + b + c + d + e + f
        }
        container.register(String.self) {
            (_, a: String, b: String, c: String, d: String, e: String, f: String, g: String) in
            a + b + c + d + e + f + g
        }
        container.register(String.self) {
            (_, a: String, b: String, c: String, d: String, e: String, f: String, g: String, h: String) in
            a + b + c + d + e + f + g + h
        }
        container.register(String.self) {
            (_, a: String, b: String, c: String, d: String, e: String, f: String, g: String, h: String, i: String) in
            a + b + c + d + e + f + g + h + i
        }
        #expect(container.resolve(String.self, argument: "1") == "1")
        #expect(container.resolve(String.self, arguments: "1", "2") == "12")
        #expect(container.resolve(String.self, arguments: "1", "2", "3") == "123")
        #expect(container.resolve(String.self, arguments: "1", "2", "3", "4") == "1234")
        #expect(container.resolve(String.self, arguments: "1", "2", "3", "4", "5") == "12345")
        #expect(container.resolve(String.self, arguments: "1", "2", "3", "4", "5", "6") == "123456")
        #expect(container.resolve(String.self, arguments: "1", "2", "3", "4", "5", "6", "7") == "1234567")
        #expect(container.resolve(String.self, arguments: "1", "2", "3", "4", "5", "6", "7", "8") == "12345678")
        #expect(
            container.resolve(String.self, arguments: "1", "2", "3", "4", "5", "6", "7", "8", "9") == "123456789")
    }

    @Test func namedRegistrationsWithArguments() {
        let container = Container()
        container.register(Animal.self, name: "cat") { (_, name: String) in Cat(name: name) }
        container.register(Animal.self, name: "dog") { (_, name: String) in Dog(name: name) }
        container.register(Animal.self, name: "pair") { (_, a: String, b: String) in Cat(name: a + b) }

        #expect(container.resolve(Animal.self, name: "cat", argument: "Mimi") is Cat)
        #expect(container.resolve(Animal.self, name: "dog", argument: "Rex")?.name == "Rex")
        #expect(container.resolve(Animal.self, name: "pair", arguments: "a", "b")?.name == "ab")
        #expect(container.resolve(Animal.self, argument: "Mimi") == nil)
        #expect(container.resolve(Animal.self, name: "cat") == nil)
    }

    @Test func wrongArgumentTypesFindNothing() {
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }
        container.register(Animal.self) { (_, name: String, age: Int) in Cat(name: name) }

        #expect(container.resolve(Animal.self, argument: 42) == nil)
        #expect(container.resolve(Animal.self, arguments: 42, "Mimi") == nil)
        #expect(container.resolve(Animal.self, arguments: "Mimi", 4.5) == nil)
        #expect(container.resolve(Animal.self, arguments: "Mimi", 4, true) == nil)
        #expect(container.resolve(Animal.self) == nil)
        #expect(container.resolve(Animal.self, arguments: "Mimi", 4) != nil)
    }

    @Test func existentialArgumentFindsTheFactoryTakingTheProtocol() {
        let container = Container()
        container.register(PetOwner.self) { (_, pet: Animal) in PetOwner(pet: pet) }
        let pet: Animal = Dog(name: "Rex")

        #expect(container.resolve(PetOwner.self, argument: pet)?.pet === pet)
        #expect(container.resolve(PetOwner.self, arguments: pet)?.pet === pet)
        #expect(container.resolve(PetOwner.self, name: nil, argument: pet)?.pet === pet)
        let resolver: Resolver = container
        #expect(resolver.resolve(PetOwner.self, argument: pet)?.pet === pet)
        #expect(container.synchronize().resolve(PetOwner.self, argument: pet)?.pet === pet)
    }

    @Test func existentialArgumentsInSeveralPositions() {
        let container = Container()
        container.register(PetOwner.self) { (_, pet: Animal, food: Food) in
            let owner = PetOwner(pet: pet)
            owner.favoriteFood = food
            return owner
        }
        let pet: Animal = Cat()
        let food: Food = Sushi()
        let owner = container.resolve(PetOwner.self, arguments: pet, food)
        #expect(owner?.pet === pet && owner?.favoriteFood === food)
    }

    @Test func argumentsReachTheFactoryOfAParentsRegistration() {
        let parent = Container()
        parent.register(Animal.self) { (_, name: String) in Cat(name: name) }
        let child = Container(parent: parent)
        #expect(child.resolve(Animal.self, argument: "Mimi")?.name == "Mimi")
    }

    @Test func containerScopeWithArgumentsKeepsTheFirstInstance() {
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }.inObjectScope(.container)
        #expect(container.resolve(Animal.self, argument: "first")?.name == "first")
        #expect(container.resolve(Animal.self, argument: "second")?.name == "first")
    }

    @Test func recursiveFactoryWithArgumentsIsNotACycle() {
        final class Node {
            let next: Node?
            init(next: Node?) { self.next = next }
            var length: Int { 1 + (next?.length ?? 0) }
        }
        let container = Container()
        container.register(Node.self) { (r, remaining: Int) in
            Node(next: remaining > 1 ? r.resolve(Node.self, argument: remaining - 1) : nil)
        }.inObjectScope(.transient)  // in a graph scope every level would share the first node made
        #expect(container.resolve(Node.self, argument: 5)?.length == 5)
    }

    @Test func aSingleVoidArgumentIsNotNoArguments() {
        final class Made {}
        let container = Container()
        container.register(Made.self) { (_, _: Void) in Made() }
        #expect(container.resolve(Made.self) == nil)
        #expect(container.resolve(Made.self, argument: ()) != nil)
        container.register(Made.self) { _ in Made() }
        #expect(container.resolve(Made.self) != nil)
    }

    @Test func aSingleTupleArgumentIsNotTwoArguments() {
        final class Pair {
            let text: String
            init(_ text: String) { self.text = text }
        }
        let container = Container()
        container.register(Pair.self) { (_, pair: (Int, String)) in Pair("one \(pair.0)\(pair.1)") }
        container.register(Pair.self) { (_, number: Int, text: String) in Pair("two \(number)\(text)") }
        #expect(container.resolve(Pair.self, argument: (1, "a"))?.text == "one 1a")
        #expect(container.resolve(Pair.self, arguments: 2, "b")?.text == "two 2b")
    }
}
