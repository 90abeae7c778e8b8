import Foundation
import Testing

@testable import Graft

private final class C13A: Sendable {}
private final class C13B: Sendable {}
private final class C13X: Sendable {}
private final class C13Y: Sendable {}

@Suite struct CrossHierarchyAsyncTests {
    /// A (in one container) awaits B (in another, unrelated container) and B awaits A; both builds
    /// start at the same time. The wait graph is global (task-local nodes), but each edge is
    /// checked and added under the mutex of the *waited-for* entry's hierarchy: the two checks
    /// run under two different mutexes.
    @Test func crossHierarchyCycleStartedConcurrently() async {
        var hung = 0
        var missed = 0
        for _ in 0..<300 {
            let c1 = Container()
            let c2 = Container()
            let r1 = c1.synchronize()
            let r2 = c2.synchronize()
            let barrier = TestBarrier(2)
            c1.registerAsync(C13A.self) { _ in
                await barrier.arrive()
                _ = try await r2.resolveAsync(C13B.self)
                return C13A()
            }
            c2.registerAsync(C13B.self) { _ in
                await barrier.arrive()
                _ = try await r1.resolveAsync(C13A.self)
                return C13B()
            }
            let outcome = await finishes(within: 60) { () -> Int in
                async let a: Bool = (try? await r1.resolveAsync(C13A.self)) == nil
                async let b: Bool = (try? await r2.resolveAsync(C13B.self)) == nil
                return [await a, await b].filter { $0 }.count
            }
            if outcome == nil { hung += 1; break }
            if outcome != 2 { missed += 1 }
        }
        #expect(hung == 0, "a cross-hierarchy cycle was missed: both builds wait for each other forever")
        #expect(missed == 0)
    }

    /// One factory waits, from two child tasks at once, on services of two hierarchies: its node's
    /// `waits` is appended to under two different mutexes (ThreadSanitizer).
    @Test func oneFactoryWaitsInTwoHierarchiesAtOnce() async throws {
        for _ in 0..<200 {
            let c1 = Container()
            let c2 = Container()
            let r1 = c1.synchronize()
            let r2 = c2.synchronize()
            let barrier = TestBarrier(2)
            c1.registerAsync(C13X.self) { _ in
                await barrier.arrive(); return C13X()
            }
            c2.registerAsync(C13Y.self) { _ in
                await barrier.arrive(); return C13Y()
            }
            c1.registerAsync(C13A.self) { _ in
                async let x = r1.resolveAsync(C13X.self)
                async let y = r2.resolveAsync(C13Y.self)
                _ = try await (x, y)
                return C13A()
            }
            let done = await finishes(within: 60) { (try? await r1.resolveAsync(C13A.self)) != nil }
            #expect(done == true)
        }
    }
}

private final class C13ZA: Sendable {}
private final class C13ZB: Sendable {}

extension CrossHierarchyAsyncTests {
    /// As `crossHierarchyCycleStartedConcurrently`, with a wider window: each build first has many
    /// waits in flight (on a slow build of its own hierarchy), so each cycle check walks a long
    /// list while the other build's edge is being added under the other mutex.
    @Test(arguments: [false, true]) func crossHierarchyCycleWithWideWindow(sameHierarchy: Bool) async {
        let fanOut = 1_000
        var hung = 0
        var notReported = 0
        for iteration in 0..<10 {
            let c1 = Container()
            let c2 = sameHierarchy ? Container(parent: c1) : Container()
            let r1 = c1.synchronize()
            let r2 = c2.synchronize()
            let barrier = TestBarrier(2)
            let release = TestGate()
            let aNode = LockedBox<AsyncBuildNode>()
            let bNode = LockedBox<AsyncBuildNode>()
            let zA = c1.registerAsync(C13ZA.self) { _ in
                await release.wait(); return C13ZA()
            }
            let zB = c2.registerAsync(C13ZB.self) { _ in
                await release.wait(); return C13ZB()
            }
            c1.registerAsync(C13A.self) { _ in
                aNode.value = AsyncBuildContext.current
                let fan = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for _ in 0..<fanOut { group.addTask { _ = try? await r1.resolveAsync(C13ZA.self) } }
                    }
                }
                while zA.inFlightWaiterCount < fanOut { await Task.yield() }
                await barrier.arrive()
                defer { release.open() }
                _ = try await r2.resolveAsync(C13B.self)
                _ = await fan.value
                return C13A()
            }
            c2.registerAsync(C13B.self) { _ in
                bNode.value = AsyncBuildContext.current
                let fan = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for _ in 0..<fanOut { group.addTask { _ = try? await r2.resolveAsync(C13ZB.self) } }
                    }
                }
                while zB.inFlightWaiterCount < fanOut { await Task.yield() }
                await barrier.arrive()
                defer { release.open() }
                _ = try await r1.resolveAsync(C13A.self)
                _ = await fan.value
                return C13B()
            }
            let outcome = await finishes(within: 60) { () -> Int in
                async let a: Bool = (try? await r1.resolveAsync(C13A.self)) == nil
                async let b: Bool = (try? await r2.resolveAsync(C13B.self)) == nil
                return [await a, await b].filter { $0 }.count
            }
            if outcome == nil {
                hung += 1;
                print(
                    "C13 hung at iteration", iteration, "A waits on", Set(aNode.value!.waits.map(\.label)),
                    "B waits on", Set(bNode.value!.waits.map(\.label)));
                break
            }
            if outcome != 2 { notReported += 1 }
        }
        #expect(
            hung == 0, "a cycle was missed (same hierarchy: \(sameHierarchy)): both builds wait for each other forever")
        #expect(notReported == 0)
    }
}

private protocol C13Proto: AnyObject {}
private final class C13Impl: C13Proto {}
private final class C13Holder {
    @Injected var optionalMissing: C13B?
    @Injected var optionalPresent: C13A?
    @Injected var existential: any C13Proto
    @Injected(name: "n") var named: C13A
}

extension CrossHierarchyAsyncTests {
    @Test func injectedOptionalsExistentialsAndNames() {
        let container = Container()
        container.register(C13A.self) { _ in C13A() }
        container.register(C13A.self, name: "n") { _ in C13A() }.inObjectScope(.container)
        container.register((any C13Proto).self) { _ in C13Impl() }
        let holder = withResolver(container.synchronize()) { C13Holder() }
        #expect(holder.optionalMissing == nil)
        #expect(holder.optionalMissing == nil)
        let a = holder.optionalPresent
        #expect(a != nil)
        #expect(holder.optionalPresent === a)
        #expect(holder.existential === holder.existential)
        #expect(holder.named === container.resolve(C13A.self, name: "n"))
    }
}
