import Foundation
import GraftTesting
import Testing

@testable import Graft

@MainActor private final class BadgeViewModel {
    let session: Account
    init(session: Account) { self.session = session }
}
private final class Account: Sendable {}
private final class Model {}
private final class Unplugged {}
private protocol Widget: AnyObject {}
@MainActor private final class Panel: Widget {}

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

@Suite(.capturedLog) struct MainActorServiceTests {
    @MainActor @Test func failurePathNamesAMainActorServiceOnce() {
        let log = LogCapture()
        let container = Container()
        container.registerMain(Panel.self) { r in
            _ = r.resolve(Unplugged.self)  // not registered: logged with its path
            return Panel()
        }

        #expect(log.capturing { container.resolve(Panel.self) } != nil)

        let logged = log.messages(mentioning: "no registration of Unplugged").first ?? ""
        #expect(logged.contains("Path: Panel -> Unplugged"))
        #expect(!logged.contains("Panel -> Panel"))
    }

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
        let missed = await onNewThread { log.capturing { resolver.resolve(BadgeViewModel.self) == nil } }
        #expect(missed)
        #expect(made.value == 0)
        #expect(log.messages(mentioning: "BadgeViewModel is registered with registerMain").count >= 1)
        // Once made on the main actor, the kept instance is not handed to another thread either.
        let onMain = await MainActor.run { resolver.resolveMain(BadgeViewModel.self) != nil }
        #expect(onMain)
        let stillMissed = await onNewThread { resolver.resolve(BadgeViewModel.self) == nil }
        #expect(stillMissed)
        #expect(made.value == 1)
    }

    /// Off the main actor, `require` throws a reason of its own, with one sentence naming
    /// `resolveMain`; no factory ran, so it is not a factory failure.
    @Test func offTheMainThreadRequireThrowsNotOnMainActor() async {
        let made = Made()
        let resolver = makeContainer(counting: made).synchronize()
        let description = await onNewThread { () -> String in
            do {
                _ = try resolver.require(BadgeViewModel.self)
                return "resolved"
            } catch let error as ResolutionError {
                guard case .notOnMainActor = error.reason else { return "reason: \(error.reason)" }
                return error.description
            } catch {
                return "\(error)"
            }
        }
        #expect(
            description
                == "Graft: resolution failed: BadgeViewModel is registered with registerMain and was resolved off "
                + "the main actor, where its factory may not run: resolve it with resolveMain (or @MainInjected) on "
                + "the main actor.")
        #expect("\(ResolutionError.Reason.notOnMainActor)" == "not on the main actor")
        #expect(made.value == 0)
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

    /// The race itself, bounded: a thread registers and rescopes main-actor entries through a view
    /// while the main actor resolves them. Under `scripts/tsan.sh` a missing lock is reported.
    @MainActor @Test func settingsChangedOnAThreadWhileTheMainActorResolves() async {
        let view = Container().synchronize()
        let shared = view  // a synchronized view: Sendable, every call takes the mutex
        let done = LockedFlag()
        Thread {
            for round in 0..<500 {
                shared.registerMain(Model.self, name: "m\(round % 2)") { _ in Model() }
                    .inObjectScope(.weak)
                    .initCompleted { _, _ in }
            }
            done.set()
        }.start()
        var attempts = 0
        while !done.value && attempts < 1_000_000 {
            attempts += 1
            _ = view.resolveMain(Model.self, name: "m\(attempts % 2)")
        }
        while !done.value {}  // bounded by the thread's 500 rounds
        #expect(view.resolveMain(Model.self, name: "m1") != nil)
    }

    /// The same, observed: while another thread holds the mutex (its factory waits), changing the
    /// settings of a main-actor entry registered through a view waits for the mutex.
    @Test func changingSettingsWaitsForAThreadHoldingTheMutex() {
        final class Slow {}
        let view = Container().synchronize()
        // Registered through a view: its settings take the mutex, so handing it to a thread is safe.
        nonisolated(unsafe) let main = view.registerMain(Model.self) { _ in Model() }
        let inFactory = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let resolved = DispatchSemaphore(value: 0)
        let changed = DispatchSemaphore(value: 0)
        view.register(Slow.self) { _ in
            inFactory.signal()
            release.wait()
            return Slow()
        }
        Thread.detachNewThread {
            _ = view.resolve(Slow.self)  // holds the mutex while its factory waits
            resolved.signal()
        }
        inFactory.wait()
        Thread.detachNewThread {
            main.inObjectScope(.container)
            changed.signal()
        }
        // Bounded: the change must not complete while the factory holds the mutex.
        let changedWhileLocked = changed.wait(timeout: .now() + .milliseconds(200)) == .success
        release.signal()
        if !changedWhileLocked { changed.wait() }
        resolved.wait()
        #expect(!changedWhileLocked, "settings changed while another thread held the mutex")
        #expect(main.objectScope === ObjectScope.container)
    }

    /// A main-actor service forwarded with `.implements` stays behind the main-actor check under
    /// the forwarded type too: another thread resolving that type gets `nil`, not the instance.
    @MainActor @Test func aForwardedMainActorServiceIsNotHandedToAnotherThread() async {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(.container).implements(Widget.self)
        let resolver = container.synchronize()
        let made = resolver.resolveMain(Panel.self)
        #expect(made != nil)
        let handed = await onNewThread { HandedBack(resolver.resolve(Widget.self)) }
        #expect(handed.object == nil, "the main-actor Panel was handed to a background thread")
        #expect(await onNewThread { Platform.isOnMainActor() } == false)
    }

    /// Holds an `@Injected` optional main-actor service, made on the main actor.
    private final class InjectedHolder: @unchecked Sendable {  // the wrapper's component guards its state
        @Injected var panel: Panel?
    }

    /// A main-actor value is refused off the main actor on every read through a wrapper, whoever
    /// read it first: a `Lazy` and an `@Injected` read on the main actor, then from a background
    /// thread and a detached task (`nil`, the optional service's refusal), then on the main actor
    /// again (the same instance, kept).
    @MainActor @Test func aMainActorValueReadFirstOnTheMainActorIsRefusedOffIt() async {
        for scope in [ObjectScope.graph, .container, .transient] {
            let container = Container()
            container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(scope)
            let view = container.synchronize()
            // Shared on purpose: a Lazy made through a view takes the mutex to resolve.
            nonisolated(unsafe) let lazy = view.resolve(Lazy<Panel?>.self)!
            let holder = withResolver(view) { InjectedHolder() }
            let first = lazy.instance
            let injected = holder.panel
            #expect(first != nil && injected != nil)
            let fromThread = await onNewThread { HandedBack(lazy.instance) }
            #expect(fromThread.object == nil, "\(scope): a Lazy handed the main-actor Panel to a thread")
            let injectedFromThread = await onNewThread { HandedBack(holder.panel) }
            #expect(injectedFromThread.object == nil, "\(scope): @Injected handed it to a thread")
            let fromTask = await Task.detached { HandedBack(lazy.instance) }.value
            #expect(fromTask.object == nil, "\(scope): a Lazy handed it to a detached task")
            let injectedFromTask = await Task.detached { HandedBack(holder.panel) }.value
            #expect(injectedFromTask.object == nil, "\(scope): @Injected handed it to a detached task")
            #expect(lazy.instance === first && holder.panel === injected, "\(scope): the kept value changed")
        }
    }

    final class Plain {}
    final class PlainHolder: @unchecked Sendable {  // the wrapper's component guards its state
        @Injected var plain: Plain?
    }

    /// Whatever user code the request of a first read on the main actor runs (a main-actor
    /// dependency resolved by the factory, a first read of another wrapper, nothing), a value
    /// whose request resolved a main-actor registration is refused off the main actor afterwards:
    /// a resolution of the same request there would fail too. A value whose request met none is
    /// handed to any thread.
    @MainActor @Test(arguments: ["nothing", "a main-actor dependency", "a Lazy read", "an @Injected read"])
    func aValueWhoseRequestResolvedAMainActorRegistrationIsRefusedOffIt(factoryRuns: String) async {
        let container = Container()
        let view = container.synchronize()
        container.register(Plain.self, name: "dependency") { _ in Plain() }
        container.registerMain(Widget.self) { _ in Panel() }
        container.registerMain(Panel.self) { r in
            switch factoryRuns {
            case "a main-actor dependency": _ = r.resolve(Widget.self)
            case "a Lazy read": _ = r.resolve(Lazy<Plain>.self, name: "dependency")?.instance
            case "an @Injected read": _ = withResolver(view) { PlainHolder() }.plain
            default: break
            }
            return Panel()
        }
        container.register(Plain.self) { r in
            if factoryRuns == "a main-actor dependency" { _ = r.resolve(Widget.self) }
            return Plain()
        }
        let holder = withResolver(view) { InjectedHolder() }
        let plainHolder = withResolver(view) { PlainHolder() }
        #expect(holder.panel != nil && plainHolder.plain != nil)
        let fromThread = await onNewThread { HandedBack(holder.panel) }
        #expect(fromThread.object == nil, "a main-actor Panel handed to a thread")
        let plainFromThread = await onNewThread { HandedBack(plainHolder.plain) }
        if factoryRuns == "a main-actor dependency" {
            #expect(plainFromThread.object == nil, "a value made with a main-actor dependency handed to a thread")
        } else {
            #expect(plainFromThread.object != nil, "a plain value refused off the main actor")
        }
    }

    fileprivate final class LazyPanel {
        let panel: Lazy<Panel>
        init(_ panel: Lazy<Panel>) { self.panel = panel }
    }
    fileprivate final class PanelOwner {
        let panel: Panel
        init(_ panel: Panel) { self.panel = panel }
    }
    fileprivate final class OwnerHolder: @unchecked Sendable {  // the wrapper's component guards its state
        @Injected var owner: PanelOwner?
    }

    /// A main-actor value a `Lazy` kept, read again by a factory on the main actor, makes what that
    /// factory's request returns a value kept for the main actor only, as resolving it would.
    @MainActor @Test func aValueMadeFromAMainActorValueAWrapperKeptIsRefusedOffTheMainActor() async {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }
        container.register(LazyPanel.self) { r in LazyPanel(r.resolve(Lazy<Panel>.self)!) }.inObjectScope(.container)
        container.register(PanelOwner.self) { r in PanelOwner(r.resolve(LazyPanel.self)!.panel.instance) }
        let view = container.synchronize()
        _ = view.resolve(LazyPanel.self)!.panel.instance
        let holder = withResolver(view) { OwnerHolder() }
        #expect(holder.owner != nil)
        let fromThread = await onNewThread { HandedBack(holder.owner) }
        #expect(fromThread.object == nil, "a value holding a main-actor Panel handed to a thread")
    }

    fileprivate final class ReadsOnDeinit {
        let read: () -> Void
        init(_ read: @escaping () -> Void) { self.read = read }
        deinit { read() }
    }
    fileprivate final class SeenByNestedRead: @unchecked Sendable {  // touched on the main actor only
        var owner: PanelOwner?
    }

    /// A first read whose request resolved a main-actor registration keeps its value for the main
    /// actor only, also when a `deinit` at the end of that request read the wrapper again and kept
    /// the value first: that nested read found the `.weak` instance kept, so its own request met no
    /// main-actor registration.
    @MainActor @Test func aValueANestedReadKeptIsRefusedOffTheMainActorWhenTheFirstReadResolvedAMainActorOne() async {
        let container = Container()
        let view = container.synchronize()
        let holder = withResolver(view) { OwnerHolder() }
        let seen = SeenByNestedRead()
        container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(.weak)
        container.register(ReadsOnDeinit.self) { _ in ReadsOnDeinit { seen.owner = holder.owner } }
        container.register(PanelOwner.self) { r in
            _ = r.resolve(ReadsOnDeinit.self)
            return PanelOwner(r.resolve(Panel.self)!)
        }.inObjectScope(.weak)
        let owner = holder.owner
        #expect(owner != nil && seen.owner === owner, "the nested read kept another value")
        let fromThread = await onNewThread { HandedBack(holder.owner) }
        #expect(fromThread.object == nil, "a value holding a main-actor Panel handed to a thread")
        #expect(holder.owner === owner, "the kept value changed")
    }

    fileprivate struct Jammed: Error {}
    fileprivate final class Once: @unchecked Sendable {  // touched on the main actor only
        private var left = 1
        func take() -> Bool { exchange(&left, 0) == 1 }
    }

    /// A first read that fails after a `deinit` at the end of its request read the wrapper again and
    /// kept a value returns that value, kept for whom the nested read kept it (the main actor, when
    /// the nested read resolved a main-actor registration), and its own failure is logged once.
    @MainActor @Test(arguments: [false, true])
    func aFirstReadThatFailsReturnsTheValueANestedReadKept(nestedResolvesAMainActorOne: Bool) async {
        let log = LogCapture()
        let container = Container()
        let view = container.synchronize()
        let holder = withResolver(view) { OwnerHolder() }
        let seen = SeenByNestedRead()
        let fails = Once()
        let reads = Once()
        container.registerMain(Panel.self) { _ in Panel() }
        container.register(ReadsOnDeinit.self) { _ in ReadsOnDeinit { if reads.take() { seen.owner = holder.owner } } }
        container.register(PanelOwner.self) { r in
            _ = r.resolve(ReadsOnDeinit.self)
            let panel = nestedResolvesAMainActorOne ? r.resolve(Panel.self)! : MainActor.assumeIsolated { Panel() }
            let owner = PanelOwner(panel)
            if fails.take() { throw Jammed() }
            return owner
        }
        let first = log.capturing { holder.owner }
        #expect(seen.owner != nil && first === seen.owner, "the first read did not return the value kept")
        #expect(log.messages(mentioning: "threw Jammed()").count == 1, "the first read's failure is logged once")
        let fromThread = await onNewThread { HandedBack(holder.owner) }
        #expect((fromThread.object == nil) == nestedResolvesAMainActorOne)
        #expect(holder.owner === first, "the kept value changed")
    }

    /// A forwarded main-actor entry is reachable from its forwarded key and from the main-actor
    /// registrations: validation checks it once and accepts it.
    @Test
    func validationAcceptsAForwardedMainActorService() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.implements(Widget.self)
        let report = container.validate()
        #expect(report.isValid)
    }
}
