import Foundation
import Testing

@testable import Graft

// Found by the cold read of issue 13's performance changes.

private final class Model {}
private final class AsyncThing: Sendable {}
private final class Plain {}
private protocol Greeter {}

/// Counts the instances alive, to see an error released.
private final class Token {
    nonisolated(unsafe) static var alive = 0
    init() { Self.alive += 1 }
    deinit { Self.alive -= 1 }
}
private struct Boom: Error { let token: Token }

/// `Hierarchy.laterReleases`, read by reflection (it is private).
private func laterReleaseCount(_ hierarchy: Hierarchy) -> Int {
    for child in Mirror(reflecting: hierarchy).children where child.label == "laterReleases" {
        return (child.value as? [Any])?.count ?? -1
    }
    return -1
}

/// An error whose `deinit` runs code (user code the path releases).
private final class DeinitError: Error {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

private final class Flag: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

@Suite struct PerformanceColdReadTests {
    /// `registerMain` through a view returned an entry whose settings changed without the mutex,
    /// while the main actor resolved it under the mutex: a data race on its scope, its
    /// `initCompleted` actions and its lazily made extras (ThreadSanitizer reported three).
    @Test func aMainActorEntryRegisteredThroughAViewChangesItsSettingsUnderTheMutex() {
        let view = Container().synchronize()
        let entry = view.registerMain(Model.self) { _ in Model() }
        #expect(entry.settingsTakeTheMutex)
        #expect(view.register(Model.self, name: "plain") { _ in Model() }.settingsTakeTheMutex)
    }

    /// The race itself, bounded: a thread registers and rescopes main-actor entries through a view
    /// while the main actor resolves them. Under `scripts/tsan.sh` a missing lock is reported.
    @MainActor @Test func settingsChangedOnAThreadWhileTheMainActorResolves() async {
        let view = Container().synchronize()
        nonisolated(unsafe) let shared = view  // a synchronized view: every call takes the mutex
        let done = Flag()
        Thread {
            for round in 0..<500 {
                shared.registerMain(Model.self, name: "m\(round % 2)") { _ in Model() }
                    .inObjectScope(.weak)
                    .initCompleted { _, _ in }
            }
            done.set()
        }.start()
        var attempts = 0
        while !done.isSet && attempts < 1_000_000 {
            attempts += 1
            _ = view.resolveMain(Model.self, name: "m\(attempts % 2)")
        }
        while !done.isSet {}  // bounded by the thread's 500 rounds
        #expect(view.resolveMain(Model.self, name: "m1") != nil)
    }

    /// The same, observed: while another thread holds the mutex (its factory waits), changing the
    /// settings of a main-actor entry registered through a view waits for the mutex.
    @Test func changingSettingsWaitsForAThreadHoldingTheMutex() {
        final class Slow {}
        let view = Container().synchronize()
        // Registered through a view: its settings take the mutex, so handing it to a thread is safe.
        nonisolated(unsafe) let main = view.registerMain(Model.self) { _ in Model() }
        let inFactory = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let resolved = DispatchSemaphore(value: 0)
        let changed = DispatchSemaphore(value: 0)
        view.register(Slow.self) { _ in
            inFactory.signal()
            release.wait()
            return Slow()
        }
        Thread.detachNewThread {
            _ = view.resolve(Slow.self)  // holds the mutex while its factory waits
            resolved.signal()
        }
        inFactory.wait()
        Thread.detachNewThread {
            main.inObjectScope(.container)
            changed.signal()
        }
        // Bounded: the change must not complete while the factory holds the mutex.
        let changedWhileLocked = changed.wait(timeout: .now() + .milliseconds(200)) == .success
        release.signal()
        if !changedWhileLocked { changed.wait() }
        resolved.wait()
        #expect(!changedWhileLocked, "settings changed while another thread held the mutex")
        #expect(main.objectScope === ObjectScope.container)
    }

    /// The in-place search of async registrations walked `parent` without looking through a
    /// view: a child made with a view as its parent missed the parent's async registrations.
    @Test func aChildOfAViewFindsItsParentsAsyncRegistrations() async throws {
        let view = Container().synchronize()
        view.registerAsync(AsyncThing.self) { _ in AsyncThing() }
        let child = Container(parent: view).synchronize()
        let made = try await child.resolveAsync(AsyncThing.self)
        #expect(made === (try await view.resolveAsync(AsyncThing.self)))
        let grandchild = Container(parent: Container(parent: view).synchronize()).synchronize()
        #expect(try await grandchild.resolveAsync(AsyncThing.self) === made)
    }

    /// Recording a failure released the previous one inside the store: when that held the last
    /// reference to a factory's error, the error's `deinit` ran there, and a resolution it made
    /// that failed wrote the same field again (an access conflict in debug builds, undefined
    /// behaviour in release builds, where the field is unchecked).
    @Test func anErrorWhoseDeinitFailsAResolutionIsReleasedOnceConsistent() {
        let container = Container()
        var deinits = 0
        var nestedFailed = 0
        container.register(Plain.self, name: "plain") { _ throws -> Plain in throw CancellationError() }
        container.register(Plain.self) { _ throws -> Plain in
            throw DeinitError {
                deinits += 1
                let failed = container.withObjectGraph(GraphIdentifier()) {
                    $0.resolve(Plain.self, name: "plain") == nil
                }
                if failed { nestedFailed += 1 }
                if deinits <= 10 { _ = container.resolve(Plain.self) }  // throws again: a new error, released later too
            }
        }
        for _ in 0..<50 {
            #expect(container.resolve(Plain.self) == nil)
            #expect(container.resolve(Plain.self, name: "plain") == nil)
        }
        #expect(deinits >= 50 && deinits <= 61)
        #expect(nestedFailed == deinits)
        let error = #expect(throws: ResolutionError.self) { try container.require(Plain.self, name: "plain") }
        #expect(error?.reason.description.hasPrefix("factory failed") == true)
    }

    /// The fix above parked every replaced error until a resolution ended on the general path:
    /// one recorded with no resolution in flight (a forwarded `.container` hit of the wrong type)
    /// was never released, and such calls piled them up.
    @Test func anErrorReplacedOutsideAResolutionIsReleasedAtOnce() {
        let container = Container()
        container.register(Model.self, name: "failing") { _ throws -> Model in throw Boom(token: Token()) }
        let entry = container.register(Plain.self) { _ in Plain() }.inObjectScope(.container)
        container.forward((any Greeter).self, to: entry)
        _ = container.resolve(Plain.self)  // built: later hits open no request
        let aliveBefore = Token.alive
        #expect(container.resolve(Model.self, name: "failing") == nil)  // lastError holds the Boom
        #expect(Token.alive == aliveBefore + 1)
        #expect(container.resolve((any Greeter).self) == nil)  // replaces it, no request open
        #expect(Token.alive == aliveBefore)
        for _ in 0..<1_000 { _ = container.resolve((any Greeter).self) }
        #expect(laterReleaseCount(container.hierarchy) == 0)
    }
}
