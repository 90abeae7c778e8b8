import Foundation
import Testing

@testable import Graft

// Regression tests for the memory-safety and correctness bugs of issue 7, one or more per bug,
// numbered as in the issue. Each failed (or crashed) before the fix.

private final class Tracker {}
private final class Leaf {
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}
private final class Root {
    init(_: Leaf?) {}
}
private final class Unit {}
private class Pet {}
private final class PetCat: Pet {}
private final class PetDog: Pet {}
private final class Job {
    let unit: Unit
    let later: Lazy<Unit>
    init(unit: Unit, later: Lazy<Unit>) {
        self.unit = unit
        self.later = later
    }
}
private final class Payload {}
/// Its factory needs itself: resolving it is a constructor cycle, the way a resolution fails.
private final class Loop {
    init(_: Loop?) {}
    static func register(in container: Container) {
        container.register(Loop.self) { r in Loop(r.resolve(Loop.self)) }
    }
}
private final class Holder {
    var payload: Payload?
    var other: Holder?
}

/// Runs `body` on a thread with a `stackSize`-byte stack and waits for it.
private func onThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
}

@Suite struct ReliabilityTests {
    // MARK: 1. A deinit that resolves during graph teardown

    @Test func deinitResolvingDuringGraphTeardownReleasesOnce() {
        let container = Container()
        let released = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Leaf.self) { _ in
            Leaf {
                released.increment()
                _ = container.resolve(Tracker.self)
            }
        }
        container.register(Root.self) { r in Root(r.resolve(Leaf.self)) }
        for _ in 0..<3 { #expect(container.resolve(Root.self) != nil) }
        #expect(released.value == 3)
        #expect(container.hierarchy.depth == 0)
    }

