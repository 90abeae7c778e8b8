import Foundation
import Testing

@testable import Graft

private final class Alpha: Sendable {}
private final class Beta: Sendable {}
private final class Gamma: Sendable {}
private final class Xform: Sendable {}
private final class Plug: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// Yields until `condition` (read under the hierarchy's mutex) holds.
private func until(_ hierarchy: Hierarchy, _ condition: @escaping () -> Bool) async {
    while !hierarchy.locked(condition) { await Task.yield() }
}

@Suite struct AsyncColdReadAsyncTests {
    /// A (.container) -> X (.transient) -> B (.container) -> A, with B's build started by another task.
    @Test func cycleThroughATransientAsyncServiceIsDetected() async {
        let bGate = TestGate()
        let container = Container()
        container.registerAsync(Alpha.self) { r in
            _ = try await r.resolveAsync(Xform.self)
            return Alpha()
        }
        container.registerAsync(Xform.self) { r in
            _ = try await r.resolveAsync(Beta.self)
            return Xform()
        }.inObjectScope(.transient)
        let bEntry = container.registerAsync(Beta.self) { r in
            await bGate.wait()
            _ = try await r.resolveAsync(Alpha.self)
            return Beta()
        }
        let resolver = container.synchronize()
        let outcome = await finishes(within: 60) { () -> [Bool] in
            async let b: Bool = (try? await resolver.resolveAsync(Beta.self)) == nil
            await bGate.arrivals(1)  // B's build is under way (started by this task)
            async let a: Bool = (try? await resolver.resolveAsync(Alpha.self)) == nil
            await until(resolver.hierarchy) { bEntry.inFlightWaiterCount >= 2 }  // X (inline in A's build) waits for B
            bGate.open()  // B now asks for A
            return [await a, await b]
        }
        #expect(outcome == [true, true], "A and B wait for each other: the cycle is not reported (hang)")
    }

    /// A's build waits for two builds at once (a Task it made, and its own await); when the second
    /// wait ends, the first must still count.
    @Test func cycleWhileABuildWaitsOnTwoServicesIsDetected() async {
        let cGate = TestGate()
        let container = Container()
        let boxes = LockedBox<AsyncServiceEntry<Alpha>>()
        let cEntry = LockedBox<AsyncServiceEntry<Gamma>>()
        boxes.value = container.registerAsync(Alpha.self) { r in
            let side = Task { try await r.resolveAsync(Gamma.self) }  // inherits the chain [A]
            await until(r.hierarchy) { cEntry.value!.inFlightWaiterCount >= 2 }  // the side task waits for C
            _ = try await r.resolveAsync(Beta.self)  // a second wait, which ends
            cGate.open()  // C now asks for A
            _ = try await side.value
            return Alpha()
        }
        container.registerAsync(Beta.self) { _ in Beta() }
        cEntry.value = container.registerAsync(Gamma.self) { r in
            await cGate.wait()
            _ = try await r.resolveAsync(Alpha.self)
            return Gamma()
        }
        let resolver = container.synchronize()
        let outcome = await finishes(within: 60) { () -> Int in
            async let c: Bool = (try? await resolver.resolveAsync(Gamma.self)) == nil
            await cGate.arrivals(1)  // C's build is under way, started outside A
            async let a: Bool = (try? await resolver.resolveAsync(Alpha.self)) == nil
            return [await a, await c].filter { $0 }.count
        }
        #expect(outcome == 2, "A waits for C, C waits for A: the cycle is not reported (hang)")
    }

    /// A's factory starts a prefetch of C it does not wait for; C needs A. A wait in a task a
    /// factory starts counts as the factory's own (documented, conservative): C's wait for A is
    /// reported as a cycle, and nothing hangs.
    @Test func aPrefetchStartedByAFactoryIsReportedConservativelyAndNothingHangs() async throws {
        let outcome = try await prefetchOutcome(cancelTheWait: false)
        #expect(outcome == "cycle")
    }

    /// The same when the factory waited for C and cancelled that wait: the wait is over, so C's
    /// wait for A is no cycle.
    @Test func aCancelledWaitInAFactoryLeavesNoCycle() async throws {
        let outcome = try await prefetchOutcome(cancelTheWait: true)
        #expect(outcome == "ok")
    }

