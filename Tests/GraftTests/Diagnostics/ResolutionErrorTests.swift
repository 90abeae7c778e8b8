import Foundation
import GraftTesting
import Testing

@testable import Graft

private final class Storage {}
private final class AccountRepository {
    let database: Storage
    init(database: Storage) { self.database = database }
}
private final class AccountService {
    let repository: AccountRepository
    init(repository: AccountRepository) { self.repository = repository }
}
private final class Egg { var chicken: Chicken? }
private final class Chicken { let egg: Egg; init(egg: Egg) { self.egg = egg } }
private final class Audit {}
private struct DiskFull: Error, Equatable { let free: Int }
private protocol Greeter {}
private final class Node { let next: Node?; init(next: Node?) { self.next = next } }
private struct Empty: Resolver {
    func resolve<S>(_ t: S.Type) -> S? { nil }
    func resolve<S>(_ t: S.Type, name: String?) -> S? { nil }
    func resolve<S, each A>(_ t: S.Type, name: String?, arguments: repeat each A) -> S? { nil }
}
private final class Plain {}
private final class Probe {}
private final class Model {}

/// Counts its live instances, to see an error released.
private final class Token: Sendable {  // no stored instance state
    nonisolated(unsafe) static var alive = 0
    init() { Self.alive += 1 }
    deinit { Self.alive -= 1 }
}
private struct Boom: Error { let token: Token }

/// An error whose `deinit` runs code (user code the resolution path releases).
private final class DeinitError: Error, @unchecked Sendable {  // immutable; made and released on one thread
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// `SharedState.laterReleases`, read by reflection (it is private).
private func laterReleaseCount(_ hierarchy: SharedState) -> Int {
    for child in Mirror(reflecting: hierarchy).children where child.label == "laterReleases" {
        return (child.value as? [Any])?.count ?? -1
    }
    return -1
}

/// Counts from many threads.
private final class LockedCount: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Resolves `require` and returns the error it threw, or `nil` if it did not throw.
private func requireError<Service>(_ body: () throws -> Service) -> ResolutionError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? ResolutionError
    }
}

