import Foundation
import Testing

@testable import Graft

@MainActor private final class BadgeViewModel {
    let session: Account
    init(session: Account) { self.session = session }
}
private final class Account: Sendable {}

/// Counts from any thread.
private final class Made: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@MainActor private final class BadgeScreen {
    @MainInjected var model: BadgeViewModel
}

/// Runs `body` on a new thread (never the main one) and waits for it.
private func offMainThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A container with a `.container`-scoped main-actor view model, registered from nonisolated code.
private func makeContainer(counting made: Made) -> Container {
    let container = Container()
    container.register(Account.self) { _ in Account() }.inObjectScope(.container)
    container.registerMain(BadgeViewModel.self) { r in
        made.increment()
        return BadgeViewModel(session: r.resolve(Account.self)!)
    }.inObjectScope(.container)
    return container
}

@Suite struct MainActorServiceTests {
    @MainActor @Test func resolveMainOnTheMainActorUsesTheScope() {
        let made = Made()
        let container = makeContainer(counting: made)
        let first = container.resolveMain(BadgeViewModel.self)
        #expect(first != nil)
        #expect(container.resolveMain(BadgeViewModel.self) === first)
        #expect(container.synchronize().resolveMain(BadgeViewModel.self) === first)
        // The plain resolve works on the main actor too, on whatever thread the main actor runs
        // (not the main thread under `swift test` on Linux).
        #expect(container.resolve(BadgeViewModel.self) === first)
        #expect(made.value == 1)
        container.resetObjectScope(.container)
        #expect(container.resolveMain(BadgeViewModel.self) !== first)
        #expect(made.value == 2)
    }

    @Test func offTheMainThreadThePlainResolveFailsWithAMessageAndRunsNoFactory() async {
        let log = LogCapture()
        let made = Made()
        let resolver = makeContainer(counting: made).synchronize()
        let missed = await offMainThread { log.capturing { resolver.resolve(BadgeViewModel.self) == nil } }
        #expect(missed)
        #expect(made.value == 0)
        #expect(log.messages(mentioning: "BadgeViewModel is registered with registerMain").count >= 1)
        // Once made on the main actor, the kept instance is not handed to another thread either.
        let onMain = await MainActor.run { resolver.resolveMain(BadgeViewModel.self) != nil }
        #expect(onMain)
        let stillMissed = await offMainThread { resolver.resolve(BadgeViewModel.self) == nil }
        #expect(stillMissed)
        #expect(made.value == 1)
    }

    @MainActor @Test func mainInjectedCapturesTheCurrentResolver() {
        let made = Made()
        let screen = withResolver(makeContainer(counting: made).synchronize()) { BadgeScreen() }
        #expect(made.value == 0)
        #expect(screen.model === screen.model)
        #expect(made.value == 1)
    }

    @MainActor @Test func overridesCopyMainActorRegistrations() {
        let made = Made()
        let container = makeContainer(counting: made)
        let outer = container.resolveMain(BadgeViewModel.self)
        withResolver(container.synchronize()) {
            withOverrides({ $0.register(Account.self) { _ in Account() }.inObjectScope(.container) }) {
                let inner = SynchronizedResolver.current.resolveMain(BadgeViewModel.self)
                #expect(inner != nil && inner !== outer)
                #expect(inner?.session !== outer?.session)
            }
        }
        #expect(container.resolveMain(BadgeViewModel.self) === outer)
    }

    @Test func validationOffTheMainThreadSkipsMainActorServices() {
        let report = makeContainer(counting: Made()).validate()
        #expect(report.isValid)
        #expect(report.skipped == ["BadgeViewModel (main actor: validate on the main actor to try it)"])
    }
}
