import Testing

@testable import Graft

/// A failure inside async factories carries the whole chain from the outermost request, through
/// every async factory and the synchronous resolutions inside them.
@Suite struct AsyncFailurePathTests {
    final class Config: Sendable {}
    final class Database: Sendable {}
    final class Repository: Sendable {
        init(_: Database) {}
    }
    final class Service: Sendable {
        init(_: Repository) {}
    }
    struct ConnectionRefused: Error {}

    private func failure<T: Sendable>(_ type: T.Type, from resolver: SynchronizedResolver) async -> ResolutionError? {
        do {
            _ = try await resolver.resolveAsync(type)
            return nil
        } catch {
            return error as? ResolutionError
        }
    }

    @Test(arguments: [ObjectScope.container, .transient])
    func aFailingDependencyReportsThePathFromTheOutermostRequest(_ scope: ObjectScope) async throws {
        let container = Container()
        container.registerAsync(Database.self) { _ in throw ConnectionRefused() }.inObjectScope(scope)
        container.registerAsync(Repository.self) { r in Repository(try await r.resolveAsync(Database.self)) }
            .inObjectScope(scope)
        container.registerAsync(Service.self) { r in Service(try await r.resolveAsync(Repository.self)) }
        let error = try #require(await failure(Service.self, from: container.synchronize()))
        #expect(error.path == ["Service", "Repository", "Database"])
        #expect(error.description.contains("Service -> Repository -> Database"))
        guard case .factoryFailed(let cause) = error.reason else {
            Issue.record("reason \(error.reason)")
            return
        }
        #expect(cause is ConnectionRefused)
    }

    @Test func aSynchronousRequireInsideAnAsyncFactoryContinuesThePath() async throws {
        let container = Container()
        container.registerAsync(Database.self) { r in
            _ = try r.require(Config.self)
            return Database()
        }
        container.registerAsync(Repository.self) { r in Repository(try await r.resolveAsync(Database.self)) }
        let error = try #require(await failure(Repository.self, from: container.synchronize()))
        #expect(error.path == ["Repository", "Database", "Config"])
        guard case .notRegistered = error.reason else {
            Issue.record("reason \(error.reason)")
            return
        }
    }

    @Test func anAsyncDependencyNotRegisteredIsNamedAtTheEndOfThePath() async throws {
        let container = Container()
        container.registerAsync(Repository.self) { r in Repository(try await r.resolveAsync(Database.self)) }
            .inObjectScope(.transient)
        let error = try #require(await failure(Repository.self, from: container.synchronize()))
        #expect(error.path == ["Repository", "Database"])
    }

    @Test func eachWaiterSeesItsOwnChain() async throws {
        let container = Container()
        container.registerAsync(Database.self) { _ in throw ConnectionRefused() }
        container.registerAsync(Repository.self) { r in Repository(try await r.resolveAsync(Database.self)) }
            .inObjectScope(.transient)
        let resolver = container.synchronize()
        async let throughRepository = failure(Repository.self, from: resolver)
        async let direct = failure(Database.self, from: resolver)
        #expect(await throughRepository?.path == ["Repository", "Database"])
        #expect(await direct?.path == ["Database"])
    }

    @Test func anAsyncCycleNamesTheCycleOnceAndThePathFromTheRequest() async throws {
        let container = Container()
        container.registerAsync(Database.self) { r in
            _ = try await r.resolveAsync(Repository.self)
            return Database()
        }.inObjectScope(.transient)
        container.registerAsync(Repository.self) { r in Repository(try await r.resolveAsync(Database.self)) }
            .inObjectScope(.transient)
        let error = try #require(await failure(Repository.self, from: container.synchronize()))
        #expect(error.path == ["Repository", "Database", "Repository"])
        #expect(error.description.contains("Repository -> Database -> Repository"))
    }
}
