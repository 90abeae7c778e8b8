import Foundation
import Testing

@testable import Graft

// Object graphs, cycles and the synchronized view as Swinject 2.10's tests pin them, where
// Graft's other tests do not already check it.

private protocol Vehicle: AnyObject {}
private protocol Drive: AnyObject {}
private protocol Transmission: AnyObject {}
private protocol Axle: AnyObject {}

/// Four services that depend on each other partly through initializers and partly through
/// `initCompleted`: the vehicle's initializer needs the drive, the drive's the transmission, the
/// transmission's the axle; the transmission's `initCompleted` asks for the vehicle, the axle's
/// for the drive and the transmission.
private final class Van: Vehicle {
    let drive: Drive
    init(drive: Drive) { self.drive = drive }
}
private final class Motor: Drive {
    let transmission: Transmission
    init(transmission: Transmission) { self.transmission = transmission }
}
private final class Gears: Transmission {
    weak var vehicle: Vehicle?
    let axle: Axle
    init(axle: Axle) { self.axle = axle }
}
private final class Shaft: Axle {
    weak var drive: Drive?
    weak var transmission: Transmission?
}

@Suite struct SwinjectParityCircularityTests {
    @Test func cycleThroughInitializersClosedByInitCompletedIsOneGraph() {
        let container = Container()
        container.register(Vehicle.self) { r in Van(drive: r.resolve(Drive.self)!) }
        container.register(Drive.self) { r in Motor(transmission: r.resolve(Transmission.self)!) }
        container.register(Transmission.self) { r in Gears(axle: r.resolve(Axle.self)!) }
            .initCompleted { r, gears in (gears as? Gears)?.vehicle = r.resolve(Vehicle.self) }
        container.register(Axle.self) { _ in Shaft() }
            .initCompleted { r, axle in
                let shaft = axle as? Shaft
                shaft?.drive = r.resolve(Drive.self)
                shaft?.transmission = r.resolve(Transmission.self)
            }

        let vehicle = container.resolve(Vehicle.self)
        let drive = (vehicle as? Van)?.drive
        let transmission = (drive as? Motor)?.transmission
        let shaft = (transmission as? Gears)?.axle as? Shaft
        #expect(vehicle != nil)
        #expect((transmission as? Gears)?.vehicle === vehicle)
        #expect(shaft?.drive === drive)
        #expect(shaft?.transmission === transmission)
    }

    @Test func weakRootOfAGraphStaysAliveWhileAPropertyCycleReachesIt() {
        final class Root { let leaf: Leaf; init(leaf: Leaf) { self.leaf = leaf } }
        final class Leaf { weak var root: Root? }
        let container = Container()
        container.register(Root.self) { r in Root(leaf: r.resolve(Leaf.self)!) }.inObjectScope(.weak)
        container.register(Leaf.self) { _ in Leaf() }.initCompleted { r, leaf in leaf.root = r.resolve(Root.self) }

        let root = container.resolve(Root.self)
        #expect(root != nil)
        #expect(root?.leaf.root === root)
    }

    /// `initCompleted` runs before the factory that asked for the instance goes on, so that
    /// factory sees what the action injected.
    @Test(arguments: [ObjectScope.graph, .container, .transient, .weak])
    func initCompletedRunsBeforeTheAskingFactoryContinues(_ scope: ObjectScope) {
        final class Leaf { var food: Food? }
        final class Root { let leafHadFood: Bool; init(leafHadFood: Bool) { self.leafHadFood = leafHadFood } }
        let container = Container()
        let steps = Box<[String]>([])
        container.register(Food.self) { _ in Sushi() }
        container.register(Leaf.self) { _ in Leaf() }
            .initCompleted { r, leaf in
                steps.value.append("leaf completed")
                leaf.food = r.resolve(Food.self)
            }
            .inObjectScope(scope)
        container.register(Root.self) { r in
            let leaf = r.resolve(Leaf.self)!
            steps.value.append("root continues")
            return Root(leafHadFood: leaf.food != nil)
        }
        #expect(container.resolve(Root.self)?.leafHadFood == true)
        #expect(steps.value == ["leaf completed", "root continues"])
    }
}

@Suite struct SwinjectParityGraphTests {
    @Test func eachResolutionHasItsOwnIdentifierSharedByItsFactories() {
        let container = Container()
        let seen = Box<[GraphIdentifier?]>([])
        container.register(Dog.self) { r in
            seen.value.append((r as? Container)?.currentObjectGraph)
            _ = r.resolve(Cat.self)
            return Dog()
        }
        container.register(Cat.self) { r in
            seen.value.append((r as? Container)?.currentObjectGraph)
            return Cat()
        }
        _ = container.resolve(Dog.self)
        _ = container.resolve(Cat.self)
        #expect(seen.value.count == 3)
        #expect(seen.value.allSatisfy { $0 != nil })
        #expect(seen.value[0] == seen.value[1])
        #expect(seen.value[1] != seen.value[2])
        #expect(container.currentObjectGraph == nil)
    }