    @Test func deinitResolvingGraphServicesDuringTeardownGetsAGraphOfItsOwn() {
        let container = Container()
        let seen = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Leaf.self) { r in
            Leaf {
                // Resolved while the finished graph is being released: a new graph, new instances.
                let first = container.resolve(Leaf.self, name: "plain")
                let second = container.resolve(Leaf.self, name: "plain")
                if first != nil, first !== second { seen.increment() }
            }
        }
        container.register(Leaf.self, name: "plain") { _ in Leaf {} }
        container.register(Root.self) { r in Root(r.resolve(Leaf.self)) }
        _ = container.resolve(Root.self)
        #expect(seen.value == 1)
    }

    @Test func deinitResolvingDuringRollbackOfAFailedResolution() {
        let container = Container()
        let released = Counter()
        final class Broken { init(_: Tracker) {} }
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Leaf.self) { _ in
            Leaf {
                released.increment()
                _ = container.resolve(Tracker.self)
                _ = container.resolve(Broken.self)  // fails too, inside the rollback
            }
        }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Broken.self) { r in
            _ = r.resolve(Loop.self)
            return Broken(Tracker())
        }
        // The failed resolution drops the container-scoped Leaf; its deinit resolves and fails again.
        container.register(Root.self) { r in
            _ = r.resolve(Leaf.self)
            _ = r.resolve(Loop.self)  // a cycle: fails the resolution
            return Root(nil)
        }
        #expect(container.resolve(Root.self) == nil)
        #expect(released.value == 1)
        #expect(container.hierarchy.depth == 0)
        #expect(container.resolve(Tracker.self) != nil)
    }

    // MARK: 2. Keys from the static type

    @Test func registrationIsKeyedByTheStaticType() {
        let container = Container()
        let type: Pet.Type = PetCat.self
        container.register(type) { _ in PetDog() }.inObjectScope(.container)
        #expect(container.resolve(PetCat.self) == nil)
        #expect(container.resolve(Pet.self) is PetDog)
        #expect(container.resolve(Pet.self) === container.resolve(Pet.self))
        #expect(container.resolve(PetCat.self) == nil)  // also once an instance is kept
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

    @Test func resolutionIsKeyedByTheStaticType() {
        let container = Container()
        container.register(Pet.self) { _ in PetDog() }
        container.register(PetCat.self) { _ in PetCat() }
        let asked: Pet.Type = PetCat.self
        #expect(container.resolve(asked) is PetDog)
    }

    // MARK: 3. One-element argument packs

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

    // MARK: 4. A cached Lazy after its container is gone

    @Test func cachedLazyOutlivesItsContainer() {
        var container: Container? = Container()
        container!.register(Unit.self) { _ in Unit() }
        let lazy = container!.resolve(Lazy<Unit>.self)!
        let first = lazy.instance
        weak let gone = container
        container = nil
        #expect(gone == nil)
        #expect(lazy.instance === first)
    }

    @Test func cachedSynchronizedLazyOutlivesItsContainer() {
        var container: Container? = Container()
        container!.register(Unit.self) { _ in Unit() }
        let lazy = container!.synchronize().resolve(Lazy<Unit>.self)!
        let first = lazy.instance
        container = nil
        #expect(lazy.instance === first)
    }

    // MARK: 5. implements after the container is gone

    @Test func implementsAfterTheContainerIsGoneDoesNothing() {
        var container: Container? = Container()
        let entry = container!.register(Cat.self) { _ in Cat() }
        container = nil
        entry.implements(Animal.self)
        entry.implements(Animal.self, Food.self)
        #expect(ObjectIdentifier(entry.serviceType) == ObjectIdentifier(Cat.self))
    }

    // MARK: 6. Each resolution inside withObjectGraph succeeds or fails on its own

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
            _ = r.resolve(Loop.self)  // a cycle: this resolution fails
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
            _ = r.resolve(Loop.self)  // fails
            return holder
        }
        container.register(Holder.self, name: "inner") { _ in Holder() }.inObjectScope(.container)
        container.withObjectGraph(GraphIdentifier()) { c in
            #expect(c.resolve(Holder.self, name: "kept") == nil)
            container.register(Payload.self) { _ in Payload() }
            let holder = c.resolve(Holder.self)
            #expect(holder?.payload != nil)
        }
        // The failed resolution's container-scoped instance was dropped: a new one is made now.
        let inner = container.resolve(Holder.self, name: "inner")
        #expect(inner != nil)
        #expect(made.value == 1)
    }

    // MARK: 7. deinits that register or remove while the table changes

    /// A container holding a `.container`-scoped `Leaf` whose `deinit` registers `count` named
    /// `Unit`s ("n0", "n1", ...): enough to grow the table while it is being changed.
    private func containerWithRegisteringLeaf(registering count: Int) -> Container {
        let container = Container()
        container.register(Leaf.self) { _ in
            Leaf {
                for index in 0..<count { container.register(Unit.self, name: "n\(index)") { _ in Unit() } }
            }
        }.inObjectScope(.container)
        _ = container.resolve(Leaf.self)
        return container
    }

    @Test func deinitRegisteringWhileARegistrationIsReplaced() {
        let container = containerWithRegisteringLeaf(registering: 200)
        // Replacing releases the old entry, its Leaf, and the deinit grows the table meanwhile.
        container.register(Leaf.self) { _ in Leaf {} }
        for index in 0..<200 { #expect(container.resolve(Unit.self, name: "n\(index)") != nil) }
        #expect(container.resolve(Leaf.self) != nil)
        #expect(container.services.count == 201)
    }

    @Test func deinitRegisteringDuringRemoveAllIsKept() {
        let container = containerWithRegisteringLeaf(registering: 100)
        container.removeAll()
        #expect(container.services.count == 100)
        #expect(container.resolve(Leaf.self) == nil)
        for index in 0..<100 { #expect(container.resolve(Unit.self, name: "n\(index)") != nil) }
        // The count is right, so the table grows before it fills, and every probe ends.
        for index in 100..<1_000 { container.register(Unit.self, name: "n\(index)") { _ in Unit() } }
        #expect(container.resolve(Unit.self, name: "missing") == nil)
        #expect(container.services.count == 1_000)
    }

    @Test func deinitRemovingAllDuringResetObjectScope() {
        let container = Container()
        container.register(Leaf.self) { _ in Leaf { container.removeAll() } }.inObjectScope(.container)
        container.register(Unit.self) { _ in Unit() }.inObjectScope(.container)
        _ = container.resolve(Leaf.self)
        _ = container.resolve(Unit.self)
        container.resetObjectScope(.container)
        #expect(container.resolve(Unit.self) == nil)
        #expect(container.services.count == 0)
    }

    @Test func factoryRemovingItsOwnRegistration() {
        let container = Container()
        container.register(Unit.self) { _ in
            container.removeAll()
            return Unit()
        }.inObjectScope(.container)
        #expect(container.resolve(Unit.self) != nil)
        #expect(container.resolve(Unit.self) == nil)
    }

    @Test func deinitRegisteringWhenInObjectScopeDropsTheInstance() {
        let container = Container()
        let entry = container.register(Leaf.self) { _ in
            Leaf { container.register(Unit.self) { _ in Unit() } }
        }.inObjectScope(.container)
        _ = container.resolve(Leaf.self)
        entry.inObjectScope(.transient)
        #expect(container.resolve(Unit.self) != nil)
    }

    // MARK: 8. A deinit that resolves during a failed resolution's rollback

    @Test func deinitResolvingDuringRollbackSucceeds() {
        let container = Container()
        let resolvedInDeinit = Counter()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Leaf.self) { _ in
            Leaf {
                // Runs while the failed resolution is rolled back: a resolution of its own.
                if container.resolve(Tracker.self) != nil { resolvedInDeinit.increment() }
            }
        }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Holder.self) { r in
            _ = r.resolve(Leaf.self)
            _ = r.resolve(Loop.self)
            return Holder()
        }
        #expect(container.resolve(Holder.self) == nil)
        #expect(resolvedInDeinit.value == 1)
        #expect(container.hierarchy.depth == 0)
        #expect(container.hierarchy.failure == nil)
        #expect(container.resolve(Leaf.self) != nil)
    }

    // MARK: 9. The logging function runs with no lock held

    @Test func loggingFunctionRunsWithNoLockOfGraftsHeld() {
        let capture = LogCapture()
        _ = capture
        let first = Container()
        let firstHierarchy = UncheckedBox(first.hierarchy)
        let second = Container()
        final class Absent9 {}
        final class Present9 {}
        second.register(Present9.self) { _ in Present9() }
        let firstView = first.synchronize()
        let secondView = second.synchronize()
        let mutexFree = Counter()
        let previous = Container.loggingFunction
        defer { Container.loggingFunction = previous }
        Container.loggingFunction = { message in
            previous?(message)
            guard message.contains("Absent9") else { return }
            // Another thread can take the failing hierarchy's mutex: this thread does not hold it.
            let other = DispatchSemaphore(value: 0)
            let taken = LockedFlag()
            Thread {
                if firstHierarchy.value.mutex.tryWithLock({ true }) == true { taken.set() }
                other.signal()
            }.start()
            other.wait()
            if taken.value { mutexFree.increment() }
            _ = secondView.resolve(Present9.self)  // and may resolve in another hierarchy
        }
        #expect(firstView.resolve(Absent9.self) == nil)
        #expect(mutexFree.value == 1)
    }

    // MARK: 10. Optional, Any and AnyObject services in custom and weak scopes

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

    @Test func weakScopeSharesAnOptionalService() {
        let container = Container()
        container.register(Cat?.self) { _ in Cat() }.inObjectScope(.weak)
        let held = container.resolve(Cat?.self)!!
        #expect(container.resolve(Cat?.self)!! === held)
    }

    // MARK: 11. Names that Swift considers equal

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

    @Test func nameHashAgreesWithStringEquality() {
        let pairs = [
            ("caf\u{E9}", "cafe\u{301}"), ("\u{212A}", "K"), ("a\u{1FEF}b", "a`b"), ("\u{212B}", "\u{C5}"),
            ("\u{1E9B}\u{323}", "\u{17F}\u{323}\u{307}"), ("plain", "plain"), ("", ""),
        ]
        for (left, right) in pairs {
            #expect(left == right)
            #expect(RegistrationTable.nameHash(left) == RegistrationTable.nameHash(right))
        }
    }

    @Test func nameHashTellsApartNamesThatDifferInOneByteOrInLength() {
        var names = (0..<5_000).map { "service-\($0)" }
        names += ["", "a", "a\u{0}", "a\u{0}\u{0}", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "bbcdefgh"]
        names += (0..<64).map { String(repeating: "x", count: $0 + 1) }
        let hashes = Set(names.map(RegistrationTable.nameHash))
        #expect(hashes.count == names.count)
        let container = Container()
        for name in names { container.register(Unit.self, name: name) { _ in Unit() } }
        #expect(names.allSatisfy { container.resolve(Unit.self, name: $0) != nil })
        #expect(container.resolve(Unit.self, name: "service-5000") == nil)
    }

    // MARK: 12. Custom-scoped chains and the depth limit

    @Test func twoHundredCustomScopedLevelsResolve() {
        let container = Container()
        let permanent = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")
        let levels = 200
        for level in 0..<levels {
            container.register(Holder.self, name: "\(level)") { r in
                let holder = Holder()
                if level + 1 < levels { holder.other = r.resolve(Holder.self, name: "\(level + 1)") }
                return holder
            }.inObjectScope(permanent)
        }
        let top = container.resolve(Holder.self, name: "0")
        var depth = 0
        var node = top
        while let current = node {
            depth += 1
            node = current.other
        }
        #expect(depth == levels)
    }

    // MARK: 13. A Lazy keeps its graph however many graphs escape later

    @Test func lazyFindsItsOwnGraphAfterOthersEscaped() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        container.register(Job.self) { r in Job(unit: r.resolve(Unit.self)!, later: r.resolve(Lazy<Unit>.self)!) }
        let first = container.resolve(Job.self)!
        let second = container.resolve(Job.self)!
        let third = container.resolve(Job.self)!
        #expect(first.later.instance === first.unit)
        #expect(third.later.instance === third.unit)
        #expect(second.later.instance === second.unit)
        #expect(first.unit !== second.unit)
    }

    @Test func escapedGraphRecordsAreSweptOnceTheirInstancesDie() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        container.register(Job.self) { r in Job(unit: r.resolve(Unit.self)!, later: r.resolve(Lazy<Unit>.self)!) }
        for _ in 0..<10_000 { _ = container.resolve(Job.self) }
        #expect(container.hierarchy.rememberedGraphCount < 200)
    }

    // MARK: 14. Lazy and Provider keep the registration they were made with

    @Test func providerKeepsItsRegistrationAfterRemoveAll() {
        let container = Container()
        container.register(Unit.self) { _ in Unit() }
        let provider = container.resolve(Provider<Unit>.self)!
        container.removeAll()
        #expect(provider.instance !== provider.instance)
    }

    @Test func lazyAndProviderIgnoreLaterReplacementsAndOverrides() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let provider = parent.resolve(Provider<Animal>.self)!
        let lazy = parent.resolve(Lazy<Animal>.self)!
        parent.register(Animal.self) { _ in Dog() }
        #expect(provider.instance is Cat)
        #expect(lazy.instance is Cat)

        let child = Container(parent: parent)
        let childProvider = child.resolve(Provider<Animal>.self)!
        child.register(Animal.self) { _ in Cat(name: "override") }
        #expect(childProvider.instance is Dog)
    }

    // MARK: 15. description of a forwarded type

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

    // MARK: 16. Custom storages, resets inside a factory, stack use

    @Test func failedResolutionClearsAGraphKeyedCustomStorage() {
        let storage = GraphKeyedStorage()
        let scope = ObjectScope(storageFactory: { storage }, description: "per graph")
        let container = Container()
        container.register(Unit.self) { _ in Unit() }.inObjectScope(scope)
        Loop.register(in: container)
        container.register(Holder.self) { r in
            _ = r.resolve(Unit.self)
            _ = r.resolve(Loop.self)  // a cycle
            return Holder()
        }
        #expect(container.resolve(Holder.self) == nil)
        #expect(storage.storedCount == 0)
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

    /// A debug build keeps every frame; Swinject fits 150 levels with arguments in 512 KB, and so
    /// must Graft (its debug frames were 6.4 KB a level; closures, cold paths and forwarding
    /// frames are now off the recursion).
    @Test(arguments: [false, true])
    func deepChainWithArgumentsFitsASmallThreadStack(synchronized: Bool) {
        let container = Container()
        let levels = 150
        for level in 0..<levels {
            container.register(Holder.self, name: "\(level)") { (r, depth: Int) in
                let holder = Holder()
                if level + 1 < levels {
                    holder.other = r.resolve(Holder.self, name: "\(level + 1)", argument: depth + 1)
                }
                return holder
            }
        }
        let reached = LockedFlag()
        let resolver = UncheckedBox<Resolver>(synchronized ? container.synchronize() : container)
        onThread(stackSize: 512 * 1024) {
            var node = resolver.value.resolve(Holder.self, name: "0", argument: 0)
            var depth = 0
            while let current = node {
                depth += 1
                node = current.other
            }
            if depth == levels { reached.set() }
        }
        #expect(reached.value)
    }
}

