import Foundation
import Graft
import Testing

@testable import GraftTesting

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

/// No `.resolver` trait and nothing bound (this process sets no default): the overrides have no
/// resolver to copy, so the test case fails before it runs, saying how to bind one.
@Test func overridesWithNoResolverBoundFailTheTestSayingHowToBindOne() async {
    let ran = LockedFlag()
    let traits: [any Trait] = [.overrides { $0.register((any API).self) { _ in MockAPI() } }]
    await #expect {
        try await GraftScope.run(traits: traits) { ran.set() }
    } throws: { error in
        let message = "\(error)"
        return message.contains(".overrides trait with no resolver bound")
            && message.contains("withResolver(_:operation:) (in a test, the .resolver trait)")
            && !message.contains("withOverrides")
    }
    #expect(!ran.value)
}

/// A flag set from a `@Sendable` closure.
final class LockedFlag: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored = false
    func set() { lock.withLock { stored = true } }
    var value: Bool { lock.withLock { stored } }
}
