import GraftTesting
import Testing

@testable import Graft

// `Lazy` and `Provider` as Swinject 2.10's tests pin them, where Graft's other tests do not
// already check it.

// A client, a clerk and a boss who see each other directly, through `Lazy` and through
// `Provider`; outside the transient scope the clerk's `initCompleted` points back at the boss.
private final class Client {}
private final class Clerk {
    let client: Client
    let lazyClient: Lazy<Client>
    let clientProvider: Provider<Client>
    var boss: Boss?
    init(_ r: Resolver) {
        client = r.resolve(Client.self)!
        lazyClient = r.resolve(Lazy<Client>.self)!
        clientProvider = r.resolve(Provider<Client>.self)!
    }
}
private final class Boss {
    let client: Client
    let lazyClient: Lazy<Client>
    let clientProvider: Provider<Client>
    let clerk: Clerk
    let lazyClerk: Lazy<Clerk>
    let clerkProvider: Provider<Clerk>
    init(_ r: Resolver) {
        client = r.resolve(Client.self)!
        lazyClient = r.resolve(Lazy<Client>.self)!
        clientProvider = r.resolve(Provider<Client>.self)!
        clerk = r.resolve(Clerk.self)!
        lazyClerk = r.resolve(Lazy<Clerk>.self)!
        clerkProvider = r.resolve(Provider<Clerk>.self)!
    }
}

/// Registers the office in `scope`, resolves a boss and hands both to `body`, keeping the
/// container alive while `body` reads the boss's `Lazy` and `Provider` values.
private func withBoss(in scope: ObjectScope, _ body: (Container, Boss) -> Void) {
    let container = Container()
    container.register(Client.self) { _ in Client() }.inObjectScope(scope)
    container.register(Clerk.self) { r in Clerk(r) }
        .initCompleted { r, clerk in
            if scope !== ObjectScope.transient { clerk.boss = r.resolve(Boss.self) }
        }
        .inObjectScope(scope)
    container.register(Boss.self) { r in Boss(r) }.inObjectScope(scope)
    withExtendedLifetime(container) { body(container, container.resolve(Boss.self)!) }
}

@Suite(.capturedLog) struct SwinjectParityLazyTests {
    @Test func transientLazyMakesItsOwnInstance() {
        withBoss(in: .transient) { _, boss in
            #expect(boss.lazyClient.instance !== boss.clerk.lazyClient.instance)
            #expect(boss.lazyClient.instance !== boss.client)
        }
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func lazyReadAfterTheResolutionSharesItsGraph(_ scope: ObjectScope) {
        withBoss(in: scope) { _, boss in
            #expect(boss.lazyClient.instance === boss.clerk.lazyClient.instance)
            #expect(boss.lazyClient.instance === boss.client)
        }
    }

    @Test func lazyOfACycleMemberSeesTheRestOfTheCycle() {
        withBoss(in: .graph) { container, boss in
            #expect(boss.clerk.boss === boss)
            #expect(boss.lazyClerk.instance.boss === boss)
            #expect(container.resolve(Lazy<Clerk>.self)?.instance.boss != nil)
        }
    }

    @Test func lazyWithArgumentsAndNames() {
        let container = Container()
        container.register(Dog.self) { (_, name: String, _: Int) in Dog(name: name) }
        container.register(Dog.self, name: "Hachi") { _ in Dog() }
        #expect(container.resolve(Lazy<Dog>.self, arguments: "Rex", 3)?.instance.name == "Rex")
        #expect(container.resolve(Lazy<Dog>.self, name: "Hachi") != nil)
        #expect(LogCapture().capturing { container.resolve(Lazy<Dog>.self, name: "Mimi") } == nil)
    }

    @Test func twoLazyValuesOfOneGraphReadAfterItShareTheInstance() {
        final class Pair {
            var first: Lazy<Food>?
            var second: Lazy<Food>?
        }
        let container = Container()
        container.register(Food.self) { _ in Sushi() }
        container.register(Pair.self) { r in
            let pair = Pair()
            pair.first = r.resolve(Lazy<Food>.self)
            pair.second = r.resolve(Lazy<Food>.self)
            return pair
        }
        let pair = container.resolve(Pair.self)
        #expect(pair?.first?.instance != nil)
        #expect(pair?.first?.instance === pair?.second?.instance)
    }

    /// A `Lazy` kept by a singleton, read inside a later resolution, leaves the graph being
    /// resolved as it was.
    @Test func readingAnEarlierGraphsLazyInAFactoryLeavesTheCurrentGraphAlone() {
        final class Leaf {}
        final class Keeper { let lazy: Lazy<Leaf>; init(lazy: Lazy<Leaf>) { self.lazy = lazy } }
        final class Pair {
            let first: Keeper
            let second: Keeper
            init(first: Keeper, second: Keeper) { (self.first, self.second) = (first, second) }
        }
        let container = Container()
        container.register(Leaf.self) { _ in Leaf() }
        container.register(Keeper.self, name: "singleton") { r in Keeper(lazy: r.resolve(Lazy<Leaf>.self)!) }
            .inObjectScope(.container)
        container.register(Keeper.self) { r in Keeper(lazy: r.resolve(Lazy<Leaf>.self)!) }
        container.register(Pair.self) { r in
            let first = r.resolve(Keeper.self)!
            _ = r.resolve(Keeper.self, name: "singleton")!.lazy.instance
            return Pair(first: first, second: r.resolve(Keeper.self)!)
        }
        _ = container.resolve(Keeper.self, name: "singleton")

        let pair = container.resolve(Pair.self)!
        #expect(pair.first === pair.second)
        #expect(pair.first.lazy.instance === pair.second.lazy.instance)
    }
}

@Suite(.capturedLog) struct SwinjectParityProviderTests {
    @Test(arguments: [ObjectScope.transient, .graph])
    func providerMakesAnInstanceOnEveryRead(_ scope: ObjectScope) {
        withBoss(in: scope) { _, boss in
            #expect(boss.clerkProvider.instance !== boss.clerkProvider.instance)
            #expect(boss.clerk.clientProvider.instance !== boss.clientProvider.instance)
        }
    }