@Suite(.capturedLog) struct ResolutionErrorTests {
    @Test func hitReturnsTheSameAsResolve() throws {
        let container = Container()
        container.register(Storage.self) { _ in Storage() }.inObjectScope(.container)
        container.register(AccountRepository.self) { (r, name: String) in
            AccountRepository(database: r.resolve(Storage.self)!)
        }
        #expect(try container.require(Storage.self) === container.resolve(Storage.self))
        #expect(
            try container.require(AccountRepository.self, argument: "x").database === container.resolve(Storage.self))
        #expect(
            try container.require(AccountRepository.self, arguments: "x").database === container.resolve(Storage.self))
        #expect(try container.synchronize().require(Storage.self) === container.resolve(Storage.self))
    }

    @Test func notRegisteredNamesWhatWasAskedAndTheNearMisses() throws {
        let parent = Container()
        parent.register(Storage.self, name: "primary") { _ in Storage() }
        let container = Container(parent: parent)
        container.register(Storage.self) { (_, url: String) in Storage() }
        let child = Container(parent: container)
        child.register(Storage.self, name: "replica") { _ in Storage() }

        let error = try #require(requireError { try container.require(Storage.self, name: "secondary", argument: 5) })

        guard case .notRegistered = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Storage (name: \"secondary\")"])
        #expect(error.description.contains("no registration of Storage named \"secondary\" taking arguments (Int)"))
        #expect(
            error.description.contains(
                "Name: \"primary\", Factory: Resolver -> Storage, ObjectScope: graph } in its parent"))
        #expect(
            error.description.contains("Factory: (Resolver, String) -> Storage, ObjectScope: graph } in this container")
        )
        #expect(
            error.description.contains(
                "Name: \"replica\", Factory: Resolver -> Storage } in a child container"))
        // Nothing was changed by the failure.
        #expect(container.resolve(Storage.self, name: "primary") != nil)
    }

    @Test func nestedRequireReportsThePathFromTheOutermostRequest() throws {
        let container = Container()
        container.register(AccountService.self) { r in try AccountService(repository: r.require(AccountRepository.self))
        }
        container.register(AccountRepository.self) { r in try AccountRepository(database: r.require(Storage.self)) }

        for resolver in [container, container.synchronize()] as [Resolver] {
            let error = try #require(requireError { try resolver.require(AccountService.self) })
            guard case .notRegistered = error.reason else { Issue.record("reason \(error.reason)"); return }
            #expect(error.path == ["AccountService", "AccountRepository", "Storage"])
            #expect(error.description.contains("no registration of Storage taking no arguments"))
            #expect(error.description.contains("Path: AccountService -> AccountRepository -> Storage"))
            #expect(resolver.resolve(AccountService.self) == nil)
        }
    }

    @Test func circularDependencyGivesTheCycle() throws {
        let container = Container()
        container.register(Egg.self) { r in
            _ = try r.require(Chicken.self); return Egg()
        }
        container.register(Chicken.self) { r in try Chicken(egg: r.require(Egg.self)) }

        let error = try #require(requireError { try container.require(Egg.self) })

        guard case .circularDependency = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Egg", "Chicken", "Egg"])
        #expect(error.description.contains("circular dependency: Egg -> Chicken -> Egg"))
    }

    @Test func factoryErrorIsCarriedWithThePathAndNothingIsKept() throws {
        let log = LogCapture()
        let container = Container()
        var audits = 0
        container.register(Audit.self) { _ in
            audits += 1; return Audit()
        }.inObjectScope(.container)
        container.register(Storage.self, name: "disk") { r in
            _ = r.resolve(Audit.self)  // made, then dropped when the factory throws
            throw DiskFull(free: 3)
        }
        container.register(AccountRepository.self) { r in
            try AccountRepository(database: r.require(Storage.self, name: "disk"))
        }

        let error = try #require(requireError { try container.require(AccountRepository.self) })

        guard case .factoryFailed(let thrown) = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(thrown as? DiskFull == DiskFull(free: 3))
        #expect(error.path == ["AccountRepository", "Storage (name: \"disk\")"])
        #expect(error.description.contains("the factory of Storage (name: \"disk\") threw DiskFull(free: 3)"))
        // The optional API returns nil and logs; the singleton made during the failure was dropped.
        #expect(log.capturing { container.resolve(AccountRepository.self) } == nil)
        #expect(log.messages(mentioning: "threw DiskFull(free: 3)").count >= 1)
        let before = audits
        _ = container.resolve(Audit.self)
        #expect(audits == before + 1)
    }

    @Test func resolutionErrorThrownByAFactoryPropagatesUnchanged() throws {
        let container = Container()
        let inner = ResolutionError(.tooDeep, path: ["Somewhere"], message: "made by hand")
        container.register(Storage.self) { _ in throw inner }
        container.register(AccountRepository.self) { r in try AccountRepository(database: r.require(Storage.self)) }

        let error = try #require(requireError { try container.require(AccountRepository.self) })
        guard case .tooDeep = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Somewhere"])
        #expect(error.description == "made by hand")
    }

    @Test func tooDeepNamesTheChain() throws {
        let container = Container()
        container.register(Node.self) { (r, depth: Int) in try Node(next: r.require(Node.self, argument: depth + 1)) }

        let error = try #require(requireError { try container.require(Node.self, argument: 0) })

        guard case .tooDeep = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path.count == SharedState.maximumDepth + 1)
        #expect(error.description.contains("resolution deeper than 200 levels"))
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func wrongTypeOfAForwardedService() throws {
        let container = Container()
        let entry = container.register(Plain.self) { _ in Plain() }
        container.forward((any Greeter).self, to: entry)

        let error = try #require(requireError { try container.require((any Greeter).self) })

        guard case .wrongType = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Greeter"])
        #expect(error.description.contains("Plain is forwarded to Greeter"))
    }

    @Test func foreignResolverReportsWhatWasAsked() throws {
        let error = try #require(requireError { try Empty().require(Storage.self, name: "a", arguments: 1, "b") })
        guard case .notRegistered = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Storage (name: \"a\")"])
        #expect(
            error.description.contains("Empty returned nil for Storage (name: \"a\") taking arguments (Int, String)"))
    }

    @Test func failedRequireLeavesTheContainerResolvingAsBefore() throws {
        let container = Container()
        container.register(Storage.self) { _ in Storage() }.inObjectScope(.container)
        container.register(AccountService.self) { r in
            _ = r.resolve(Storage.self)
            return try AccountService(repository: r.require(AccountRepository.self))
        }
        let database = container.resolve(Storage.self)
        for _ in 0..<3 { #expect(requireError { try container.require(AccountService.self) } != nil) }
        #expect(container.resolve(Storage.self) === database)
        container.register(AccountRepository.self) { r in AccountRepository(database: r.resolve(Storage.self)!) }
        #expect(try container.require(AccountService.self).repository.database === database)
    }

    /// A failure message lists the registrations of every container of the hierarchy while another
    /// thread fills a new child container's table. The message reads the hierarchy's copy of the
    /// child registrations, made under its mutex, never a table being filled (under
    /// AddressSanitizer, reading that table overflows its buffer).
    @Test func failureMessageIsSafeWhileAChildIsFilledOnAnotherThread() {
        let view = Container().synchronize()
        let done = DispatchGroup()
        done.enter()
        Thread {
            for _ in 0..<300 {
                let feature = Container(parent: view) { child in
                    for index in 0..<40 { child.register(Probe.self, name: "n\(index)") { _ in Probe() } }
                }
                withExtendedLifetime(feature) {}
            }
            done.leave()
        }.start()
        let misses = LockedCount()
        done.enter()
        Thread {
            for _ in 0..<3_000 where (try? view.require(Probe.self)) == nil { misses.increment() }
            done.leave()
        }.start()
        done.wait()
        #expect(misses.value == 3_000)
    }

    /// Recording a failure replaces the previous one, which may hold the last reference to a
    /// factory's error whose `deinit` fails a resolution of its own and records again. The old
    /// error is released once the record is consistent, not inside the store (that would be an
    /// access conflict in debug builds, and undefined behaviour in release builds, where the field
    /// is unchecked).
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

    /// An error no call is left to read is released at once: after a `resolve` that failed, and
    /// when recorded with no resolution in flight (a forwarded `.container` hit of the wrong type).
    /// Kept, it could hold what owns the hierarchy, and every such call would park one.
    @Test func anErrorReplacedOutsideAResolutionIsReleasedAtOnce() {
        let container = Container()
        container.register(Model.self, name: "failing") { _ throws -> Model in throw Boom(token: Token()) }
        let entry = container.register(Plain.self) { _ in Plain() }.inObjectScope(.container)
        container.forward((any Greeter).self, to: entry)
        _ = container.resolve(Plain.self)  // built: later hits open no request
        let aliveBefore = Token.alive
        #expect(container.resolve(Model.self, name: "failing") == nil)
        #expect(Token.alive == aliveBefore)  // no call is left to read the Boom: released
        #expect(container.resolve((any Greeter).self) == nil)  // recorded with no request open
        #expect(Token.alive == aliveBefore)
        let error = #expect(throws: ResolutionError.self) { try container.require(Model.self, name: "failing") }
        #expect(error?.reason.description.hasPrefix("factory failed") == true)
        #expect(Token.alive == aliveBefore + 1)  // the error thrown holds it
        _ = consume error
        #expect(Token.alive == aliveBefore)
        for _ in 0..<1_000 { _ = container.resolve((any Greeter).self) }
        #expect(laterReleaseCount(container.hierarchy) == 0)
    }

    /// Failures inside one `withObjectGraph` body release what each kept for later (the error a
    /// record replaced, an entry refused in a cycle) once its request or call ends, not when the
    /// body ends: a long body that fails again and again holds nothing per failure.
    @Test(arguments: [false, true]) func failuresInsideOneObjectGraphKeepNothingPastTheirRequests(cycle: Bool) {
        let container = Container()
        var released = 0
        container.register(Model.self) { _ throws -> Model in throw DeinitError { released += 1 } }
        container.register(Egg.self) { r in
            _ = try r.require(Chicken.self); return Egg()
        }
        container.register(Chicken.self) { r in try Chicken(egg: r.require(Egg.self)) }
        container.withObjectGraph(GraphIdentifier()) { r in
            for round in 1...100 {
                if cycle {
                    #expect(r.resolve(Egg.self) == nil)
                    #expect(throws: ResolutionError.self) { try r.require(Chicken.self) }
                } else {
                    #expect(r.resolve(Model.self) == nil)
                    #expect(throws: ResolutionError.self) { try r.require(Model.self) }
                    #expect(released >= 2 * round - 1)  // at most the last one is still recorded
                }
                #expect(laterReleaseCount(container.hierarchy) == 0)
            }
        }
    }
}
