import GraftTesting
import Testing

@testable import Graft

// A factory that handles the failure of a dependency it asked for (an `Optional` it accepts as
// `nil`, a fallback, a caught `require`) has handled it: its own resolution stands, what the
// failed dependency's resolution made is dropped, and the failure is logged once.

private struct HFBroken: Error, CustomStringConvertible {
    let tag: String
    var description: String { "Broken(\(tag))" }
}

private final class HFLogger {}
private final class HFFallbackLogger {}
private final class HFHolder {
    let logger: HFLogger?
    init(logger: HFLogger?) { self.logger = logger }
}
private final class HFPart {}
private final class HFOther {}
private final class HFFront {
    let tail: HFBack?
    init(tail: HFBack?) { self.tail = tail }
}
private final class HFBack {
    let head: HFFront?
    init(head: HFFront?) { self.head = head }
}
private final class HFShared {}
private final class HFOuter {
    let shared: HFShared
    let inner: AnyObject?
    let sharedAfter: HFShared
    init(shared: HFShared, inner: AnyObject?, sharedAfter: HFShared) {
        self.shared = shared
        self.inner = inner
        self.sharedAfter = sharedAfter
    }
}
private final class HFInner {}
private final class HFNode {
    let next: HFNode?
    init(next: HFNode?) { self.next = next }
}
private final class HFHead {
    let tail: HFTail?
    init(tail: HFTail?) { self.tail = tail }
}
private final class HFTail {
    let head: HFHead?
    init(head: HFHead?) { self.head = head }
}

/// Counts factory runs.
private final class HFCounter: @unchecked Sendable {
    var count = 0
}

@Suite(.capturedLog) struct HandledFailureTests {
    /// Registers `HFLogger` with a factory that throws `HFBroken(tag)`, counting its runs.
    private func registerThrowingLogger(in container: Container, tag: String) -> HFCounter {
        let runs = HFCounter()
        container.register(HFLogger.self) { _ throws -> HFLogger in
            runs.count += 1
            throw HFBroken(tag: tag)
        }
        return runs
    }

    @Test func optionalOperatorInAFactoryHandlesTheFailureAndTheOuterResolutionStands() throws {
        let log = LogCapture()
        let container = Container()
        let runs = registerThrowingLogger(in: container, tag: "operator")
        container.register(HFHolder.self) { r in HFHolder(logger: r~>) }

        let holder = log.capturing { container.resolve(HFHolder.self) }
        #expect(holder != nil)
        #expect(holder?.logger == nil)
        #expect(try container.require(HFHolder.self).logger == nil)
        #expect(runs.count == 2)  // the failed factory runs again next time
        #expect(log.messages(mentioning: "threw Broken(operator)").count == 2)  // once per resolution
    }

    @Test func optionalResolveWithAFallbackHandlesTheFailure() throws {
        let log = LogCapture()
        let container = Container()
        _ = registerThrowingLogger(in: container, tag: "fallback")
        container.register(HFFallbackLogger.self) { r in
            r.resolve(HFLogger.self).map { _ in HFFallbackLogger() } ?? HFFallbackLogger()
        }

        #expect(log.capturing { container.resolve(HFFallbackLogger.self) } != nil)
        #expect(log.messages(mentioning: "threw Broken(fallback)").count == 1)
        _ = try container.require(HFFallbackLogger.self)
        #expect(log.messages(mentioning: "threw Broken(fallback)").count == 2)
    }

    @Test func caughtRequireInAFactoryHandlesTheFailureAndIsLoggedOnce() throws {
        let log = LogCapture()
        let container = Container()
        _ = registerThrowingLogger(in: container, tag: "caught")
        container.register(HFHolder.self) { r in HFHolder(logger: try? r.require(HFLogger.self)) }

        #expect(log.capturing { container.resolve(HFHolder.self) } != nil)
        #expect(log.messages(mentioning: "threw Broken(caught)").count == 1)
        #expect(try container.require(HFHolder.self).logger == nil)
        #expect(log.messages(mentioning: "threw Broken(caught)").count == 2)
    }

    @Test func requireThrownOnByTheFactoryStillFailsTheOuterResolutionLoggedOnce() {
        let log = LogCapture()
        let container = Container()
        _ = registerThrowingLogger(in: container, tag: "rethrown")
        container.register(HFHolder.self) { r in HFHolder(logger: try r.require(HFLogger.self)) }

        #expect(log.capturing { container.resolve(HFHolder.self) } == nil)
        #expect(log.messages(mentioning: "threw Broken(rethrown)").count == 1)
        #expect(throws: ResolutionError.self) { try container.require(HFHolder.self) }
        do {
            _ = try container.require(HFHolder.self)
        } catch {
            #expect(error.path == ["HFHolder", "HFLogger"])
        }
        #expect(log.messages(mentioning: "threw Broken(rethrown)").count == 1)  // `require` throws, logs nothing
    }