    private func prefetchOutcome(cancelTheWait: Bool) async throws -> String? {
        let cOutcome = LockedBox<String>()
        let entries = LockedBox<AsyncServiceEntry<Alpha>>()
        let container = Container()
        entries.value = container.registerAsync(Alpha.self) { r in
            let prefetch = Task { try await r.resolveAsync(Gamma.self) }
            if cancelTheWait {
                prefetch.cancel()
                _ = try? await prefetch.value  // A gave up waiting for C
            }
            // A holds its build until C has asked for A: C either failed or waits for A.
            await until(r.hierarchy) { cOutcome.value != nil || entries.value!.inFlightWaiterCount >= 2 }
            return Alpha()
        }
        container.registerAsync(Gamma.self) { r in
            do {
                _ = try await r.resolveAsync(Alpha.self)
                cOutcome.value = "ok"
            } catch {
                cOutcome.value = isCycle(error) ? "cycle" : "\(error)"
            }
            return Gamma()
        }
        let resolver = container.synchronize()
        let done = await finishes(within: 60) { (try? await resolver.resolveAsync(Alpha.self)) != nil }
        #expect(done == true)
        _ = await finishes(within: 60) { while cOutcome.value == nil { await Task.yield() } }
        return cOutcome.value
    }

    /// A -> B -> C -> A, each build started by its own task: reported.
    @Test func threeTaskCycleIsReported() async {
        let gate = TestGate()
        let container = Container()
        container.registerAsync(Alpha.self) { r in
            await gate.wait(); _ = try await r.resolveAsync(Beta.self); return Alpha()
        }
        container.registerAsync(Beta.self) { r in
            await gate.wait(); _ = try await r.resolveAsync(Gamma.self); return Beta()
        }
        container.registerAsync(Gamma.self) { r in
            await gate.wait(); _ = try await r.resolveAsync(Alpha.self); return Gamma()
        }
        let resolver = container.synchronize()
        let outcome = await finishes(within: 60) { () -> Int in
            async let a: Bool = (try? await resolver.resolveAsync(Alpha.self)) == nil
            async let b: Bool = (try? await resolver.resolveAsync(Beta.self)) == nil
            async let c: Bool = (try? await resolver.resolveAsync(Gamma.self)) == nil
            await gate.arrivals(3)
            gate.open()
            return [await a, await b, await c].filter { $0 }.count
        }
        #expect(outcome == 3)
    }

    /// `removeAll` empties the table but leaves the async registration: resolveAsync still builds.
    @Test func removeAllRemovesAsyncRegistrations() async {
        let container = Container()
        container.registerAsync(Plug.self) { _ in Plug(serial: 1) }
        container.removeAll()
        #expect(!container.hasAnyRegistration(of: Plug.self))
        let resolved = try? await container.synchronize().resolveAsync(Plug.self)
        #expect(resolved == nil, "removed, yet resolveAsync still builds it")
    }

