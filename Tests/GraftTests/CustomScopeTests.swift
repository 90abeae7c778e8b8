import Testing

@testable import Graft

@Suite struct CustomScopeTests {
    final class FakeStorage: InstanceStorage {
        var instance: Any?
    }

    final class StorageSpy: InstanceStorage {
        var instance: Any?
        var setterGraphs: [GraphIdentifier] = []
        var getterGraphs: [GraphIdentifier] = []
        var completed = 0
        func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
            setterGraphs.append(graph)
            self.instance = instance
        }
        func instance(inGraph graph: GraphIdentifier) -> Any? {
            getterGraphs.append(graph)
            return instance
        }
        func graphResolutionCompleted() { completed += 1 }
    }

    @Test func eachRegistrationGetsItsOwnStorage() {
        let made = Counter()
        let custom = ObjectScope(storageFactory: {
            made.increment(); return FakeStorage()
        })
        let container = Container()
        container.register(Int.self) { _ in 0 }.inObjectScope(custom)
        container.register(Double.self) { _ in 0 }.inObjectScope(custom)
        _ = container.resolve(Int.self)
        _ = container.resolve(Double.self)
        #expect(made.value == 2)
    }

    @Test func storesTheNewInstanceAndReturnsAStoredOne() {
        let storage = FakeStorage()
        let custom = ObjectScope(storageFactory: { storage })
        let container = Container()
        container.register(Int.self) { _ in 42 }.inObjectScope(custom)
        #expect(container.resolve(Int.self) == 42)
        #expect(storage.instance as? Int == 42)
        storage.instance = 7
        #expect(container.resolve(Int.self) == 7)
    }

    /// A storage holding a value of another type counts as empty, as in Swinject: the factory
    /// runs and its instance replaces the value.
    @Test func aStorageSharedByTwoServicesHoldsTheLastOneMade() {
        let shared = PermanentStorage()
        let custom = ObjectScope(storageFactory: { shared }, description: "shared")
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.inObjectScope(custom)
        container.register(Dog.self) { _ in Dog() }.inObjectScope(custom)

        let cat = container.resolve(Cat.self)
        #expect(cat != nil)
        #expect(container.resolve(Cat.self) === cat)
        let dog = container.resolve(Dog.self)
        #expect(dog != nil)
        #expect(shared.instance as? Dog === dog)
        let secondCat = container.resolve(Cat.self)
        #expect(secondCat != nil && secondCat !== cat)
        #expect(shared.instance as? Cat === secondCat)
    }

    @Test func aStorageFilledWithAnotherTypeIsReplacedWithoutAFailure() throws {
        let storage = FakeStorage()
        storage.instance = "not a dog"
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "Rex") }.inObjectScope(ObjectScope(storageFactory: { storage }))
        container.register(PetOwner.self) { r in PetOwner(pet: r.resolve(Dog?.self) ?? nil) }

        let owner = try container.require(PetOwner.self)
        #expect(owner.pet?.name == "Rex")
        #expect(storage.instance as? Dog === owner.pet)
    }

    @Test func usesOneGraphIdentifierPerResolutionAndReportsItsEnd() {
        let spy = StorageSpy()
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.inObjectScope(ObjectScope(storageFactory: { spy }))
        _ = container.resolve(Dog.self)
        #expect(spy.getterGraphs.count == 2)  // before the factory, and the re-check after it
        #expect(Set(spy.getterGraphs + spy.setterGraphs).count == 1)
        #expect(spy.completed == 1)
    }

    @Test func usesTheGraphGivenToWithObjectGraph() {
        let spy = StorageSpy()
        let graph = GraphIdentifier()
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.inObjectScope(ObjectScope(storageFactory: { spy }))
        container.withObjectGraph(graph) { _ = $0.resolve(Dog.self) }
        #expect(spy.setterGraphs.last == graph)
        #expect(spy.getterGraphs.last == graph)
    }

    @Test func resetClearsOnlyThatScopeIncludingInParents() {
        let storage = FakeStorage()
        let custom = ObjectScope(storageFactory: { storage })
        let other = ObjectScope(storageFactory: FakeStorage.init)
        let parent = Container()
        let child = Container(parent: parent)
        parent.register(Int.self) { _ in 0 }.inObjectScope(custom)
        storage.instance = 42

        child.resetObjectScope(other)
        #expect(storage.instance as? Int == 42)
        child.resetObjectScope(custom)
        #expect(storage.instance == nil)
    }

    @Test func scopeWithAParentComposesStorages() {
        let session = ObjectScope(
            storageFactory: PermanentStorage.init, description: "session",
            parent: ObjectScope.graph)
        let container = Container()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(session)
        let cat = container.resolve(Animal.self)
        #expect(container.resolve(Animal.self) === cat)
        container.resetObjectScope(session)
        #expect(container.resolve(Animal.self) !== cat)
        #expect("\(session)" == "session")
    }

    @Test func weakStorageKeepsObjectsOnlyWhileHeld() {
        let storage = WeakStorage()
        var cat: Cat? = Cat()
        storage.instance = cat
        #expect(storage.instance as? Cat === cat)
        cat = nil
        #expect(storage.instance == nil)
        storage.instance = Turtle(name: "value")
        #expect(storage.instance == nil)
    }

    @Test func compositeReadsFirstAvailableAndWritesAll() {
        let first = PermanentStorage()
        let second = PermanentStorage()
        let composite = CompositeStorage([first, second])
        second.instance = 2
        #expect(composite.instance as? Int == 2)
        composite.instance = 1
        #expect(first.instance as? Int == 1 && second.instance as? Int == 1)
        #expect(TransientStorage().instance == nil)
    }

    @Test func graphStorageForgetsAtTheEndOfItsGraph() {
        let storage = GraphStorage()
        let graph = GraphIdentifier()
        storage.setInstance(1, inGraph: graph)
        #expect(storage.instance(inGraph: graph) as? Int == 1)
        #expect(storage.instance(inGraph: GraphIdentifier()) == nil)
        storage.graphResolutionCompleted()
        #expect(storage.instance(inGraph: graph) == nil)
    }

    @Test func customScopeCallsTheFactoryForAnOptionalService() {
        let container = Container()
        let permanent = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")
        container.register(Cat?.self) { _ in Cat() }.inObjectScope(permanent)
        let first = container.resolve(Cat?.self)
        #expect(first != nil)
        #expect(first! != nil)
        #expect(container.resolve(Cat?.self)!! === first!!)
    }

    @Test func customScopeCallsTheFactoryForAnyAndAnyObject() {
        let container = Container()
        let permanent = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")
        container.register(Any.self) { _ in Cat() }.inObjectScope(permanent)
        container.register(AnyObject.self) { _ in Dog() }.inObjectScope(permanent)
        #expect(container.resolve(Any.self) is Cat)
        #expect(container.resolve(AnyObject.self) is Dog)
        #expect(container.resolve(AnyObject.self) === container.resolve(AnyObject.self))
    }

    /// A custom scope that keeps nothing constructs on every resolution: the graph lists its entry
    /// once, not once per construction.
    @Test func customScopeResolvedManyTimesInOneGraphIsListedOnce() {
        final class Counting: InstanceStorage {
            var completions = 0
            var instance: Any? {
                get { nil }
                set {}  // swiftlint:disable:this unused_setter_value
            }
            func graphResolutionCompleted() { completions += 1 }
        }
        let storage = Counting()
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
            .inObjectScope(ObjectScope(storageFactory: { storage }, description: "counting"))
        container.withObjectGraph(GraphIdentifier()) { c in
            for _ in 0..<10_000 { _ = c.resolve(Unit.self) }
        }
        #expect(storage.completions == 1)
    }

    /// `CompositeStorage` asks each component once: a storage whose answer changes between two
    /// reads (a lease that expires) must not make it trap.
    @Test func compositeStorageAsksEachComponentOnce() {
        final class Flaky: InstanceStorage {
            var reads = 0
            var stored: Any? = Unit()
            var instance: Any? {
                get {
                    reads += 1
                    return reads.isMultiple(of: 2) ? nil : stored
                }
                set { stored = newValue }
            }
        }
        let flaky = Flaky()
        let composite = CompositeStorage([flaky, PermanentStorage()])
        #expect(composite.instance != nil)
        #expect(composite.instance(inGraph: GraphIdentifier()) == nil)  // second read: the lease is gone
        #expect(flaky.reads == 2)
    }

    /// A custom-scoped entry resolved both in a graph and in `withObjectGraph` inside one of its
    /// factories: each graph tells the storage once that it ended.
    @Test func customEntryInAnInnerGraphIsToldOncePerGraph() {
        final class Counting: InstanceStorage {
            var instance: Any?
            var graph: GraphIdentifier?
            var completions = 0
            func graphResolutionCompleted() {
                completions += 1
                instance = nil
                graph = nil
            }
            func instance(inGraph graph: GraphIdentifier) -> Any? { self.graph == graph ? instance : nil }
            func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
                self.instance = instance
                self.graph = graph
            }
        }
        let storage = Counting()
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
            .inObjectScope(ObjectScope(storageFactory: { storage }, description: "counting"))
        container.register(Holder.self) { r in
            _ = r.resolve(Unit.self)
            container.withObjectGraph(GraphIdentifier()) { _ = $0.resolve(Unit.self) }
            _ = r.resolve(Unit.self)
            return Holder()
        }
        _ = container.resolve(Holder.self)
        #expect(storage.completions == 2)
    }

    /// The built-in storages let an instance go after the store that replaces it: its `deinit` may
    /// resolve the same service (and read the storage) again, when a failed request takes the
    /// instance back, when `resetObjectScope` drops it, and when its graph ends.
    @Test(arguments: ["rollback", "reset", "graph end"])
    func aDeinitOfAnInstanceAStorageLetsGoMayResolveTheSameService(_ event: String) {
        final class Session {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Screen {}
        struct Refusal: Error {}
        let container = Container()
        let scope =
            event == "graph end"
            ? ObjectScope(storageFactory: GraphStorage.init) : ObjectScope(storageFactory: PermanentStorage.init)
        let resolvedInDeinit = Counter()
        var once = true
        container.register(Session.self) { [unowned container] _ in
            Session {
                guard once else { return }
                once = false
                if container.resolve(Session.self) != nil { resolvedInDeinit.increment() }
            }
        }.inObjectScope(scope)
        container.register(Screen.self) { r in
            _ = r.resolve(Session.self)
            if event == "rollback" { throw Refusal() }
            return Screen()
        }
        switch event {
        case "rollback": #expect(container.resolve(Screen.self) == nil)
        case "reset":
            _ = container.resolve(Session.self)
            container.resetObjectScope(scope)
        default: #expect(container.resolve(Screen.self) != nil)
        }
        #expect(resolvedInDeinit.value == 1)
    }

    /// A failed request takes back what a custom graph storage kept for its graph, also when its
    /// factory resolved the same service in a graph of its own meanwhile (`withObjectGraph`): the
    /// next resolution in that graph makes a new instance, as the `.graph` scope does.
    @Test(arguments: [false, true])
    func aFailedRequestTakesBackAGraphStoragesInstanceAfterANestedGraph(builtIn: Bool) {
        final class Unit {}
        final class Worker {}
        struct Refusal: Error {}
        let container = Container()
        let scope = builtIn ? ObjectScope.graph : ObjectScope(storageFactory: GraphStorage.init)
        let failed = Box<Unit?>(nil)
        container.register(Unit.self) { _ in Unit() }.inObjectScope(scope)
        container.register(Worker.self) { [unowned container] r in
            failed.value = r.resolve(Unit.self)
            _ = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Unit.self) }
            throw Refusal()
        }
        container.withObjectGraph(GraphIdentifier()) { resolver in
            #expect(resolver.resolve(Worker.self) == nil)
            let next = resolver.resolve(Unit.self)
            #expect(next != nil && next !== failed.value)
        }
    }

    /// A `deinit` run at the end of a `withObjectGraph` scope that a factory opened resolves as a
    /// request of its own: the singleton it makes stays when that factory's request fails.
    @Test func aDeinitAtTheEndOfAGraphScopeInAFactoryResolvesAsARequestOfItsOwn() {
        final class Settings {}
        final class Page {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Screen {}
        struct Refusal: Error {}
        let container = Container()
        let made = Counter()
        container.register(Settings.self) { _ in
            made.increment()
            return Settings()
        }.inObjectScope(.container)
        container.register(Page.self) { [unowned container] _ in Page { _ = container.resolve(Settings.self) } }
        container.register(Screen.self) { [unowned container] _ in
            container.withObjectGraph(GraphIdentifier()) { r in _ = r.resolve(Page.self) }
            throw Refusal()
        }
        #expect(container.resolve(Screen.self) == nil)
        _ = container.resolve(Settings.self)
        #expect(made.value == 1)
    }
}
