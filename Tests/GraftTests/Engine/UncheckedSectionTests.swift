import Testing

@testable import Graft

/// No user code runs inside an unchecked section (a store to fields whose exclusivity release
/// builds do not check): debug builds stop where it would, release builds never reach it.
@Suite struct UncheckedSectionTests {
    #if DEBUG
        @Test func aDeinitThatResolvesInsideAnUncheckedSectionStopsADebugBuild() async throws {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                final class ResolvesOnDeinit {
                    let container: Container
                    init(_ container: Container) { self.container = container }
                    deinit { _ = container.resolve(Int.self) }
                }
                let container = Container()
                container.register(Int.self) { _ in 1 }
                var held: ResolvesOnDeinit? = ResolvesOnDeinit(container)
                container.hierarchy.uncheckedSection { held = nil }
                _ = held
            }
            let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("a resolution ran inside an unchecked section"))
        }

        @Test func aRegistrationInsideAnUncheckedSectionStopsADebugBuild() async {
            await #expect(processExitsWith: .failure) {
                let container = Container()
                container.hierarchy.uncheckedSection { _ = container.register(Int.self) { _ in 1 } }
            }
        }
    #endif

    /// What a section replaces is released after it: a `deinit` there may resolve and register.
    @Test func valuesReplacedBySectionsAreReleasedAfterThem() {
        final class Reenters {
            let container: Container
            init(_ container: Container) { self.container = container }
            deinit {
                container.register(String.self) { _ in "again" }
                _ = container.resolve(String.self)
            }
        }
        let container = Container()
        // An object scope whose storage factory holds the last reference to a re-entering object:
        // replacing the scope releases it.
        let reenters = Reenters(container)
        let custom = ObjectScope(storageFactory: { [reenters] in
            _ = reenters; return PermanentStorage()
        })
        let entry = container.register(Int.self) { _ in 1 }.inObjectScope(custom)
        #expect(container.resolve(Int.self) == 1)
        _ = consume custom
        _ = consume reenters
        entry.inObjectScope(.transient)
        #expect(container.resolve(String.self) == "again")
        // A main-actor-free re-registration and removeAll() release what they replace after.
        container.register(Double.self) { [r = Reenters(container)] _ in
            _ = r; return 1
        }
        container.removeAll()
        #expect(container.resolve(String.self) == "again")
    }
}