    /// A later synchronous registration of the same key wins in the container; a withOverrides
    /// copy puts the async gate back on top.
    @Test func overridesKeepASynchronousRegistrationThatShadowsAnAsyncOne() {
        let container = Container()
        container.registerAsync(Plug.self) { _ in Plug(serial: 1) }
        container.register(Plug.self) { _ in Plug(serial: 99) }
        #expect(container.resolve(Plug.self)?.serial == 99)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolve(Plug.self)?.serial }
        }
        #expect(inside == 99, "inside withOverrides the sync registration is replaced by the async gate")
    }

    /// Stress for ThreadSanitizer: builds, resets, scope changes and sync resolves at once.
    @Test func concurrentBuildsResetsAndSyncResolves() async {
        let container = Container()
        let entry = container.registerAsync(Plug.self) { r in
            await Task.yield()
            return Plug(serial: 1)
        }
        let resolver = container.synchronize()
        for _ in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<400 {
                    group.addTask {
                        switch index % 5 {
                        case 0: resolver.resetObjectScope(.container)
                        case 1: _ = resolver.resolve(Plug.self)
                        case 2: entry.inObjectScope(index % 10 == 2 ? .transient : .container)
                        default:
                            let task = Task { try await resolver.resolveAsync(Plug.self) }
                            if index % 7 == 0 { task.cancel() }
                            _ = try? await task.value
                            if index % 11 == 0 {
                                resolver.registerAsync(Gamma.self, name: "\(index)") { _ in Gamma() }
                                _ = try? await withResolver(resolver) {
                                    try await withOverrides({ _ in }) {
                                        try await SynchronizedResolver.current.resolveAsync(Plug.self)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test func cancelledBeforeAskingAndAfterCompletion() async throws {
        let builds = LockedBox<Int>()
        let container = Container()
        container.registerAsync(Plug.self) { _ in
            builds.value = (builds.value ?? 0) + 1
            return Plug(serial: builds.value!)
        }
        let resolver = container.synchronize()
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await resolver.resolveAsync(Plug.self)
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        let first = try await resolver.resolveAsync(Plug.self)
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await resolver.resolveAsync(Plug.self)
        }
        #expect(try await late.value === first)  // built: returned even to a cancelled task
        #expect(builds.value == 1)
    }

    @Test func containerIsReleased() async throws {
        weak var weakContainer: Container?
        do {
            let container = Container()
            container.registerAsync(Plug.self) { r in Plug(serial: 1) }
            container.registerMain(Plug.self, name: "main") { _ in Plug(serial: 2) }.inObjectScope(.container)
            _ = try await container.synchronize().resolveAsync(Plug.self)
            weakContainer = container
        }
        #expect(weakContainer == nil)
    }
}

// MARK: Main actor

@MainActor private final class Panel: Widget {}
private protocol Widget: AnyObject {}

private func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

private final class Handed: @unchecked Sendable {
    let object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}

@Suite struct AsyncColdReadMainActorTests {
    /// `.implements` puts the instance-keeping entry itself in the table, with no gate.
    @MainActor @Test func aForwardedMainActorServiceIsNotHandedToAnotherThread() async {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(.container).implements(Widget.self)
        let resolver = container.synchronize()
        let made = resolver.resolveMain(Panel.self)
        #expect(made != nil)
        let handed = await onAnotherThread { Handed(resolver.resolve(Widget.self)) }
        #expect(handed.object == nil, "the main-actor Panel was handed to a background thread")
        #expect(await onAnotherThread { Platform.isOnMainActor() } == false)
    }

    /// The copy made by withOverrides keeps one instance for the type and the type it implements.
    @MainActor @Test func overridesKeepOneInstanceForAForwardedMainActorService() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(.container).implements(Widget.self)
        let outside = container.resolveMain(Panel.self) === container.resolveMain(Widget.self)
        #expect(outside)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) {
                SynchronizedResolver.current.resolveMain(Panel.self)
                    === SynchronizedResolver.current.resolveMain(Widget.self)
            }
        }
        #expect(inside, "inside withOverrides Panel and Widget are two different instances")
    }

    /// After removeAll the main-actor service is gone, but withOverrides brings it back.
    @MainActor @Test func overridesDoNotResurrectARemovedMainActorRegistration() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }
        container.removeAll()
        #expect(container.resolveMain(Panel.self) == nil)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolveMain(Panel.self) != nil }
        }
        #expect(inside == false, "a removed registerMain resolves again inside withOverrides")
    }
}

@Suite struct AsyncColdReadValidation {
    /// The forwarded key puts the instance-keeping entry in the table; validate() also appends it
    /// from mainActorRegistrations: the same entry twice.
    @Test
    func validateAForwardedMainActorService() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.implements(Widget.self)
        let report = container.validate()
        #expect(report.isValid)
    }
}

@Suite struct AsyncColdReadMainShadow {
    @Test func overridesKeepASynchronousRegistrationThatShadowsAMainActorOne() {
        let container = Container()
        container.registerMain(Plug.self) { _ in Plug(serial: 1) }
        container.register(Plug.self) { _ in Plug(serial: 99) }
        #expect(container.resolve(Plug.self)?.serial == 99)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolve(Plug.self)?.serial }
        }
        #expect(inside == 99, "inside withOverrides the sync registration is replaced by the main-actor gate")
    }
}
