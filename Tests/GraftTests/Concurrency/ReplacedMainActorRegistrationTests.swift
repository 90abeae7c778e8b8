import Foundation
import Testing

@testable import Graft

private protocol Gadget: AnyObject {}
@MainActor private final class Dashboard: Gadget {}

/// Hands an object (or `nil`) back from another thread.
private final class HandedBack: @unchecked Sendable {  // immutable; the test waits for the thread first
    let object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}

/// Runs `body` on a new thread (never the main one) and waits for it.
private func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
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

        let handed = await onAnotherThread { HandedBack(resolver.resolve(Gadget.self)) }
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

        let handed = await onAnotherThread {
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
}
