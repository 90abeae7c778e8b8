import Testing

@testable import Graft

/// `require` throws the failure of its own resolution, even when the rollback of that resolution
/// releases instances whose `deinit`s resolve and fail (or handle a failure) on the way.
@Suite struct RequireThrowsItsOwnFailureTests {
    struct Locked: Error {}
    struct Broken: Error {}
    final class Keychain {}
    final class Tolerant {}
    final class Session {}
    final class App {
        let reason: String
        init(reason: String) { self.reason = reason }
    }

    /// Resolves `what` through `container` when released.
    final class Cache {
        let resolve: () -> Void
        init(_ resolve: @escaping () -> Void) { self.resolve = resolve }
        deinit { resolve() }
    }

    enum Scope: CaseIterable { case graph, container, weak }
    enum DeinitCall: CaseIterable { case fails, handlesAFailure }

    static func container(_ scope: Scope, _ call: DeinitCall) -> Container {
        let container = Container()
        container.register(Keychain.self) { _ in throw Locked() }
        container.register(Tolerant.self) { r in
            _ = try? r.require(Keychain.self)
            return Tolerant()
        }
        let entry = container.register(Cache.self) { [unowned container] _ in
            Cache {
                switch call {
                case .fails: _ = container.resolve(Keychain.self)
                case .handlesAFailure: _ = container.resolve(Tolerant.self)
                }
            }
        }
        switch scope {
        case .graph: break
        case .container: entry.inObjectScope(.container)
        case .weak: entry.inObjectScope(.weak)
        }
        container.register(Session.self) { r in
            _ = r.resolve(Cache.self)
            throw Broken()
        }
        container.register(App.self) { r in
            do {
                _ = try r.require(Session.self)
                return App(reason: "none")
            } catch let error as ResolutionError {
                return App(reason: "\(error.reason) \(error.path)")
            }
        }
        return container
    }

    @Test(arguments: Scope.allCases, DeinitCall.allCases)
    func requireAtTheTopThrowsItsOwnFailure(_ scope: Scope, _ call: DeinitCall) {
        let container = Self.container(scope, call)
        let error = #expect(throws: ResolutionError.self) { try container.require(Session.self) }
        #expect(error?.path == ["Session"])
        let reason = error.map { "\($0.reason)" } ?? ""
        #expect(reason.contains("Broken"))
        let viewError = #expect(throws: ResolutionError.self) { try container.synchronize().require(Session.self) }
        #expect(viewError?.path == ["Session"])
    }

    @Test(arguments: Scope.allCases, DeinitCall.allCases)
    func requireInAFactoryCatchesItsOwnFailure(_ scope: Scope, _ call: DeinitCall) {
        let container = Self.container(scope, call)
        let app = container.resolve(App.self)
        #expect(app?.reason.contains("Broken") == true)
        #expect(app?.reason.contains("[\"App\", \"Session\"]") == true)
    }
}
