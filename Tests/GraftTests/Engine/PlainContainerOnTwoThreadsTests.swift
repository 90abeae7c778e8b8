import Foundation
import Testing

@testable import Graft

/// A plain container used from two threads at once: thread A is held inside a factory (its
/// request in flight) while thread B resolves. B must stop the program with the message that
/// names its service and `synchronize()`, never take A's request for its own nesting (a `nil`, a
/// cycle, a failure of A's). Exit tests, each in a process of its own; not run under
/// ThreadSanitizer, which stops at the race itself (scripts/tsan.sh skips them).
@Suite struct PlainContainerOnTwoThreadsTests {
    final class Expensive {}
    final class Other {}
    final class Unregistered {}

    /// What thread B does while thread A is inside `Expensive`'s factory.
    enum SecondCall: String, Codable, CaseIterable, Sendable {
        /// Resolves `Expensive` (container-scoped, not built yet) through the same container.
        case sameService
        /// Resolves a transient service through the same container.
        case otherService
        /// Resolves a graph-scoped service with a plain factory (the planned path).
        case plannedService
        /// Resolves through a sibling of the container A resolves through.
        case sibling
        /// Opens `withObjectGraph` on the same container.
        case objectGraph
        /// Resolves a service of a custom scope.
        case customScope
        /// Resolves a type nothing registers.
        case unregistered
        /// Resolves a `Lazy`, which would join the graph in flight.
        case lazy
        /// Requires a type nothing registers, after the first thread's resolution failed.
        case requireAfterAFailure

        /// How the stop names what the second thread asked for.
        var label: String {
            switch self {
            case .sameService: "Expensive"
            case .otherService, .sibling: "Other"
            case .plannedService: "Other (name: \"graph\")"
            case .objectGraph: "withObjectGraph"
            case .customScope: "Other (name: \"custom\")"
            case .unregistered, .requireAfterAFailure: "Unregistered"
            case .lazy: "Lazy<Other>"
            }
        }
    }

    /// Runs the race: returns only if thread B was let through.
    static func race(_ second: SecondCall) {
        Container.loggingFunction = { message in Platform.writeToStandardError("LOGGED: " + message) }
        let root = Container()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        root.register(Expensive.self) { r in
            if second == .requireAfterAFailure { _ = r.resolve(Other.self, name: "failing") }
            entered.signal()
            release.wait()
            return Expensive()
        }.inObjectScope(.container)
        root.register(Other.self) { _ in Other() }.inObjectScope(.transient)
        root.register(Other.self, name: "graph") { _ in Other() }
        root.register(Other.self, name: "failing") { _ in throw CancellationError() }
        let custom = ObjectScope(storageFactory: PermanentStorage.init)
        root.register(Other.self, name: "custom") { _ in Other() }.inObjectScope(custom)
        let left = Container(parent: root)
        let right = Container(parent: root)
        nonisolated(unsafe) let first = left  // the race is the point
        Thread.detachNewThread { _ = first.resolve(Expensive.self) }
        entered.wait()
        let answer: AnyObject?
        switch second {
        case .sameService: answer = left.resolve(Expensive.self)
        case .otherService: answer = left.resolve(Other.self)
        case .plannedService: answer = left.resolve(Other.self, name: "graph")
        case .sibling: answer = right.resolve(Other.self)
        case .objectGraph: answer = left.withObjectGraph(GraphIdentifier()) { $0.resolve(Other.self) }
        case .customScope: answer = left.resolve(Other.self, name: "custom")
        case .unregistered: answer = left.resolve(Unregistered.self)
        case .lazy: answer = left.resolve(Lazy<Other>.self)
        case .requireAfterAFailure: answer = try? left.require(Unregistered.self)
        }
        release.signal()
        Platform.writeToStandardError("NOT STOPPED: \(answer.map { "\($0)" } ?? "nil")")
    }

    static func expectStopped(_ result: ExitTest.Result?, naming service: String) throws {
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Graft: \(service) was resolved while another thread's resolution was in flight"))
        #expect(stderr.contains("a Container is used from two threads at once"))
        #expect(stderr.contains("resolve through container.synchronize()"))
        #expect(!stderr.contains("circular dependency"))
        #expect(!stderr.contains("NOT STOPPED"))
        #expect(!stderr.contains("no registration of"))  // the second thread reported nothing else
    }

    /// Every kind of call the second thread makes stops, naming what it asked for.
    @Test(arguments: SecondCall.allCases)
    func aSecondThreadStops(_ second: SecondCall) async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [second] in
            PlainContainerOnTwoThreadsTests.race(second)
        }
        try Self.expectStopped(result, naming: second.label)
    }

    /// A registration on a second thread while the first resolves through a plain container of the
    /// same hierarchy stops the same way, naming the registration: the table it changes may be the
    /// one the first thread reads.
    @Test func aRegistrationOnASecondThreadStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let root = Container()
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            root.register(Expensive.self) { _ in
                entered.signal()
                release.wait()
                return Expensive()
            }
            nonisolated(unsafe) let first = root  // the race is the point
            Thread.detachNewThread { _ = first.resolve(Expensive.self) }
            entered.wait()
            Container(parent: root).register(Other.self) { _ in Other() }
            release.signal()
            Platform.writeToStandardError("NOT STOPPED")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("Graft: register(Other.self) was called while another thread's resolution was in flight"))
        #expect(stderr.contains("resolve through container.synchronize()"))
        #expect(!stderr.contains("NOT STOPPED"))
    }

    /// The same program through the synchronized view never stops: the second thread waits for
    /// the mutex, then resolves.
    @Test func theSameProgramThroughAViewResolves() async throws {
        let root = Container()
        root.register(Expensive.self) { _ in Expensive() }.inObjectScope(.container)
        root.register(Other.self) { r in
            _ = r.resolve(Expensive.self)
            return Other()
        }
        let view = Container(parent: root).synchronize()
        let made = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var count = 0
                    for _ in 0..<2_000 where view.resolve(Other.self) != nil { count += 1 }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(made == 8_000)
    }
}
