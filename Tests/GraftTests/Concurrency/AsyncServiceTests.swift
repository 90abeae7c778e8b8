import Foundation
import GraftTesting
import Testing

@testable import Graft

private final class Socket: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}
private final class Warehouse2: Sendable {
    let connection: Socket
    init(connection: Socket) { self.connection = connection }
}
private final class Gamma: Sendable {}
private final class Plug: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}
private struct Refused: Error, Equatable {}

/// Counts and hands out serial numbers from any task.
private final class SerialSource: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    var value: Int { lock.withLock { count } }
}

@Suite(.capturedLog) struct AsyncServiceTests {
    @Test func aThousandTasksShareOneBuild() async throws {
        let builds = SerialSource()
        let container = Container()
        container.registerAsync(Socket.self) { _ in
            await Task.yield()
            return Socket(serial: builds.next())
        }
        let resolver = container.synchronize()
        let serials = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<1_000 { group.addTask { ObjectIdentifier(try await resolver.resolveAsync(Socket.self)) } }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(serials.count == 1)
        #expect(builds.value == 1)
    }

    @Test func factoryResolvesOtherServicesSyncAndAsync() async throws {
        let container = Container()
        container.register(SerialSource.self) { _ in SerialSource() }.inObjectScope(.container)
        container.registerAsync(Socket.self) { r in Socket(serial: r.resolve(SerialSource.self)!.next()) }
        container.registerAsync(Warehouse2.self) { r in
            _ = try r.require(SerialSource.self)
            return Warehouse2(connection: try await r.resolveAsync(Socket.self))
        }.inObjectScope(.transient)
        let resolver = container.synchronize()
        let first = try await resolver.resolveAsync(Warehouse2.self)
        let second = try await resolver.resolveAsync(Warehouse2.self)
        #expect(first !== second)  // transient: built on every call
        #expect(first.connection === second.connection)  // .container: built once
    }

