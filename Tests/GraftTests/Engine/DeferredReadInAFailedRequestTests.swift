import GraftTesting
import Testing

@testable import Graft

private struct Breakdown: Error {}
private final class Snapping {}
private final class Gear {}
private final class Brittle {}
private final class Fixture {}

private final class GearHolder {
    @Injected var part: Gear
}

/// Counts the instances a container-scoped registration makes.
private final class Made: @unchecked Sendable {  // touched by one test's thread only
    var count = 0
}

/// A `Provider`, a `Lazy` or an `@Injected` property read in a factory after a failure the factory
/// handled, or before the factory throws a failure on, resolves its own service: the other
/// failure is not its. A request that fails keeps nothing it made, and logs its own failure.
@Suite(.capturedLog) struct DeferredReadInAFailedRequestTests {
    /// A container with `Snapping` failing (also under `name`) and `Gear` made in `scope`,
    /// counting the `Gear`s made.
    private func container(partScope scope: ObjectScope, made: Made, name: String = "") -> Container {
        let container = Container()
        container.register(Snapping.self) { _ in throw Breakdown() }
        container.register(Snapping.self, name: name) { _ in throw Breakdown() }
        container.register(Gear.self) { _ in
            made.count += 1
            return Gear()
        }
        .inObjectScope(scope)
        return container
    }

    @Test func providerReadAfterAHandledFailureDoesNotStop() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            container.register(Gear.self) { _ in Gear() }
            container.register(Snapping.self) { _ in throw Breakdown() }
            container.register(Fixture.self) { r in
                let maker = r.resolve(Provider<Gear>.self)!
                _ = r.resolve(Snapping.self)  // fails, handled
                _ = maker.instance
                return Fixture()
            }
            _ = container.resolve(Fixture.self)
        }
    }

    @Test(arguments: [false, true], [ObjectScope.transient, .graph, .container])
    func providerReadInARequestThatThenFailsGivesAnInstanceKeptNowhere(throughView: Bool, scope: ObjectScope) {
        let log = LogCapture()
        let made = Made()
        let name = "\(throughView) \(scope)"  // cases run in parallel: each logs under its own name
        let container = container(partScope: scope, made: made, name: name)
        var provided: Gear?
        container.register(Fixture.self) { r in
            let maker = r.resolve(Provider<Gear>.self)!
            provided = maker.instance
            _ = try r.require(Snapping.self, name: name)  // thrown on: fails the request
            return Fixture()
        }
        let r: Container = throughView ? container.synchronize() : container
        #expect(r.resolve(Fixture.self) == nil)
        #expect(log.messages(mentioning: "factory of Snapping (name: \"\(name)\") threw").count == 1)
        #expect(provided != nil)
        #expect(made.count == 1)
        // Made in the failed request: dropped with it, even by the container scope.
        let next = r.resolve(Gear.self)
        #expect(next != nil && next !== provided)
        #expect(made.count == 2)
    }

    /// Its own failure is what the `Provider` stops with, naming its own service.
    @Test func providerReadAfterAHandledFailureStopsWithItsOwnFailure() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Brittle.self) { _ in throw Breakdown() }
            container.register(Snapping.self) { _ in throw Breakdown() }
            container.register(Fixture.self) { r in
                let maker = r.resolve(Provider<Brittle>.self)!
                _ = r.resolve(Snapping.self)  // fails, handled
                _ = maker.instance
                return Fixture()
            }
            _ = container.resolve(Fixture.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Provider<Brittle>.instance could not be resolved"))
        #expect(stderr.contains("the factory of Brittle threw"))
        #expect(!stderr.contains("the factory of Snapping threw"))
    }

    /// A `Lazy` made outside any resolution has no graph: read in a factory, it resolves in a
    /// request of its own, so the container keeps the singleton the `Lazy` keeps.
    @Test(arguments: [false, true])
    func lazyMadeOutsideAResolutionReadAfterAHandledFailureGivesAnInstance(throughView: Bool) throws {
        let made = Made()
        let container = container(partScope: .container, made: made)
        let r: Container = throughView ? container.synchronize() : container
        let lazy = try #require(r.resolve(Lazy<Gear>.self))
        var read: Gear?
        container.register(Fixture.self) { r in
            _ = r.resolve(Snapping.self)  // fails, handled
            read = lazy.instance
            return Fixture()
        }
        #expect(r.resolve(Fixture.self) != nil)
        #expect(read != nil)
        #expect(lazy.instance === read)  // the Lazy keeps what it read
        #expect(r.resolve(Gear.self) === read)  // and so does the container: one singleton
    }

    /// The same when the request fails after the read: a failure of the enclosing request does
    /// not roll back what the `Lazy` kept.
    @Test(arguments: [false, true])
    func lazyMadeOutsideAResolutionReadBeforeTheRequestFailsKeepsTheContainersSingleton(throughView: Bool) throws {
        let made = Made()
        let container = container(partScope: .container, made: made)
        let r: Container = throughView ? container.synchronize() : container
        let lazy = try #require(r.resolve(Lazy<Gear>.self))
        var read: Gear?
        container.register(Fixture.self) { r in
            read = lazy.instance
            _ = try r.require(Snapping.self)  // thrown on: fails the request
            return Fixture()
        }
        #expect(r.resolve(Fixture.self) == nil)
        #expect(read != nil)
        #expect(lazy.instance === read)
        #expect(r.resolve(Gear.self) === read)
        #expect(made.count == 1)
    }

    /// A `Lazy` made in the factory resolves in its graph, as a request of its own.
    @Test(arguments: [false, true])
    func lazyMadeInTheFactoryReadBeforeTheRequestFailsGivesAnInstance(throughView: Bool) {
        let made = Made()
        let container = container(partScope: .graph, made: made)
        var read: Gear?
        container.register(Fixture.self) { r in
            let lazy = r.resolve(Lazy<Gear>.self)!
            read = lazy.instance
            _ = try r.require(Snapping.self)  // thrown on: fails the request
            return Fixture()
        }
        let r: Container = throughView ? container.synchronize() : container
        #expect(r.resolve(Fixture.self) == nil)
        #expect(read != nil)
    }

    /// An `@Injected` property first read in a factory resolves in a request of its own.
    @Test func injectedReadBeforeTheRequestFailsGivesItsValue() {
        let made = Made()
        let container = container(partScope: .transient, made: made)
        let view = container.synchronize()
        let holder = withResolver(view) { GearHolder() }
        var read: Gear?
        container.register(Fixture.self) { r in
            read = holder.part
            _ = try r.require(Snapping.self)  // thrown on: fails the request
            return Fixture()
        }
        #expect(view.resolve(Fixture.self) == nil)
        #expect(read != nil)
        #expect(holder.part === read)
    }
}
