import Foundation
import Testing

@testable import Graft

private protocol Gadget: AnyObject {}
@MainActor private final class Dashboard: Gadget {}
private final class Panel: Gadget {}

/// Counts the instances its factory makes.
@MainActor private final class Made {
    var count = 0
}

/// A main-actor registration replaced by a later `registerMain` of the same type keeps answering
/// through a thread check: an entry the application kept from the first registration must not
/// become reachable without its gate.
@Suite struct ReplacedMainActorRegistrationTests {
    @MainActor @Test func aTypeForwardedToAReplacedRegistrationIsNotHandedToAnotherThread() async {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        let kept = container.resolveMain(Dashboard.self)
        #expect(kept != nil)
        container.registerMain(Dashboard.self) { _ in Dashboard() }  // replaces `first`
        first.implements(Gadget.self)  // the same happens with container.forward(Gadget.self, to: first)
        let resolver = container.synchronize()

        let handed = await onNewThread { HandedBack(resolver.resolve(Gadget.self)) }
        let reachedAnotherThread = handed.object != nil

        #expect(!reachedAnotherThread)
        // On the main actor the forward answers with the instance the replaced registration kept.
        #expect(container.resolve(Gadget.self) === kept)
    }

    @MainActor @Test func aForwardToAReplacedRegistrationMadeAfterTheReplacementChecksTheThread() async {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        container.registerMain(Dashboard.self) { _ in Dashboard() }
        container.forward(Gadget.self, to: first)
        container.forward(Gadget.self, name: "again", to: first)
        let resolver = container.synchronize()

        let handed = await onNewThread {
            HandedBack(resolver.resolve(Gadget.self) ?? resolver.resolve(Gadget.self, name: "again"))
        }
        #expect(handed.object == nil)
        let one = container.resolve(Gadget.self)
        #expect(one != nil)
        #expect(container.resolve(Gadget.self, name: "again") === one)
        #expect(container.resolve(Dashboard.self) !== one)  // the current registration keeps its own
    }

    @MainActor @Test func overridesDoNotHandOutTheOuterInstanceOfAReplacedRegistration() {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        container.forward(Gadget.self, to: first)  // through `first`'s gate
        container.registerMain(Dashboard.self) { _ in Dashboard() }  // replaces `first`, not the forward
        let outer = container.resolve(Gadget.self)
        #expect(outer != nil)

        container.forward(Gadget.self, name: "again", to: first)  // a gate made after the replacement

        withResolver(container.synchronize()) {
            withOverrides({ _ in }) {
                let inside = SynchronizedResolver.current.resolve(Gadget.self)
                #expect(inside != nil)
                #expect(inside !== outer)
                // Both forwards reach one copy of the replaced registration, which keeps one instance.
                #expect(SynchronizedResolver.current.resolve(Gadget.self, name: "again") === inside)
                #expect(SynchronizedResolver.current.resolve(Dashboard.self) !== inside)
            }
        }
        #expect(container.resolve(Gadget.self) === outer)
    }

    @MainActor @Test func resetDropsTheInstanceOfAReplacedRegistrationReachedThroughAForward() {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        first.implements(Gadget.self)
        container.registerMain(Dashboard.self) { _ in Dashboard() }  // replaces `first`, not the forward
        let kept = container.resolve(Gadget.self)
        #expect(kept != nil)

        container.resetObjectScope(.container)

        #expect(container.resolve(Gadget.self) !== kept)
    }

    @MainActor @Test(arguments: [false, true])
    func resetOfAForwardedTypeDropsTheInstanceOfAMainActorRegistration(replaced: Bool) {
        let container = Container()
        let entry = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        entry.implements(Gadget.self)
        if replaced { container.registerMain(Dashboard.self) { _ in Dashboard() } }
        let kept = container.resolve(Gadget.self)
        #expect(kept != nil)

        container.resetObjectScope(.container, serviceType: Gadget.self)  // the key the forward answers to

        #expect(container.resolve(Gadget.self) !== kept)
    }

    @MainActor @Test func validateKeepsNoInstanceInAReplacedRegistration() {
        let container = Container()
        let made = Made()
        let first = container.registerMain(Dashboard.self) { _ in
            made.count += 1
            return Dashboard()
        }.inObjectScope(.container)
        container.registerMain(Dashboard.self) { _ in Dashboard() }
        first.implements(Gadget.self)

        #expect(container.validate().isValid)
        let validated = made.count

        #expect(container.resolve(Gadget.self) != nil)
        #expect(made.count == validated + 1)  // made afresh: what validate made was not kept
    }

    @MainActor @Test func validateOffTheMainActorSkipsAForwardToAReplacedRegistration() async {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        container.registerMain(Dashboard.self) { _ in Dashboard() }
        first.implements(Gadget.self)
        let resolver = container.synchronize()

        let valid = await onNewThread { resolver.validate().isValid }

        #expect(valid)
    }

    @MainActor @Test func aForwardInAParentToARegistrationOfAFreedChildAnswersAsAPlainOneDoes() {
        let parent = Container()
        var child: Container? = Container(parent: parent)
        let main = child!.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        let plain = child!.register(Panel.self) { _ in Panel() }.inObjectScope(.container)
        child!.registerMain(Dashboard.self) { _ in Dashboard() }
        child = nil
        parent.forward(Gadget.self, name: "main", to: main)
        parent.forward(Gadget.self, name: "plain", to: plain)

        #expect(parent.resolve(Gadget.self, name: "plain") != nil)
        #expect(parent.resolve(Gadget.self, name: "main") != nil)
    }

    @Test func aForwardToAMainActorRegistrationOfAnotherHierarchyStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let other = Container()
            var child: Container? = Container(parent: other)
            let entry = child!.registerMain(Dashboard.self) { _ in Dashboard() }
            child = nil  // `other` stays: the entry's hierarchy is alive
            Container().forward(Gadget.self, to: entry)
            withExtendedLifetime(other) {}
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("made in another container hierarchy"))
    }

    @MainActor @Test func aContainerWithAReplacedRegistrationForwardedSeveralTimesIsFreed() {
        weak var freedContainer: Container?
        weak var freedChild: Container?
        weak var singleton: Dashboard?
        do {
            let container = Container()
            let child = Container(parent: container)
            let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
            first.implements(Gadget.self)
            container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
            first.implements(Gadget.self, name: "a").implements(Gadget.self, name: "b")
            child.forward(Gadget.self, name: "c", to: first)
            singleton = child.resolve(Gadget.self, name: "c") as? Dashboard
            #expect(singleton != nil)
            #expect(container.resolve(Gadget.self) === singleton)
            withResolver(child.synchronize()) {
                withOverrides({ _ in }) { _ = SynchronizedResolver.current.resolve(Gadget.self, name: "a") }
            }
            freedContainer = container
            freedChild = child
        }
        #expect(freedChild == nil)
        #expect(freedContainer == nil)
        #expect(singleton == nil)
    }
}
