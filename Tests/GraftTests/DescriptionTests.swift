import Graft
import Testing

@Suite struct DescriptionTests {
    @Test func emptyContainer() {
        #expect(Container().description == "[\n]")
    }

    @Test func describesEachKindOfRegistration() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        #expect(
            container.description == "[\n    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: graph }\n]")

        container.removeAll()
        container.register(Animal.self, name: "My Cat") { _ in Cat() }
        #expect(
            container.description
                == "[\n    { Service: Animal, Name: \"My Cat\", Factory: Resolver -> Animal, ObjectScope: graph }\n]")

        container.removeAll()
        container.register(Animal.self) { (_, name: String, sleeping: Bool) in Cat(name: name, sleeping: sleeping) }
        #expect(
            container.description
                == "[\n    { Service: Animal, Factory: (Resolver, String, Bool) -> Animal, ObjectScope: graph }\n]")

        container.removeAll()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.container).initCompleted { _, _ in }
        #expect(
            container.description
                == "[\n    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: container, "
                + "InitCompleted: Specified 1 closures }\n]")
    }

    @Test func severalRegistrationsAreSorted() {
        let container = Container()
        container.register(Animal.self, name: "2") { _ in Cat() }
        container.register(Animal.self, name: "1") { _ in Cat() }
        #expect(
            container.description == "[\n"
                + "    { Service: Animal, Name: \"1\", Factory: Resolver -> Animal, ObjectScope: graph },\n"
                + "    { Service: Animal, Name: \"2\", Factory: Resolver -> Animal, ObjectScope: graph }\n"
                + "]")
    }

    @Test func descriptionOfAForwardedTypeNamesTheForwardedType() {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.implements(Animal.self)
        let text = container.description
        #expect(text.contains("Factory: Resolver -> Animal"))
        #expect(text.contains("Factory: Resolver -> Cat"))
        let forwardedNamed = Container()
        forwardedNamed.register(Cat.self) { _ in Cat() }.implements(Animal.self, name: "pet")
        #expect(forwardedNamed.description.contains("Name: \"pet\", Factory: Resolver -> Animal"))
    }
}
