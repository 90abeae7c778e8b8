import GraftTesting
import Testing

@testable import Graft

/// Every kind of registration (`register`, `registerMain`, `registerAsync`) is one entry in its
/// container's table, and `registrations` reports its own scope and counts.
@Suite(.capturedLog) struct RegistrationKindsTests {
    final class Screen {}
    final class Store: Sendable {}
    final class Plain {}

    @MainActor @Test func eachRegistrationOfEveryKindIsOneTableEntry() {
        let container = Container()
        container.register(Plain.self) { _ in Plain() }
        container.registerMain(Screen.self) { _ in Screen() }.inObjectScope(.container)
        container.registerMain(Screen.self, name: "other") { _ in Screen() }
        container.registerAsync(Store.self) { _ in Store() }
        #expect(container.services.registrations.count == 4)
        // Registering a key again replaces its entry, whatever the kinds.
        container.register(Screen.self) { _ in Screen() }
        container.registerMain(Plain.self) { _ in Plain() }
        #expect(container.services.registrations.count == 4)
        #expect(container.services.registrations.filter { $0.entry.kind == .mainActor }.count == 2)
    }

    @MainActor @Test func aMainActorSingletonReportsItsScopeResolutionsAndOneInstance() throws {
        let container = Container()
        container.registerMain(Screen.self) { _ in Screen() }.inObjectScope(.container)
        for _ in 0..<3 { _ = container.resolveMain(Screen.self) }
        let info = try #require(container.registrations.first { $0.serviceType == Screen.self })
        #expect(info.objectScope === ObjectScope.container)
        #expect(info.resolutionCount == 3)
        #expect(info.instanceCount == 1)
    }

    @MainActor @Test func aMainActorRegistrationReachedOffTheMainActorIsRefusedWithItsKeptInstanceIntact() async {
        let container = Container()
        container.registerMain(Screen.self) { _ in Screen() }.inObjectScope(.container)
        let kept = container.resolveMain(Screen.self)
        let resolver = container.synchronize()
        let handed = await Task.detached { resolver.resolve(Screen.self) == nil }.value
        #expect(handed, "a main-actor singleton was handed to another thread")
        #expect(container.resolveMain(Screen.self) === kept)
    }

    @Test func anAsyncSingletonReportsItsScopeResolutionsAndOneInstance() async throws {
        let container = Container()
        container.registerAsync(Store.self) { _ in Store() }
        let resolver = container.synchronize()
        let first = try await resolver.resolveAsync(Store.self)
        let second = try await resolver.resolveAsync(Store.self)
        #expect(first === second)
        #expect(resolver.resolve(Store.self) === first)  // the synchronous resolve counts too
        let info = try #require(container.registrations.first { $0.serviceType == Store.self })
        #expect(info.objectScope === ObjectScope.container)
        #expect(info.resolutionCount == 3)
        #expect(info.instanceCount == 1)
    }

    @Test func aTransientAsyncServiceCountsEachInstanceBuilt() async throws {
        let container = Container()
        container.registerAsync(Store.self) { _ in Store() }.inObjectScope(.transient)
        let resolver = container.synchronize()
        for _ in 0..<3 { _ = try await resolver.resolveAsync(Store.self) }
        let info = try #require(container.registrations.first { $0.serviceType == Store.self })
        #expect(info.objectScope === ObjectScope.transient)
        #expect(info.resolutionCount == 3)
        #expect(info.instanceCount == 3)
    }
}

/// A main-actor registration refused off the main actor inside a running factory fails that
/// nested resolution with its own reason, as a refusal at the top does.
@Suite(.capturedLog) struct MainActorRefusalInAFactoryTests {
    final class RefusedInFactoryScreen {}
    final class Holder {
        let screen: RefusedInFactoryScreen?
        init(screen: RefusedInFactoryScreen?) { self.screen = screen }
    }

    @Test func aRequireInAFactoryOffTheMainActorThrowsNotOnMainActor() async {
        let container = Container()
        container.registerMain(RefusedInFactoryScreen.self) { _ in RefusedInFactoryScreen() }
        container.register(Holder.self) { r in Holder(screen: try r.require(RefusedInFactoryScreen.self)) }
        let resolver = container.synchronize()
        let reason = await Task.detached { () -> String in
            do {
                _ = try resolver.require(Holder.self)
                return "resolved"
            } catch {
                return (error as? ResolutionError).map { "\($0.reason)" } ?? "\(error)"
            }
        }.value
        #expect(reason == "\(ResolutionError.Reason.notOnMainActor)")
    }

    @Test func aResolveInAFactoryOffTheMainActorIsLoggedAsRefused() async {
        let container = Container()
        container.registerMain(RefusedInFactoryScreen.self) { _ in RefusedInFactoryScreen() }
        container.register(Holder.self) { r in Holder(screen: r.resolve(RefusedInFactoryScreen.self)) }
        let log = LogCapture()
        let resolver = container.synchronize()
        let screenIsNil = await Task.detached { log.capturing { resolver.resolve(Holder.self)?.screen == nil } }.value
        #expect(screenIsNil)
        let refusals = log.messages(mentioning: "RefusedInFactoryScreen").filter { $0.contains("off the main actor") }
        #expect(!refusals.isEmpty)
    }
}

/// A main-actor registration made by user code while a resolution runs (a factory, a `deinit` at
/// the graph's end) turns on the hierarchy's entry checks mid-path; the resolution in flight and
/// the ones after it answer as before.
@Suite(.capturedLog) struct MainActorRegistrationDuringAResolutionTests {
    final class Late {}
    final class Maker {}
    final class Dropped {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    @MainActor @Test func aFactoryThatRegistersAMainActorServiceResolvesIt() {
        let container = Container()
        container.register(Maker.self) { r in
            container.registerMain(Late.self) { _ in Late() }.inObjectScope(.container)
            #expect(r.resolve(Late.self) != nil)  // on the main actor: the new entry answers
            return Maker()
        }
        #expect(container.resolve(Maker.self) != nil)
        let late = container.resolveMain(Late.self)
        #expect(late != nil && container.resolveMain(Late.self) === late)
        #expect(container.hierarchy.resolution.depth == 0 && container.hierarchy.frameCount == 0)
    }

    @Test func aDeinitAtTheGraphsEndThatRegistersAMainActorServiceLeavesTheContainerUsable() async {
        let container = Container()
        container.register(Dropped.self) { _ in
            Dropped { container.registerMain(Late.self) { _ in Late() } }
        }
        container.register(Maker.self) { r in
            _ = r.resolve(Dropped.self)  // graph scope: released when this resolution ends
            return Maker()
        }
        #expect(container.resolve(Maker.self) != nil)
        #expect(container.services.registrations.contains { $0.entry.kind == .mainActor })
        let resolver = container.synchronize()
        let refusedOffMain = await Task.detached { resolver.resolve(Late.self) == nil }.value
        #expect(refusedOffMain)
        #expect(container.resolve(Maker.self) != nil)
    }
}
