import Testing

@testable import Graft

private struct Boxed {
    let echo: Echo
}

/// The end of a graph: a class instance kept by a graph-scoped entry is released without a call
/// into the entry (`InstanceCell.releaseFinishedReference`), other values go through the entry, and
/// a `deinit` run by that release may resolve, register or remove, in a graph of its own.
@Suite struct GraphEndTests {
    @Test func onlyClassTypesAreReleasedWithoutTheEntry() {
        #expect(InstanceCell.isReference(Part.self))
        #expect(!InstanceCell.isReference((any Shape).self))
        #expect(!InstanceCell.isReference(AnyObject.self) || MemoryLayout<AnyObject>.size == 8)
        #expect(!InstanceCell.isReference(Boxed.self))
        #expect(!InstanceCell.isReference(Int.self))
        #expect(!InstanceCell.isReference(Part?.self))
    }

    @Test func aDeinitRunByTheReleaseMayRemoveRegisterAndResolve() {
        // The holder's factory drops the echo it resolves: only the graph keeps it, so its
        // `deinit` runs inside the release at the end of the graph.
        let container = Container()
        var released = 0
        func register() {
            container.register(Echo.self) { _ in
                Echo {
                    released += 1
                    guard released < 3 else { return }
                    container.removeAll()
                    register()
                    _ = container.resolve(Part.self)  // a new graph, ended inside this release
                }
            }
            container.register(Part.self) { r in
                _ = r.resolve(Echo.self)
                return Part("holder", [r.resolve(Part.self, name: "missing")])
            }
        }
        register()
        #expect(container.resolve(Part.self)?.children.count == 1)
        #expect(released == 3)
        #expect(container.resolve(Part.self)?.label == "holder")
        #expect(released == 4)
    }

    @Test func valuesThatAreNotOneReferenceAreReleasedThroughTheEntry() {
        let container = Container()
        var released: [String] = []
        container.register((any Shape).self) { _ in Circle { released.append("shape") } }
        container.register(Boxed.self) { _ in Boxed(echo: Echo { released.append("boxed") }) }
        container.register(Part.self) { r in
            _ = r.resolve((any Shape).self)
            _ = r.resolve(Boxed.self)
            return Part("p")
        }
        _ = container.resolve(Part.self)
        #expect(released.sorted() == ["boxed", "shape"])
    }

    @Test func aCustomStorageIsStillToldThatTheGraphEnded() {
        final class Counting: InstanceStorage {
            var instance: Any?
            var completed = 0
            func graphResolutionCompleted() { completed += 1 }
        }
        let storage = Counting()
        let scope = ObjectScope(storageFactory: { storage }, description: "counting")
        let container = Container()
        let entry = container.register(Part.self) { _ in Part("custom") }.inObjectScope(scope)
        #expect(entry.cell.entryHasStorage)
        _ = container.resolve(Part.self)
        #expect(storage.completed == 1)
        entry.inObjectScope(.graph)
        #expect(!entry.cell.entryHasStorage)
        _ = container.resolve(Part.self)
        #expect(storage.completed == 1)
    }

