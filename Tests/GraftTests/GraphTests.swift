import Foundation
import Testing

@testable import Graft

@Suite struct GraphTests {
    @Test func identifierExistsOnlyDuringAResolution() {
        let container = Container()
        let seen = Box<[GraphIdentifier?]>([])
        container.register(Dog.self) { r in
            seen.value.append((r as? Container)?.currentObjectGraph)
            _ = r.resolve(Cat.self)
            return Dog()
        }
        container.register(Cat.self) { r in
            seen.value.append(r.resolve(GraphIdentifier.self))
            return Cat()
        }
        #expect(container.currentObjectGraph == nil)
        _ = container.resolve(Dog.self)
        _ = container.resolve(Dog.self)
        #expect(container.currentObjectGraph == nil)
        #expect(container.resolve(GraphIdentifier.self) == nil)
        #expect(seen.value.count == 4)
        #expect(seen.value.allSatisfy { $0 != nil })
        #expect(seen.value[0] == seen.value[1])
        #expect(seen.value[2] == seen.value[3])
        #expect(seen.value[0] != seen.value[2])
    }

    /// Only the unnamed `GraphIdentifier` is the current graph: a name asks for a registration,
    /// as in Swinject.
    @Test func identifierAskedForUnderANameIsNotTheCurrentGraph() {
        let container = Container()
        let seen = Box<[GraphIdentifier?]>([])
        container.register(Dog.self) { r in
            seen.value = [r.resolve(GraphIdentifier.self), r.resolve(GraphIdentifier.self, name: "graph")]
            return Dog()
        }
        _ = container.resolve(Dog.self)
        #expect(seen.value.count == 2)
        #expect(seen.value.first.flatMap { $0 } != nil)
        #expect(seen.value.last.flatMap { $0 } == nil)
    }