    @Test func throwingFactoryFailsEveryWaiterAndCachesNothing() async throws {
        let attempts = SerialSource()
        let gate = TestGate()
        let container = Container()
        container.registerAsync(Socket.self) { _ in
            let attempt = attempts.next()
            if attempt == 1 {
                await gate.wait()
                throw Refused()
            }
            return Socket(serial: attempt)
        }
        let resolver = container.synchronize()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        _ = try await resolver.resolveAsync(Socket.self)
                        return false
                    } catch let error as ResolutionError {
                        guard case .factoryFailed(let thrown) = error.reason else { return false }
                        return thrown is Refused && error.path == ["Socket"]
                    } catch {
                        return false
                    }
                }
            }
            await gate.arrivals(1)
            gate.open()
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(failures.count == 8)
        #expect(failures.allSatisfy { $0 })
        #expect(try await resolver.resolveAsync(Socket.self).serial == 2)  // built again
    }

    @Test func cancelledWaiterStopsWaitingAndTheBuildIsKept() async throws {
        let builds = SerialSource()
        let gate = TestGate()
        let container = Container()
        container.registerAsync(Socket.self) { _ in
            await gate.wait()
            return Socket(serial: builds.next())
        }
        let resolver = container.synchronize()
        let starter = Task { try await resolver.resolveAsync(Socket.self) }  // starts the build
        await gate.arrivals(1)
        starter.cancel()
        await #expect(throws: CancellationError.self) { try await starter.value }
        gate.open()
        let connection = try await resolver.resolveAsync(Socket.self)
        #expect(connection.serial == 1)
        #expect(builds.value == 1)  // the cancelled starter's build went on and was kept
    }

    @Test func synchronousResolveBeforeAndAfterTheBuild() async throws {
        let log = LogCapture()
        let container = Container()
        container.registerAsync(Warehouse2.self) { _ in Warehouse2(connection: Socket(serial: 1)) }
        #expect(log.capturing { container.resolve(Warehouse2.self) } == nil)
        #expect(
            log.messages(mentioning: "Warehouse2 is registered with registerAsync and has not been built yet").count
                >= 1)
        let built = try await container.synchronize().resolveAsync(Warehouse2.self)
        #expect(container.resolve(Warehouse2.self) === built)
    }

    /// `resolveAsync` of a service registered with `register` says which call resolves it.
    @Test func resolveAsyncOfASynchronousRegistrationNamesResolve() async {
        let container = Container()
        container.register(Socket.self, name: "main") { _ in Socket(serial: 1) }
        do {
            _ = try await container.synchronize().resolveAsync(Socket.self, name: "main")
            Issue.record("resolved")
        } catch let error as ResolutionError {
            #expect(error.description.contains("is registered with register, synchronously"))
            #expect(error.description.contains("`resolve(Socket.self, name: \"main\")`"))
        } catch {
            Issue.record("\(error)")
        }
    }

    /// The reverse: a synchronous `resolve` of an async service not built yet names the call that
    /// builds it, in the message's first sentence.
    @Test func synchronousResolveOfAnAsyncServiceNamesResolveAsync() throws {
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let error = try #require(throws: ResolutionError.self) { try container.require(Socket.self) }
        #expect(
            error.description.hasPrefix(
                "Graft: resolution failed: Socket is registered with registerAsync and has not been built yet: "
                    + "resolve it with `try await resolver.resolveAsync(Socket.self)`"))
    }

    @Test func resetDuringABuildIsNotCachedForLaterCallers() async throws {
        let builds = SerialSource()
        let gate = TestGate()
        let container = Container()
        container.registerAsync(Socket.self) { _ in
            let serial = builds.next()
            if serial == 1 { await gate.wait() }
            return Socket(serial: serial)
        }
        let resolver = container.synchronize()
        let early = Task { try await resolver.resolveAsync(Socket.self) }
        await gate.arrivals(1)
        resolver.resetObjectScope(.container)
        let late = try await resolver.resolveAsync(Socket.self)
        gate.open()
        #expect(try await early.value.serial == 1)  // the early caller gets its build
        #expect(late.serial == 2)  // arrived after the reset: a new build
        #expect(try await resolver.resolveAsync(Socket.self) === late)
    }

    @Test func unregisteredAsyncServiceThrowsNotRegistered() async {
        do {
            _ = try await Container().synchronize().resolveAsync(Socket.self, name: "x")
            Issue.record("resolved")
        } catch let error as ResolutionError {
            guard case .notRegistered = error.reason else { Issue.record("\(error.reason)"); return }
            #expect(error.path == ["Socket (name: \"x\")"])
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func overridesScopeBuildsItsOwnAsyncInstance() async throws {
        let builds = SerialSource()
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: builds.next()) }
        let outer = try await container.synchronize().resolveAsync(Socket.self)
        try await withResolver(container.synchronize()) {
            try await withOverrides({ _ in }) {
                let inner = try await SynchronizedResolver.current.resolveAsync(Socket.self)
                #expect(inner !== outer)
                #expect(SynchronizedResolver.current.resolve(Socket.self) === inner)
            }
        }
        #expect(try await container.synchronize().resolveAsync(Socket.self) === outer)
    }

    /// `removeAll` removes async registrations too: `resolveAsync` finds nothing to build.
    @Test func removeAllRemovesAsyncRegistrations() async {
        let container = Container()
        container.registerAsync(Plug.self) { _ in Plug(serial: 1) }
        container.removeAll()
        #expect(!container.hasAnyRegistration(of: Plug.self))
        let resolved = try? await container.synchronize().resolveAsync(Plug.self)
        #expect(resolved == nil, "removed, yet resolveAsync still builds it")
    }

    @Test func cancellationBeforeAskingThrowsAndAfterTheBuildReturnsTheInstance() async throws {
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

    @Test func containerWithAsyncAndMainActorRegistrationsIsReleased() async throws {
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

    /// Stress for ThreadSanitizer: builds, resets, scope changes and sync resolves at once.
    @Test func buildsResetsScopeChangesAndSyncResolvesRunConcurrently() async {
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
}
