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

        // The main-actor instance reached a thread that is not the main actor's.
        withKnownIssue("a forward to a replaced main-actor registration bypasses its gate") {
            #expect(!reachedAnotherThread)
        }
    }

    @MainActor @Test func overridesDoNotHandOutTheOuterInstanceOfAReplacedRegistration() {
        let container = Container()
        let first = container.registerMain(Dashboard.self) { _ in Dashboard() }.inObjectScope(.container)
        container.forward(Gadget.self, to: first)  // through `first`'s gate
        container.registerMain(Dashboard.self) { _ in Dashboard() }  // replaces `first`, not the forward
        let outer = container.resolve(Gadget.self)
        #expect(outer != nil)

        withResolver(container.synchronize()) {
            withOverrides({ _ in }) {
                let isOuter = SynchronizedResolver.current.resolve(Gadget.self) === outer
                // Inside the scope the copy of the old gate still resolves the original container's
                // entry, under the copy's mutex: the outer instance is handed out inside.
                withKnownIssue("the copy of a replaced gate resolves the original entry") {
                    #expect(!isOuter)
                }
            }
        }
    }
}