    @Test func aGraphResolvedFromAFactoryCanBeResumedWithWithObjectGraph() {
        let container = Container()
        let graph = Box<GraphIdentifier?>(nil)
        container.register(Dog.self) { r in
            graph.value = r.resolve(GraphIdentifier.self)
            return Dog()
        }
        let first = container.resolve(Dog.self)
        let again = graph.value.map { id in
            container.withObjectGraph(id) { ($0.resolve(Dog.self), $0.resolve(Dog.self)) }
        }
        #expect(again != nil)
        #expect(again?.0 === first)
        #expect(again?.1 === first)
    }

    @Test func withObjectGraphIsTheCurrentGraphForItsClosureOnly() throws {
        struct Failure: Error {}
        let container = Container()
        let outer = GraphIdentifier()
        let inner = GraphIdentifier()
        #expect(container.withObjectGraph(outer) { $0.resolve(GraphIdentifier.self) } == outer)
        let nested = container.withObjectGraph(outer) { c in
            (c.withObjectGraph(inner) { $0.resolve(GraphIdentifier.self) }, c.resolve(GraphIdentifier.self))
        }
        #expect(nested.0 == inner)
        #expect(nested.1 == outer)
        #expect(throws: Failure.self) { try container.withObjectGraph(outer) { _ in throw Failure() } }
        #expect(container.resolve(GraphIdentifier.self) == nil)
        let view = container.synchronize()
        #expect(view.withObjectGraph(outer) { $0 } === view)
    }

    /// In one graph a graph-scoped registration with arguments hands out the instance it made
    /// first, whatever the later arguments.
    @Test func graphInstanceMadeWithArgumentsIsSharedInItsGraph() {
        final class Pair {
            var first: Dog?
            var second: Dog?
        }
        let container = Container()
        container.register(Dog.self) { (_, name: String) in Dog(name: name) }
        container.register(Pair.self) { r in
            let pair = Pair()
            pair.first = r.resolve(Dog.self, argument: "a")
            pair.second = r.resolve(Dog.self, argument: "b")
            return pair
        }
        let pair = container.resolve(Pair.self)
        #expect(pair?.first != nil)
        #expect(pair?.first === pair?.second)
        #expect(pair?.second?.name == "a")
        #expect(container.resolve(Dog.self, argument: "c") !== container.resolve(Dog.self, argument: "c"))
    }

    /// A custom storage that keeps what it is given is asked, stored into and told that the graph
    /// ended as in Swinject.
    @Test func customStorageIsUsedOncePerInstanceItKeeps() {
        final class Recording: InstanceStorage {
            var instance: Any?
            var completions = 0
            var stores = 0
            var reads = 0
            func graphResolutionCompleted() { completions += 1 }
            func instance(inGraph graph: GraphIdentifier) -> Any? {
                reads += 1
                return instance
            }
            func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
                stores += 1
                self.instance = instance
            }
        }
        final class Thrice {}
        let storage = Recording()
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
            .inObjectScope(ObjectScope(storageFactory: { storage }, description: "recording"))
        container.register(Thrice.self) { r in
            for _ in 0..<3 { _ = r.resolve(Unit.self) }
            return Thrice()
        }
        _ = container.resolve(Thrice.self)
        #expect((storage.completions, storage.stores, storage.reads) == (1, 1, 4))
        _ = container.resolve(Unit.self)
        #expect((storage.completions, storage.stores, storage.reads) == (1, 1, 5))
    }
}

