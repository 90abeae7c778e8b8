import Testing

@testable import Graft

/// User code that calls back into the container while the container is changing: a `deinit` or a
/// factory that registers, removes or resolves during a replacement, `removeAll`,
/// `resetObjectScope` or a scope change, and the release of a short-lived child's entries.
@Suite struct ReentrancyTests {
    /// A container holding a `.container`-scoped `Echo` whose `deinit` registers `count` named
    /// `Unit`s ("n0", "n1", ...): enough to grow the table while it is being changed.
    private func containerWithRegisteringEcho(registering count: Int) -> Container {
        let container = Container()
        container.register(Echo.self) { _ in
            Echo {
                for index in 0..<count { container.register(Unit.self, name: "n\(index)") { _ in Unit() } }
            }
        }.inObjectScope(.container)
        _ = container.resolve(Echo.self)
        return container
    }

    @Test func deinitRegisteringWhileARegistrationIsReplacedKeepsEveryRegistration() {
        let container = containerWithRegisteringEcho(registering: 200)
        // Replacing releases the old entry, its Echo, and the deinit grows the table meanwhile.
        container.register(Echo.self) { _ in Echo {} }
        for index in 0..<200 { #expect(container.resolve(Unit.self, name: "n\(index)") != nil) }
        #expect(container.resolve(Echo.self) != nil)
        #expect(container.services.count == 201)
    }

    @Test func deinitRegisteringDuringRemoveAllIsKept() {
        let container = containerWithRegisteringEcho(registering: 100)
        container.removeAll()
        #expect(container.services.count == 100)
        #expect(container.resolve(Echo.self) == nil)
        for index in 0..<100 { #expect(container.resolve(Unit.self, name: "n\(index)") != nil) }
        // The count is right, so the table grows before it fills, and every probe ends.
        for index in 100..<1_000 { container.register(Unit.self, name: "n\(index)") { _ in Unit() } }
        #expect(container.resolve(Unit.self, name: "missing") == nil)
        #expect(container.services.count == 1_000)
    }

    @Test func deinitRemovingAllDuringResetObjectScopeLeavesAnEmptyContainer() {
        let container = Container()
        container.register(Echo.self) { _ in Echo { container.removeAll() } }.inObjectScope(.container)
        container.register(Unit.self) { _ in Unit() }.inObjectScope(.container)
        _ = container.resolve(Echo.self)
        _ = container.resolve(Unit.self)
        container.resetObjectScope(.container)
        #expect(container.resolve(Unit.self) == nil)
        #expect(container.services.count == 0)
    }

    @Test func factoryRemovingItsOwnRegistrationReturnsItsInstanceOnce() {
        let container = Container()
        container.register(Unit.self) { _ in
            container.removeAll()
            return Unit()
        }.inObjectScope(.container)
        #expect(container.resolve(Unit.self) != nil)
        #expect(container.resolve(Unit.self) == nil)
    }

    @Test func deinitRegisteringWhileInObjectScopeDropsTheInstanceIsKept() {
        let container = Container()
        let entry = container.register(Echo.self) { _ in
            Echo { container.register(Unit.self) { _ in Unit() } }
        }.inObjectScope(.container)
        _ = container.resolve(Echo.self)
        entry.inObjectScope(.transient)
        #expect(container.resolve(Unit.self) != nil)
    }

    /// A short-lived child's entry is held last by the hierarchy's list of kept entries; its
    /// instance's `deinit` resolves while that list is being cleared.
    @Test func childEntryReleasedLastByTheKeptListMayResolveInItsInstancesDeinit() {
        final class Session {
            let container: Container
            init(container: Container) { self.container = container }
            deinit { _ = container.resolve(Tracker.self) }
        }
        final class Screen {}
        let app = Container()
        app.register(Tracker.self) { _ in Tracker() }
        app.register(Screen.self) { _ in
            let feature = Container(parent: app)
            feature.register(Session.self) { _ in Session(container: app) }.inObjectScope(.container)
            _ = feature.resolve(Session.self)
            return Screen()
        }
        for _ in 0..<3 { #expect(app.resolve(Screen.self) != nil) }
        #expect(app.hierarchy.resolution.depth == 0)
    }

    @Test func factoryReplacingAContainerScopedRegistrationItJustResolved() {
        final class Screen {}
        let container = Container()
        container.register(Tracker.self) { _ in Tracker() }
        container.register(Echo.self) { _ in Echo { _ = container.resolve(Tracker.self) } }.inObjectScope(.container)
        container.register(Screen.self) { r in
            _ = r.resolve(Echo.self)
            container.register(Echo.self) { _ in Echo {} }.inObjectScope(.container)
            return Screen()
        }
        #expect(container.resolve(Screen.self) != nil)
        #expect(container.resolve(Echo.self) === container.resolve(Echo.self))
    }
}