    @Test func withObjectGraphSharesGraphInstancesAcrossCalls() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
        let (first, second) = container.withObjectGraph(GraphIdentifier()) {
            ($0.resolve(Dog.self), $0.resolve(Dog.self))
        }
        #expect(first != nil)
        #expect(first === second)
        #expect(container.resolve(Dog.self) !== first)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func nestedGraphLeavesTheOuterGraphIntact() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }
        let other = GraphIdentifier()
        container.register(PetOwner.self) { r in
            let owner = PetOwner()
            owner.favoriteFood = r.resolve(Food.self)
            let elsewhere = container.withObjectGraph(other) { $0.resolve(Food.self) }
            #expect(elsewhere !== owner.favoriteFood)
            #expect(r.resolve(Food.self) === owner.favoriteFood)
            return owner
        }
        #expect(container.resolve(PetOwner.self)?.favoriteFood != nil)
    }

    @Test func aGraphWhoseIdentifierEscapedCanBeResolvedInAgain() {
        let container = Container()
        let graph = Box<GraphIdentifier?>(nil)
        container.register(Dog.self) { r in
            graph.value = r.resolve(GraphIdentifier.self)
            return Dog()
        }
        let first = container.resolve(Dog.self)!
        let (second, third) = container.withObjectGraph(graph.value!) {
            ($0.resolve(Dog.self), $0.resolve(Dog.self))
        }
        #expect(second === first)
        #expect(third === first)
        #expect(container.resolve(Dog.self) !== first)
    }

    @Test func identifiersAreUnique() {
        let identifiers = (0..<1_000).map { _ in GraphIdentifier() }
        #expect(Set(identifiers).count == 1_000)
    }

    #if os(Linux)
        /// Run in a process of its own: resident memory is the process's, and the tests running in
        /// parallel here (threads, registrations by the thousand) move it by tens of megabytes.
        @Test func memoryStaysFlatOverManyGraphResolutions() async {
            await #expect(processExitsWith: .success) {
                let container = Container()
                container.register(FlatLeaf.self) { _ in FlatLeaf() }
                container.register(FlatBranch.self) { r in
                    FlatBranch(r.resolve(FlatLeaf.self)!, r.resolve(FlatLeaf.self)!)
                }
                container.register(FlatRoot.self) { r in
                    FlatRoot(r.resolve(FlatBranch.self)!, r.resolve(FlatLeaf.self)!)
                }
                for _ in 0..<20_000 { _ = container.resolve(FlatRoot.self) }  // warm up: buffers reach their size
                let before = residentBytes()
                for _ in 0..<300_000 { _ = container.resolve(FlatRoot.self) }
                let growth = residentBytes() - before
                // A leak of even 100 bytes a resolution would add 30 MB here (Swinject 2.10 adds over
                // 100). `graphKeepsNothingAfterTheResolution` counts the instances themselves.
                if growth >= 8 << 20 { fatalError("resident memory grew by \(growth) bytes") }
            }
        }
    #endif

    @Test func aFailureInsideWithObjectGraphDoesNotSpoilLaterResolutions() {
        let container = Container()
        let completed = Counter()
        container.register(Parent.self) { _ in Parent() }
            .initCompleted { r, parent in
                completed.increment()
                parent.child = r.resolve(Child.self)
            }
        container.register(Child.self) { _ in Child() }
            .initCompleted { r, child in child.parent = r.resolve(Parent.self) }
        Loop.register(in: container)
        container.register(Holder.self, name: "failing") { r in
            let holder = Holder()
            _ = try r.require(Loop.self)  // thrown on: this resolution fails
            return holder
        }
        container.register(Holder.self) { _ in Holder() }.inObjectScope(.container)

        let graph = GraphIdentifier()
        container.withObjectGraph(graph) { c in
            #expect(c.resolve(Holder.self, name: "failing") == nil)
            let parent = c.resolve(Parent.self)
            #expect(parent != nil)
            #expect(parent?.child?.parent === parent)  // not a half-built cycle
            #expect(c.resolve(Parent.self) === parent)  // shared within the graph
            #expect(c.resolve(Holder.self) === c.resolve(Holder.self))
        }
        #expect(completed.value == 1)
        #expect(container.resolve(Holder.self) != nil)
    }

    @Test func aFailedResolutionInsideWithObjectGraphReturnsNilAndKeepsNothing() {
        let container = Container()
        let made = Counter()
        container.register(Holder.self) { r in
            made.increment()
            let holder = Holder()
            holder.payload = r.resolve(Payload.self)
            return holder
        }
        Loop.register(in: container)
        container.register(Holder.self, name: "kept") { r in
            let holder = Holder()
            holder.other = r.resolve(Holder.self, name: "inner")
            _ = try r.require(Loop.self)  // fails
            return holder
        }
        container.register(Holder.self, name: "inner") { _ in Holder() }.inObjectScope(.container)
        container.withObjectGraph(GraphIdentifier()) { c in
            #expect(c.resolve(Holder.self, name: "kept") == nil)
            container.register(Payload.self) { _ in Payload() }
            let holder = c.resolve(Holder.self)
            #expect(holder?.payload != nil)
        }
        // The failed resolution's container-scoped instance is not kept: this resolution makes one.
        let inner = container.resolve(Holder.self, name: "inner")
        #expect(inner != nil)
        #expect(made.value == 1)
    }

    @Test func escapedGraphRecordsAreSweptOnceTheirInstancesDie() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        container.register(Job.self) { r in Job(unit: r.resolve(Unit.self)!, later: r.resolve(Lazy<Unit>.self)!) }
        for _ in 0..<10_000 { _ = container.resolve(Job.self) }
        #expect(container.hierarchy.resolution.rememberedGraphCount < 200)
    }

    @Test func resetObjectScopeGraphInsideAFactoryKeepsTheGraphShared() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        container.register(Job.self) { r in
            let unit = r.resolve(Unit.self)!
            container.resetObjectScope(.graph)
            return Job(unit: unit, later: r.resolve(Lazy<Unit>.self)!)
        }
        container.register(Holder.self) { r in
            let job = r.resolve(Job.self)!
            let holder = Holder()
            holder.payload = job.unit === r.resolve(Unit.self) ? Payload() : nil
            return holder
        }
        #expect(container.resolve(Holder.self)?.payload != nil)
    }

    /// `withObjectGraph` inside a factory: the outer graph's instances are back in place before any
    /// `deinit` of the inner graph's runs, and stay one per graph.
    @Test func innerGraphInsideAFactoryKeepsTheOuterGraphWhole() {
        final class Pair {
            let first: Numbered
            let second: Numbered
            init(_ first: Numbered, _ second: Numbered) {
                self.first = first
                self.second = second
            }
        }
        let container = Container()
        let made = Box(0)
        container.register(Echo.self) { _ in Echo { _ = container.resolve(Numbered.self) } }
        container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value)
        }
        container.register(Pair.self) { r in
            _ = r.resolve(Echo.self)
            let first = r.resolve(Numbered.self)!
            container.withObjectGraph(GraphIdentifier()) { _ = $0.resolve(Echo.self) }
            return Pair(first, r.resolve(Numbered.self)!)
        }
        let pair = container.resolve(Pair.self)!
        #expect(pair.first === pair.second)
    }

    @Test(arguments: [false, true])
    func graphResolvedInsideAFactoryIsFoundAgain(outerHoldsTheService: Bool) {
        let container = Container()
        let graph = GraphIdentifier()
        let kept = Box<Numbered?>(nil)
        let made = Box(0)
        container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value)
        }
        container.register(Unit.self) { r in
            if outerHoldsTheService { _ = r.resolve(Numbered.self) }
            kept.value = container.withObjectGraph(graph) { $0.resolve(Numbered.self) }
            return Unit()
        }
        _ = container.resolve(Unit.self)
        #expect(container.withObjectGraph(graph) { $0.resolve(Numbered.self) } === kept.value)
    }
}

private final class FlatLeaf {}
private final class FlatBranch {
    let left: FlatLeaf
    let right: FlatLeaf
    init(_ left: FlatLeaf, _ right: FlatLeaf) { self.left = left; self.right = right }
}
private final class FlatRoot {
    let branch: FlatBranch
    let leaf: FlatLeaf
    init(_ branch: FlatBranch, _ leaf: FlatLeaf) { self.branch = branch; self.leaf = leaf }
}
