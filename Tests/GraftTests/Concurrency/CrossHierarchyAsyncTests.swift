import Foundation
import Testing

@testable import Graft

private final class Left: Sendable {}
private final class Right: Sendable {}
private final class LeftPart: Sendable {}
private final class RightPart: Sendable {}
private final class SlowLeft: Sendable {}
private final class SlowRight: Sendable {}

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
            c1.registerAsync(Left.self) { _ in
                await barrier.arrive()
                _ = try await r2.resolveAsync(Right.self)
                return Left()
            }
            c2.registerAsync(Right.self) { _ in
                await barrier.arrive()
                _ = try await r1.resolveAsync(Left.self)
                return Right()
            }
            let outcome = await finishes(within: 60) { () -> Int in
                async let a: Bool = (try? await r1.resolveAsync(Left.self)) == nil
                async let b: Bool = (try? await r2.resolveAsync(Right.self)) == nil
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
            c1.registerAsync(LeftPart.self) { _ in
                await barrier.arrive(); return LeftPart()
            }
            c2.registerAsync(RightPart.self) { _ in
                await barrier.arrive(); return RightPart()
            }
            c1.registerAsync(Left.self) { _ in
                async let x = r1.resolveAsync(LeftPart.self)
                async let y = r2.resolveAsync(RightPart.self)
                _ = try await (x, y)
                return Left()
            }
            let done = await finishes(within: 60) { (try? await r1.resolveAsync(Left.self)) != nil }
            #expect(done == true)
        }
    }

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
            let zA = c1.registerAsync(SlowLeft.self) { _ in
                await release.wait(); return SlowLeft()
            }
            let zB = c2.registerAsync(SlowRight.self) { _ in
                await release.wait(); return SlowRight()
            }
            c1.registerAsync(Left.self) { _ in
                aNode.value = AsyncBuildContext.current
                let fan = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for _ in 0..<fanOut { group.addTask { _ = try? await r1.resolveAsync(SlowLeft.self) } }
                    }
                }
                while zA.inFlightWaiterCount < fanOut { await Task.yield() }
                await barrier.arrive()
                defer { release.open() }
                _ = try await r2.resolveAsync(Right.self)
                _ = await fan.value
                return Left()
            }
            // Right's factory mirrors Left's across the other container: the cycle's two sides, spelled out.
            c2.registerAsync(Right.self) { _ in
                bNode.value = AsyncBuildContext.current
                let fan = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for _ in 0..<fanOut { group.addTask { _ = try? await r2.resolveAsync(SlowRight.self) } }
                    }
                }
                while zB.inFlightWaiterCount < fanOut { await Task.yield() }
                await barrier.arrive()
                defer { release.open() }
                _ = try await r1.resolveAsync(Left.self)
                _ = await fan.value
                return Right()
            }
            let outcome = await finishes(within: 60) { () -> Int in
                async let a: Bool = (try? await r1.resolveAsync(Left.self)) == nil
                async let b: Bool = (try? await r2.resolveAsync(Right.self)) == nil
                return [await a, await b].filter { $0 }.count
            }
            if outcome == nil {
                hung += 1;
                // A factory that never started has no node: the print says so rather than crash.
                print(
                    "hung at iteration", iteration,
                    "A waits on", aNode.value.map { Set($0.waits.map(\.label)) } ?? ["(A's factory did not start)"],
                    "B waits on", bNode.value.map { Set($0.waits.map(\.label)) } ?? ["(B's factory did not start)"])
                break
            }
            if outcome != 2 { notReported += 1 }
        }
        #expect(
            hung == 0, "a cycle was missed (same hierarchy: \(sameHierarchy)): both builds wait for each other forever")
        #expect(notReported == 0)
    }
}
