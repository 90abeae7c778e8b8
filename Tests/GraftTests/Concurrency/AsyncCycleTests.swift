import Testing

@testable import Graft

private final class Port: Sendable {}
private final class Starboard: Sendable {}
private final class Alpha: Sendable {}
private final class Beta: Sendable {}
private final class Gamma: Sendable {}
private final class Xform: Sendable {}

/// Yields until `condition` (read under the hierarchy's mutex) holds.
private func until(_ hierarchy: SharedState, _ condition: @escaping () -> Bool) async {
    while !hierarchy.withLock(condition) { await Task.yield() }
}

/// Async factories that wait for each other, within one task or across tasks: the cycle is
/// reported as an error, never left to hang.
@Suite struct AsyncCycleTests {
    @Test func cycleAmongAsyncFactoriesIsReportedNotDeadlocked() async {
        let container = Container()
        container.registerAsync(Port.self) { r in
            _ = try await r.resolveAsync(Starboard.self); return Port()
        }
        container.registerAsync(Starboard.self) { r in
            _ = try await r.resolveAsync(Port.self); return Starboard()
        }
        let resolver = container.synchronize()
        let outcome = await finishes(within: 60) { () -> [String]? in
            do {
                _ = try await resolver.resolveAsync(Port.self)
                return nil
            } catch let error as ResolutionError {
                guard case .circularDependency = error.reason else { return nil }
                return error.path
            } catch {
                return nil
            }
        }
        #expect(outcome == .some(["Port", "Starboard", "Port"]))
    }

    @Test func cycleAcrossTwoTasksIsReportedNotDeadlocked() async {
        let started = TestGate()
        let container = Container()
        container.registerAsync(Port.self) { r in
            await started.wait()
            await started.arrivals(2)
            _ = try await r.resolveAsync(Starboard.self)
            return Port()
        }
        container.registerAsync(Starboard.self) { r in
            await started.wait()
            await started.arrivals(2)
            _ = try await r.resolveAsync(Port.self)
            return Starboard()
        }
        let resolver = container.synchronize()
        started.open()
        let outcome = await finishes(within: 60) { () -> Int in
            async let left: Bool = (try? await resolver.resolveAsync(Port.self)) == nil
            async let right: Bool = (try? await resolver.resolveAsync(Starboard.self)) == nil
            return await [left, right].filter { $0 }.count
        }
        #expect(outcome == 2)  // both fail (one with the cycle, the other with the failure it waited on)
    }

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
}