    @Test func deinitResolvingDuringGraphTeardownReleasesOnce() {
        let container = Container()
        let released = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Echo.self) { _ in
            Echo {
                released.increment()
                _ = container.resolve(Tracker.self)
            }
        }
        container.register(Root.self) { r in Root(r.resolve(Echo.self)) }
        for _ in 0..<3 { #expect(container.resolve(Root.self) != nil) }
        #expect(released.value == 3)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func deinitResolvingGraphServicesDuringTeardownGetsAGraphOfItsOwn() {
        let container = Container()
        let seen = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Echo.self) { r in
            Echo {
                // Resolved while the finished graph is being released: a new graph, new instances.
                let first = container.resolve(Echo.self, name: "plain")
                let second = container.resolve(Echo.self, name: "plain")
                if first != nil, first !== second { seen.increment() }
            }
        }
        container.register(Echo.self, name: "plain") { _ in Echo {} }
        container.register(Root.self) { r in Root(r.resolve(Echo.self)) }
        _ = container.resolve(Root.self)
        #expect(seen.value == 1)
    }

    /// A `deinit` during a graph's end recalls an earlier graph's instance into a cell that still
    /// holds the ending graph's value, whose own `deinit` changes the entry.
    @Test func recallIntoACellStillHoldingAFinishedValue() {
        final class Holder {
            let numbered: Numbered
            let lazy: Lazy<Numbered>
            init(_ numbered: Numbered, _ lazy: Lazy<Numbered>) {
                self.numbered = numbered
                self.lazy = lazy
            }
        }
        final class Root {}
        let container = Container()
        let made = Box(0)
        let lazyOfFirstGraph = Box<Lazy<Numbered>?>(nil)
        let recalled = Box(0)
        let entry = Box<ServiceEntry<Numbered>?>(nil)
        entry.value = container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value) { number in if number == 2 { entry.value?.inObjectScope(.graph) } }
        }
        container.register(Echo.self) { _ in Echo { recalled.value = lazyOfFirstGraph.value?.instance.number ?? -1 } }
        container.register(Holder.self) { r in Holder(r.resolve(Numbered.self)!, r.resolve(Lazy<Numbered>.self)!) }
        container.register(Root.self) { r in
            _ = r.resolve(Echo.self)
            _ = r.resolve(Numbered.self)
            return Root()
        }
        let holder = container.resolve(Holder.self)!
        lazyOfFirstGraph.value = holder.lazy
        _ = container.resolve(Root.self)
        #expect(recalled.value == holder.numbered.number)
    }

    /// A finished value displaced by a resolution in a `deinit` is released only once that
    /// resolution has listed its own instance: a new graph opened by its `deinit` makes its own.
    @Test func displacedFinishedValueIsNotSharedWithAnotherGraph() {
        final class Root {}
        let container = Container()
        let made = Box(0)
        let fromTrigger = Box<Numbered?>(nil)
        let fromOtherGraph = Box<Numbered?>(nil)
        container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value) { number in
                guard number == 1 else { return }
                fromOtherGraph.value = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Numbered.self) }
            }
        }
        container.register(Echo.self) { _ in Echo { fromTrigger.value = container.resolve(Numbered.self) } }
        container.register(Root.self) { r in
            _ = r.resolve(Echo.self)
            _ = r.resolve(Numbered.self)
            return Root()
        }
        _ = container.resolve(Root.self)
        #expect(fromTrigger.value != nil)
        #expect(fromOtherGraph.value != nil)
        #expect(fromTrigger.value !== fromOtherGraph.value)
    }

    /// A `deinit` run by a graph's end reads a `Lazy` of that graph: it finds the graph's instance.
    @Test func lazyReadInADeinitDuringItsGraphsEnd() {
        final class User {
            let numbered: Numbered
            let lazy: Lazy<Numbered>
            let sawOwn: Box<Bool?>
            init(_ numbered: Numbered, _ lazy: Lazy<Numbered>, _ sawOwn: Box<Bool?>) {
                self.numbered = numbered
                self.lazy = lazy
                self.sawOwn = sawOwn
            }
            deinit { sawOwn.value = lazy.instance === numbered }
        }
        final class Root { init(_: User) {} }
        let container = Container()
        let sawOwn = Box<Bool?>(nil)
        let made = Box(0)
        container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value)
        }
        container.register(User.self) { r in User(r.resolve(Numbered.self)!, r.resolve(Lazy<Numbered>.self)!, sawOwn) }
        container.register(Root.self) { r in Root(r.resolve(User.self)!) }
        _ = container.resolve(Root.self)
        #expect(sawOwn.value == true)
    }

    // A graph holds the entry of each member it lists (a count taken when the member is listed,
    // given back at the end of its teardown), so an entry whose table drops it while the graph
    // lists it lives until the graph ends, and not after; its release may run user code.

    @Test(arguments: [false, true])
    func anEntryOfAChildContainerDroppedInAFactoryLivesUntilTheGraphEnds(throughView: Bool) {
        let root = Container()
        let resolver: Resolver = throughView ? root.synchronize() : root
        weak var droppedContext: Tracker?
        var aliveWhenTheFactoryReturned: Bool?
        root.register(Part.self) { r in
            var child: Container? = Container(parent: root)
            do {
                let tracker = Tracker()
                droppedContext = tracker
                child?.register(Part.self, name: "inner") { _ in
                    withExtendedLifetime(tracker) {}
                    return Part("inner")
                }
            }
            let inner = child?.resolve(Part.self, name: "inner")
            let again = child?.resolve(Part.self, name: "inner")
            child = nil  // the child's table, and its entry, are dropped here
            aliveWhenTheFactoryReturned = droppedContext != nil
            return Part("outer", [inner, again, r.resolve(Part.self, name: "missing")])
        }
        let made = resolver.resolve(Part.self)
        #expect(made?.children.first??.label == "inner")
        #expect(made?.children[0] === made?.children[1], "one instance in the graph")
        #expect(aliveWhenTheFactoryReturned == true)
        #expect(droppedContext == nil, "the entry is released when the graph ends")
    }

    @Test func anEntryReleasedAtItsGraphsEndMayResolveRegisterAndRemove() {
        let container = Container()
        var resolvedFromTheRelease: [String?] = []
        container.register(Part.self, name: "other") { _ in Part("other") }
        for round in 0..<3 {
            do {
                let echo = Echo {
                    container.register(Part.self, name: "late") { _ in Part("late") }
                    resolvedFromTheRelease.append(container.resolve(Part.self, name: "other")?.label)
                    if round == 2 { container.removeAll() }
                }
                container.register(Part.self) { r in
                    withExtendedLifetime(echo) {}
                    // Replaced while its factory runs: the graph's member holds the old entry.
                    container.register(Part.self) { _ in Part("replacement") }
                    return Part("first", [r.resolve(Part.self, name: "other")])
                }
            }
            #expect(container.resolve(Part.self)?.label == "first")
            #expect(resolvedFromTheRelease.count == round + 1, "the replaced entry is released with its graph")
        }
        #expect(resolvedFromTheRelease == ["other", "other", "other"])
        #expect(container.resolve(Part.self, name: "late") == nil)
    }
}