    @Test func providerOfAContainerScopedServiceHandsOutTheSingleton() {
        withBoss(in: .container) { _, boss in
            #expect(boss.clerkProvider.instance === boss.clerkProvider.instance)
            #expect(boss.clerk.clientProvider.instance === boss.clientProvider.instance)
        }
    }

    @Test func providerReadAfterTheResolutionResolvesInAGraphOfItsOwn() {
        withBoss(in: .graph) { container, boss in
            #expect(boss.clerkProvider.instance.boss !== boss)
            let provided = container.resolve(Provider<Boss>.self)?.instance
            #expect(provided?.clerk.boss === provided)
        }
    }

    @Test func providerWithArgumentsNamesAndForwards() {
        let container = Container()
        container.register(Dog.self) { (_, name: String, _: Int) in Dog(name: name) }
        container.register(Dog.self, name: "Hachi") { _ in Dog() }.implements(Animal.self)
        #expect(container.resolve(Provider<Dog>.self, arguments: "Rex", 3)?.instance.name == "Rex")
        #expect(container.resolve(Provider<Dog>.self, name: "Hachi") != nil)
        #expect(container.resolve(Provider<Animal>.self) != nil)
        #expect(LogCapture().capturing { container.resolve(Provider<Dog>.self, name: "Mimi") } == nil)
    }
}

@Suite(.capturedLog) struct SwinjectParityDeferredInAFactoryTests {
    @Test func lazyAndProviderReadInTheFactoryThatGotThemShareItsGraph() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }
        container.register(PetOwner.self, name: "lazy") { r in
            let lazy = r.resolve(Lazy<Food>.self)!
            let owner = PetOwner()
            owner.favoriteFood = r.resolve(Food.self)
            owner.pet = lazy.instance === owner.favoriteFood ? Cat() : nil
            return owner
        }
        container.register(PetOwner.self, name: "provider") { r in
            let provider = r.resolve(Provider<Food>.self)!
            let owner = PetOwner()
            owner.favoriteFood = r.resolve(Food.self)
            owner.pet = provider.instance === owner.favoriteFood ? Cat() : nil
            return owner
        }
        #expect(container.resolve(PetOwner.self, name: "lazy")?.pet != nil)
        #expect(container.resolve(PetOwner.self, name: "provider")?.pet != nil)
    }

    @Test func childsLazyAndProviderHandOutTheParentsSingleton() {
        let parent = Container()
        parent.register(Dog.self) { _ in Dog() }.inObjectScope(.container)
        let child = Container(parent: parent)
        #expect(child.resolve(Lazy<Dog>.self)?.instance === parent.resolve(Dog.self))
        #expect(child.resolve(Provider<Dog>.self)?.instance === parent.resolve(Dog.self))
    }
}
