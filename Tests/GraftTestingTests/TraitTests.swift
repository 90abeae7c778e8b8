import Foundation
import Graft
import GraftTesting
import Testing

protocol API: Sendable { var name: String { get } }
struct LiveAPI: API { let name = "live" }
struct MockAPI: API { let name = "mock" }
final class Catalog: Sendable {
    let api: any API
    init(api: any API) { self.api = api }
}

/// The application's registrations, as a test helper would build them.
func makeAppContainer() -> Container {
    let container = Container()
    container.register((any API).self) { _ in LiveAPI() }.inObjectScope(.container)
    container.register(Catalog.self) { r in Catalog(api: r.resolve((any API).self)!) }.inObjectScope(.container)
    return container
}

@Test(.resolver { makeAppContainer().synchronize() })
func resolverTraitBindsCurrent() {
    #expect(SynchronizedResolver.current.resolve((any API).self)?.name == "live")
}

@Test(.resolver { makeAppContainer().synchronize() }, .overrides { $0.register((any API).self) { _ in MockAPI() } })
func overridesTraitReplacesARegistrationOfTheBoundResolver() {
    let catalog = SynchronizedResolver.current.resolve(Catalog.self)
    #expect(catalog?.api.name == "mock")  // the singleton is made in the test's scope, with the override
}

@Suite(.resolver { makeAppContainer().synchronize() })
struct ResolverTraitOnASuite {
    @Test func firstTestSeesTheResolver() {
        #expect(SynchronizedResolver.current.resolve(Catalog.self)?.api.name == "live")
    }

    @Test func childTasksInheritTheBinding() async {
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<4 { group.addTask { SynchronizedResolver.current.resolve((any API).self)?.name } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: "live", count: 4))
    }

    /// Each test case gets its own resolver, so its own singletons.
    @Test(.overrides { $0.register((any API).self) { _ in MockAPI() } }, arguments: 0..<3)
    func eachCaseHasItsOwnScope(_ index: Int) {
        let catalog = SynchronizedResolver.current.resolve(Catalog.self)
        #expect(catalog?.api.name == "mock")
        #expect(CatalogRegistry.shared.insertIsNew(catalog))
    }
}

/// Records the catalogs the cases of a parameterized test saw: each must be new.
final class CatalogRegistry: @unchecked Sendable {  // `seen` is only touched under `lock`
    static let shared = CatalogRegistry()
    private let lock = NSLock()
    private var seen: [ObjectIdentifier] = []
    private var kept: [Catalog] = []

    func insertIsNew(_ catalog: Catalog?) -> Bool {
        guard let catalog else { return false }
        return lock.withLock {
            let identity = ObjectIdentifier(catalog)
            defer { seen.append(identity); kept.append(catalog) }
            return !seen.contains(identity)
        }
    }
}