@Suite struct SwinjectParityGraphStorageTests {
    /// A custom scope built on `GraphStorage`, resolved in a factory before and after a
    /// `withObjectGraph` of another graph: the inner graph's end leaves the outer graph's instance.
    @Test func innerGraphEndingLeavesTheOuterGraphsInstance() {
        final class Pair {
            let first: Dog
            let second: Dog
            init(first: Dog, second: Dog) { (self.first, self.second) = (first, second) }
        }
        let perGraph = ObjectScope(storageFactory: GraphStorage.init, description: "per graph")
        let container = Container()
        let inner = Box<Dog?>(nil)
        container.register(Dog.self) { _ in Dog() }.inObjectScope(perGraph)
        container.register(Pair.self) { r in
            let first = r.resolve(Dog.self)!
            inner.value = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Dog.self) }
            return Pair(first: first, second: r.resolve(Dog.self)!)
        }
        let pair = container.resolve(Pair.self)
        #expect(pair?.first === pair?.second)
        #expect(inner.value != nil && inner.value !== pair?.first)
        #expect(container.resolve(Pair.self)?.first !== pair?.first)  // a later resolution starts afresh
    }

    @Test func holdsEachEnclosingGraphsInstanceUntilThatGraphEnds() {
        let storage = GraphStorage()
        let outer = GraphIdentifier()
        let inner = GraphIdentifier()
        storage.setInstance(1, inGraph: outer)
        storage.setInstance(2, inGraph: inner)
        #expect(storage.instance(inGraph: outer) as? Int == 1)
        #expect(storage.instance(inGraph: inner) as? Int == 2)
        storage.graphResolutionCompleted()
        #expect(storage.instance(inGraph: inner) == nil)
        #expect(storage.instance(inGraph: outer) as? Int == 1)
        storage.graphResolutionCompleted()
        #expect(storage.instance(inGraph: outer) == nil)
        #expect(storage.instance == nil)
    }
}

/// Collects values from many threads behind a lock.
private final class Collected<Value: Sendable>: @unchecked Sendable {  // `values` is only touched under `lock`
    private let lock = NSLock()
    private var values: [Value] = []
    func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }
    var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// Runs `body` on `threads` threads at once and returns when all have finished.
private func onThreads(_ threads: Int, _ body: @escaping @Sendable () -> Void) {
    let group = DispatchGroup()
    for _ in 0..<threads {
        group.enter()
        Thread {
            body()
            group.leave()
        }
        .start()
    }
    group.wait()
}

@Suite struct SwinjectParitySynchronizedTests {
    private final class Kennel: Sendable {}

    @Test func concurrentResolutionsEachHaveTheirOwnGraph() {
        let graphs = Collected<GraphIdentifier>()
        let container = Container {
            $0.register(Kennel.self) { r in
                if let graph = (r as? Container)?.currentObjectGraph { graphs.append(graph) }
                return Kennel()
            }
        }
        let resolver = container.synchronize()
        onThreads(16) {
            for _ in 0..<50 { _ = resolver.resolve(Kennel.self) }
        }
        #expect(graphs.all.count == 16 * 50)
        #expect(Set(graphs.all).count == 16 * 50)
    }

    @Test func providerReadsFromManyThreadsEachHaveTheirOwnGraph() {
        let graphs = Collected<GraphIdentifier>()
        let container = Container()
        container.register(Kennel.self) { r in
            if let graph = (r as? Container)?.currentObjectGraph { graphs.append(graph) }
            return Kennel()
        }
        let resolver = container.synchronize()
        onThreads(16) {
            for _ in 0..<50 { _ = resolver.resolve(Provider<Kennel>.self)?.instance }
        }
        #expect(graphs.all.count == 16 * 50)
        #expect(Set(graphs.all).count == 16 * 50)
    }

    @Test(arguments: [ObjectScope.transient, .graph, .container])
    func viewsOfAParentAndItsChildResolveTogether(_ scope: ObjectScope) {
        let parent = Container { $0.register(Kennel.self) { _ in Kennel() }.inObjectScope(scope) }
        let parentView = parent.synchronize()
        let childView = Container(parent: parent).synchronize()
        let failures = Collected<Int>()
        onThreads(8) {
            for index in 0..<200 {
                let view = index.isMultiple(of: 2) ? parentView : childView
                if view.resolve(Kennel.self) == nil { failures.append(index) }
            }
        }
        #expect(failures.all.isEmpty)
    }

    @Test func propertyCycleResolvedFromManyThreadsIsOneGraphEach() {
        final class Owner: @unchecked Sendable { var pet: Pet? }  // written only inside its own resolution
        final class Pet: @unchecked Sendable { weak var owner: Owner? }  // written only inside its own resolution
        let container = Container {
            $0.register(Owner.self) { _ in Owner() }.initCompleted { r, owner in owner.pet = r.resolve(Pet.self) }
            $0.register(Pet.self) { _ in Pet() }.initCompleted { r, pet in pet.owner = r.resolve(Owner.self) }
        }
        let resolver = container.synchronize()
        let broken = Collected<Int>()
        onThreads(8) {
            for index in 0..<200 {
                let owner = resolver.resolve(Owner.self)
                if owner == nil || owner?.pet?.owner !== owner { broken.append(index) }
            }
        }
        #expect(broken.all.isEmpty)
    }
}
