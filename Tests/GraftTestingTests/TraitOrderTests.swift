import Graft
import GraftTesting
import Testing

/// A container whose `API` answers `name`.
private func container(named name: String) -> SynchronizedResolver {
    let container = Container()
    container.register((any API).self) { _ in NamedAPI(name: name) }
    return container.synchronize()
}

private struct NamedAPI: API { let name: String }

/// What a test sees of the current resolver.
private var currentAPI: String? { SynchronizedResolver.current.resolve((any API).self)?.name }

@Test(.overrides { $0.register((any API).self) { _ in MockAPI() } }, .resolver { makeAppContainer().synchronize() })
func overridesListedBeforeTheResolverApplyToIt() {
    #expect(currentAPI == "mock")
    #expect(SynchronizedResolver.current.resolve(Catalog.self)?.api.name == "mock")
}

@Suite(.overrides { $0.register((any API).self) { _ in MockAPI() } })
struct OverridesOnASuiteWithAResolverOnItsTests {
    @Test(.resolver { makeAppContainer().synchronize() })
    func theSuitesOverridesApplyToTheTestsResolver() {
        #expect(currentAPI == "mock")
    }

    @Test(.resolver { container(named: "other") }, arguments: 0..<2)
    func eachCaseGetsTheOverridesOnItsOwnResolver(_ index: Int) {
        #expect(currentAPI == "mock")
    }
}

@Suite(.resolver { container(named: "suite") })
struct ResolverOnASuiteAndOnATest {
    @Test func aTestWithoutItsOwnGetsTheSuites() {
        #expect(currentAPI == "suite")
    }

    @Test(.resolver { container(named: "test") })
    func theTestsOwnResolverWins() {
        #expect(currentAPI == "test")
    }

    @Test(.overrides { $0.register((any API).self) { _ in MockAPI() } }, .resolver { container(named: "test") })
    func overridesApplyToTheResolverThatWins() {
        #expect(currentAPI == "mock")
    }
}

@Suite(.overrides { $0.register((any API).self) { _ in NamedAPI(name: "suite override") } })
struct OverridesOnASuiteAndOnATest {
    @Test(.overrides { $0.register(String.self) { _ in "test override" } }, .resolver { container(named: "live") })
    func bothApplyAndTheTestsComeLast() {
        #expect(currentAPI == "suite override")
        #expect(SynchronizedResolver.current.resolve(String.self) == "test override")
    }

    @Test(.overrides { $0.register((any API).self) { _ in MockAPI() } }, .resolver { container(named: "live") })
    func theTestsOverrideReplacesTheSuites() {
        #expect(currentAPI == "mock")
    }
}