// Found by a cold read of the rebuilt path, each reproduced first.
@Suite struct ColdReadFindingsTests {
    /// A short-lived child's entry is held last by the hierarchy's list of kept entries; its
    /// instance's `deinit` resolves while that list is being cleared.
    @Test func entryReleasedLastByTheKeptListWhoseInstanceResolves() {
        final class Session {
            let container: Container
            init(container: Container) { self.container = container }
            deinit { _ = container.resolve(Tracker.self) }
        }
        final class Screen {}
        let app = Container()
        app.register(Tracker.self) { _ in Tracker() }
        app.register(Screen.self) { _ in
            let feature = Container(parent: app)
            feature.register(Session.self) { _ in Session(container: app) }.inObjectScope(.container)
            _ = feature.resolve(Session.self)
            return Screen()
        }
        for _ in 0..<3 { #expect(app.resolve(Screen.self) != nil) }
        #expect(app.hierarchy.depth == 0)
    }

    @Test func factoryReplacingAContainerScopedRegistrationItJustResolved() {
        final class Screen {}
        let container = Container()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Leaf.self) { _ in Leaf { _ = container.resolve(Tracker.self) } }.inObjectScope(.container)
        container.register(Screen.self) { r in
            _ = r.resolve(Leaf.self)
            container.register(Leaf.self) { _ in Leaf {} }.inObjectScope(.container)
            return Screen()
        }
        #expect(container.resolve(Screen.self) != nil)
        #expect(container.resolve(Leaf.self) === container.resolve(Leaf.self))
    }