    @Test func whatTheFailedInnerResolutionMadeIsDroppedInEveryScope() {
        let container = Container()
        let parts = HFCounter()
        container.register(HFPart.self) { _ in
            parts.count += 1
            return HFPart()
        }.inObjectScope(.container)
        container.register(HFInner.self) { r throws -> HFInner in
            _ = try r.require(HFPart.self)
            throw HFBroken(tag: "after a part")
        }
        container.register(HFHolder.self) { r in
            _ = r.resolve(HFInner.self)
            return HFHolder(logger: nil)
        }

        #expect(container.resolve(HFHolder.self) != nil)
        #expect(parts.count == 1)
        // The container-scoped HFPart the failed HFInner made was dropped with it: made again.
        _ = container.resolve(HFPart.self)
        #expect(parts.count == 2)
        // Once kept outside the failed resolution, it stays.
        _ = container.resolve(HFHolder.self)
        #expect(parts.count == 2)
    }

    /// The same through the general construction path: a throwing factory with an argument, and
    /// a weak-scoped part kept by nothing else once the failed resolution is dropped.
    @Test func whatAFailedInnerResolutionWithAnArgumentMadeIsDropped() {
        let container = Container()
        let parts = HFCounter()
        container.register(HFPart.self) { _ in
            parts.count += 1
            return HFPart()
        }.inObjectScope(.weak)
        container.register(HFInner.self) { (r: Resolver, tag: String) throws -> HFInner in
            _ = try r.require(HFPart.self)
            throw HFBroken(tag: tag)
        }
        let shared = HFCounter()
        container.register(HFShared.self) { _ in
            shared.count += 1
            return HFShared()
        }.inObjectScope(.container)
        container.register(HFHolder.self) { r in
            _ = r.resolve(HFShared.self)
            _ = r.resolve(HFInner.self, argument: "with an argument")
            _ = r.resolve(HFPart.self)  // the failed resolution's Part was dropped: made again
            return HFHolder(logger: nil)
        }

        #expect(container.resolve(HFHolder.self) != nil)
        #expect(parts.count == 2)
        _ = container.resolve(HFShared.self)
        #expect(shared.count == 1)  // made by the outer resolution before the failure: kept
    }

    @Test func graphInstancesTheOuterResolutionMadeBeforeTheInnerOneStay() {
        let container = Container()
        let shared = HFCounter()
        container.register(HFShared.self) { _ in
            shared.count += 1
            return HFShared()
        }
        container.register(HFInner.self) { r throws -> HFInner in
            _ = try r.require(HFShared.self)  // the outer's graph instance
            _ = try r.require(HFPart.self)  // made in the graph by the failed resolution
            throw HFBroken(tag: "graph")
        }
        let parts = HFCounter()
        container.register(HFPart.self) { _ in
            parts.count += 1
            return HFPart()
        }
        container.register(HFOuter.self) { r in
            let shared = r.resolve(HFShared.self)!
            let inner = r.resolve(HFInner.self)
            _ = r.resolve(HFPart.self)
            return HFOuter(shared: shared, inner: inner, sharedAfter: r.resolve(HFShared.self)!)
        }

        let outer = container.resolve(HFOuter.self)
        #expect(outer != nil)
        #expect(outer?.inner == nil)
        #expect(outer.map { $0.shared === $0.sharedAfter } == true)
        #expect(shared.count == 1)
        #expect(parts.count == 2)  // the failed resolution's HFPart was dropped from the graph
    }

    @Test func circularDependencyThroughOptionalsFailsTheWholeRequest() throws {
        let log = LogCapture()
        let container = Container()
        container.register(HFHead.self) { r in HFHead(tail: r.resolve(HFTail.self)) }
        container.register(HFTail.self) { r in HFTail(head: r.resolve(HFHead.self)) }

        let head = log.capturing { container.resolve(HFHead.self) }
        #expect(head == nil)
        #expect(log.messages(mentioning: "circular dependency: HFHead -> HFTail -> HFHead").count == 1)
        let error = try #require(throws: ResolutionError.self) { try container.require(HFHead.self) }
        guard case .circularDependency = error.reason else {
            Issue.record("expected a circular dependency, got \(error.reason)")
            return
        }
        #expect(error.path == ["HFHead", "HFTail", "HFHead"])
    }