    /// A `Lazy` resolved inside a factory is a request of its own: when the outer resolution then
    /// fails, the container keeps what the `Lazy` made (the `Lazy` has cached it).
    @Test func lazyResolvedInAFailingFactoryKeepsOneSingleton() {
        final class Config {}
        final class Settings {
            let config: Lazy<Config>
            init(config: Lazy<Config>) { self.config = config }
        }
        final class Screen {}
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        container.register(Settings.self) { r in Settings(config: r.resolve(Lazy<Config>.self)!) }
            .inObjectScope(.container)
        let settings = container.resolve(Settings.self)!
        Loop.register(in: container)
        container.register(Screen.self) { r in
            _ = settings.config.instance
            _ = r.resolve(Loop.self)
            return Screen()
        }
        #expect(container.resolve(Screen.self) == nil)
        #expect(settings.config.instance === container.resolve(Config.self))
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

    @Test func forwardingInAChildToTheParentsEntryIsOneHierarchy() {
        let parent = Container()
        let entry = parent.register(Cat.self) { _ in Cat() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward(Animal.self, to: entry)
        #expect(child.resolve(Animal.self) === parent.resolve(Cat.self))
    }
}

// Found by a second cold read (of the two-phase graph teardown), each reproduced first.
@Suite struct SecondColdReadTests {
    final class Numbered {
        let number: Int
        let onDeinit: (Int) -> Void
        init(_ number: Int, onDeinit: @escaping (Int) -> Void = { _ in }) {
            self.number = number
            self.onDeinit = onDeinit
        }
        deinit { onDeinit(number) }
    }
    final class Box<Value> { var value: Value; init(_ value: Value) { self.value = value } }

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
        container.register(Leaf.self) { _ in Leaf { recalled.value = lazyOfFirstGraph.value?.instance.number ?? -1 } }
        container.register(Holder.self) { r in Holder(r.resolve(Numbered.self)!, r.resolve(Lazy<Numbered>.self)!) }
        container.register(Root.self) { r in
            _ = r.resolve(Leaf.self)
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
        container.register(Leaf.self) { _ in Leaf { fromTrigger.value = container.resolve(Numbered.self) } }
        container.register(Root.self) { r in
            _ = r.resolve(Leaf.self)
            _ = r.resolve(Numbered.self)
            return Root()
        }
        _ = container.resolve(Root.self)
        #expect(fromTrigger.value != nil)
        #expect(fromOtherGraph.value != nil)
        #expect(fromTrigger.value !== fromOtherGraph.value)
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
        container.register(Leaf.self) { _ in Leaf { _ = container.resolve(Numbered.self) } }
        container.register(Numbered.self) { _ in
            made.value += 1
            return Numbered(made.value)
        }
        container.register(Pair.self) { r in
            _ = r.resolve(Leaf.self)
            let first = r.resolve(Numbered.self)!
            container.withObjectGraph(GraphIdentifier()) { _ = $0.resolve(Leaf.self) }
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

    /// A cycle met by a resolution that is a request of its own (in `withObjectGraph` inside a
    /// factory) fails that request only.
    @Test func cycleInANestedRequestDoesNotFailTheOuterOne() {
        final class Outer {
            let unit: Unit?
            init(_ unit: Unit?) { self.unit = unit }
        }
        let container = Container()
        let innerFailed = Box(false)
        container.register(Unit.self) { _ in Unit() }
        container.register(Outer.self) { r in
            // Outer again, in a request of its own: a cycle, which fails that request only.
            innerFailed.value = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Outer.self) } == nil
            return Outer(r.resolve(Unit.self))
        }
        #expect(container.resolve(Outer.self)?.unit != nil)
        #expect(innerFailed.value)
    }
}

// Found by a third cold read, each reproduced first.
@Suite struct ThirdColdReadTests {
    final class Box<Value> { var value: Value; init(_ value: Value) { self.value = value } }

    /// A failed request undoes only what it kept: not a singleton kept by a `Lazy`'s own request
    /// after a reset dropped the one the failed request had made.
    @Test func rollbackDropsOnlyTheInstanceThisRequestKept() {
        final class Singleton {}
        final class Root {}
        let container = Container()
        let lazy = Box<Lazy<Singleton>?>(nil)
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        Loop.register(in: container)
        container.register(Root.self) { r in
            _ = r.resolve(Singleton.self)
            container.resetObjectScope(.container)
            lazy.value = r.resolve(Lazy<Singleton>.self)
            _ = lazy.value?.instance
            _ = r.resolve(Loop.self)  // fails this request
            return Root()
        }
        #expect(container.resolve(Root.self) == nil)
        #expect(lazy.value?.instance === container.resolve(Singleton.self))
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
}

/// A custom storage keyed by graph, as Swinject's `GraphStorage` is.
private final class GraphKeyedStorage: InstanceStorage, @unchecked Sendable {  // used on one thread
    private var byGraph: [GraphIdentifier: Any] = [:]
    var instance: Any?
    var storedCount: Int { byGraph.count }
    func instance(inGraph graph: GraphIdentifier) -> Any? { byGraph[graph] }
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        byGraph[graph] = instance
        self.instance = instance
    }
}

/// A flag set on one thread and read on another.
private final class LockedFlag: @unchecked Sendable {  // `flag` is only touched under `lock`
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}

/// Hands a value to another thread in a test that joins it before going on.
private struct UncheckedBox<Value>: @unchecked Sendable {  // the test joins the thread that reads it
    let value: Value
    init(_ value: Value) { self.value = value }
}