    /// Nothing a request with a cycle made stays, in any scope, and no factory runs once the
    /// cycle is found.
    @Test(arguments: [ObjectScope.graph, .container, .transient, .weak])
    func circularDependencyKeepsNothingAndRunsNoFurtherFactory(_ scope: ObjectScope) {
        let container = Container()
        let madeAfterTheCycle = Box(0)
        let kept = Box(0)
        container.register(HFPart.self) { _ in
            kept.value += 1
            return HFPart()
        }.inObjectScope(scope === ObjectScope.weak ? ObjectScope.container : scope)
        container.register(HFFront.self) { r in
            _ = r.resolve(HFPart.self)
            let head = HFFront(tail: r.resolve(HFBack.self) ?? nil)
            if r.resolve(HFOther.self) != nil { madeAfterTheCycle.value += 1 }
            return head
        }.inObjectScope(scope)
        container.register(HFBack.self) { r in HFBack(head: try? r.require(HFFront.self)) }.inObjectScope(scope)
        container.register(HFOther.self) { _ in
            madeAfterTheCycle.value += 1
            return HFOther()
        }
        #expect(container.resolve(HFFront.self) == nil)
        #expect(madeAfterTheCycle.value == 0)
        _ = container.resolve(HFPart.self)
        #expect(kept.value == 2)  // the failed request kept no HFPart
        // The instances made before the cycle was found were counted, but none is kept.
        #expect(container.resolve(HFFront.self) == nil)
        #expect(kept.value == (scope === ObjectScope.transient || scope === ObjectScope.graph ? 3 : 2))
    }

    /// A `require` in a factory after a cycle failed its request throws a refusal: the cycle's
    /// reason, the path of the service asked, the cycle under it.
    @Test func requireAfterACycleFailedTheRequestThrowsItsOwnPathWithTheCyclesReason() {
        let container = Container()
        let thrown = Box<ResolutionError?>(nil)
        container.register(HFFront.self) { r in
            let head = HFFront(tail: r.resolve(HFBack.self))
            do { _ = try r.require(HFOther.self) } catch { thrown.value = error as? ResolutionError }
            return head
        }
        container.register(HFBack.self) { r in HFBack(head: r.resolve(HFFront.self)) }
        container.register(HFOther.self) { _ in HFOther() }
        #expect(container.resolve(HFFront.self) == nil)
        let error = thrown.value
        #expect(error?.reason.failsTheWholeRequest == true)
        #expect(error?.path == ["HFFront", "HFOther"])
        #expect(
            error?.description.contains("HFOther was not resolved: the resolution it is part of had failed") == true)
        #expect(error?.description.contains("Path: HFFront -> HFBack -> HFFront)") == true)
    }

    /// A `Lazy` first read in a factory after a cycle failed its request stops with the refusal:
    /// its own service and path, the cycle under it.
    @Test func aLazyReadAfterACycleFailedTheRequestStopsWithTheRefusal() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(HFFront.self) { r in
                let front = HFFront(tail: r.resolve(HFBack.self))
                _ = r.resolve(Lazy<HFOther>.self)?.instance
                return front
            }
            container.register(HFBack.self) { r in HFBack(head: r.resolve(HFFront.self)) }
            container.register(HFOther.self) { _ in HFOther() }
            _ = container.resolve(HFFront.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("HFOther was not resolved: the resolution it is part of had failed (circular dependency"))
        #expect(stderr.contains("Path: HFFront -> HFOther\n"))
    }

    @Test(arguments: [false, true])
    func depthLimitMetThroughOptionalsFailsTheWholeRequest(synchronized: Bool) {
        let container = Container()
        container.register(HFNode.self) { r in HFNode(next: r.resolve(HFNode.self)) }
        let resolver: Resolver = synchronized ? container.synchronize() : container
        #expect(resolver.resolve(HFNode.self) == nil)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func validateListsAHandledFailureAsAWarningOnTheOuterRegistration() {
        let container = Container()
        _ = registerThrowingLogger(in: container, tag: "validated")
        container.register(HFHolder.self) { r in HFHolder(logger: r.resolve(HFLogger.self)) }

        let report = container.validate()
        #expect(report.failures.map { $0.path } == [["HFLogger"]])
        let warnings = report.warnings.filter { $0.kind == .handledFailure }
        #expect(warnings.map(\.service) == ["HFHolder"])
        #expect(warnings.map(\.dependency) == ["HFLogger"])
        #expect(warnings.first?.description.contains("threw Broken(validated)") == true)
    }

    @Test func validateListsNoHandledFailureForAFailureThrownOn() {
        let container = Container()
        _ = registerThrowingLogger(in: container, tag: "validated-thrown")
        container.register(HFHolder.self) { r in HFHolder(logger: try r.require(HFLogger.self)) }

        let report = container.validate()
        #expect(Set(report.failures.map { $0.path }) == [["HFLogger"], ["HFHolder", "HFLogger"]])
        #expect(report.warnings.filter { $0.kind == .handledFailure }.isEmpty)
    }
}
