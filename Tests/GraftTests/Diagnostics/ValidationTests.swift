import Foundation
import Testing

@testable import Graft

private final class Knobs {}
private final class Store { let config: Knobs; init(config: Knobs) { self.config = config } }
private final class Service { let store: Store; init(store: Store) { self.store = store } }
private final class Token {}
private final class Cache { let session: Token; init(session: Token) { self.session = session } }
private final class Theme {}
private final class Panel { let theme: Theme; init(theme: Theme) { self.theme = theme } }
private final class Ping {}
private final class Pong {}
private final class Memo { let title: String; init(title: String) { self.title = title } }
private final class Broken {}
private final class Preferences {}
private final class PreferencesReader {
    let settings: Preferences
    init(settings: Preferences) { self.settings = settings }
}
private final class PreferencesHolder { @Injected var settings: Preferences }

private final class Lamp { let bulb: Bulb; init(bulb: Bulb) { self.bulb = bulb } }
private final class Bulb {}
private final class Tick { let tock: Tock; init(tock: Tock) { self.tock = tock } }
private final class Tock { let tick: Tick; init(tick: Tick) { self.tick = tick } }
private final class Shade { init(bulb: Bulb?) {} }

/// Counts factory calls.
private final class Calls { var count = 0 }

@Suite struct ValidationTests {
    @Test func validContainerIsValidAndKeepsNothing() {
        let container = Container()
        let configs = Calls()
        container.register(Knobs.self) { _ in
            configs.count += 1; return Knobs()
        }.inObjectScope(.container)
        container.register(Store.self) { r in Store(config: r.resolve(Knobs.self)!) }.inObjectScope(.weak)
        container.register(Service.self) { r in try Service(store: r.require(Store.self)) }

        let report = container.validate()

        #expect(report.isValid)
        #expect(report.failures.isEmpty && report.warnings.isEmpty && report.skipped.isEmpty)
        #expect(configs.count >= 1)  // factories really ran
        // No instance made by the validation was kept: the first real resolution makes one.
        let made = configs.count
        let config = container.resolve(Knobs.self)
        #expect(configs.count == made + 1)
        #expect(container.resolve(Service.self)?.store.config === config)
        // An existing singleton is neither replaced nor dropped by a later validation.
        _ = container.validate()
        #expect(container.resolve(Knobs.self) === config)
        #expect(container.registrations.first { $0.serviceType == Knobs.self }?.instanceCount == 1)
    }

    @Test func reportsEveryFailureWithItsPath() {
        let container = Container()
        container.register(Service.self) { r in try Service(store: r.require(Store.self)) }
        container.register(Store.self) { r in try Store(config: r.require(Knobs.self)) }
        container.register(Ping.self) { r in
            _ = try r.require(Pong.self); return Ping()
        }
        container.register(Pong.self) { r in
            _ = try r.require(Ping.self); return Pong()
        }
        container.register(Broken.self) { _ in throw CancellationError() }

        let report = container.validate()

        #expect(!report.isValid)
        let paths = report.failures.map(\.path)
        #expect(paths.contains(["Service", "Store", "Knobs"]))
        #expect(paths.contains(["Store", "Knobs"]))
        #expect(paths.contains(["Ping", "Pong", "Ping"]))
        #expect(paths.contains(["Pong", "Ping", "Pong"]))
        #expect(paths.contains(["Broken"]))
        #expect(report.failures.count == 5)
        #expect(report.description.contains("FAILURE Graft: circular dependency: Ping -> Pong -> Ping"))
        #expect(report.graph.edges.contains { $0.isInCycle })
        // The container is as usable as before.
        container.register(Knobs.self) { _ in Knobs() }
        #expect(container.resolve(Service.self) != nil)
    }

    @Test func skipsRegistrationsThatNeedArguments() {
        let container = Container()
        container.register(Memo.self) { (_, title: String) in Memo(title: title) }
        let report = container.validate()
        #expect(report.isValid)
        #expect(report.skipped == ["Memo (arguments: String; give validate(samples:) a ValidationSample to try it)"])
    }

    @Test func warnsOfACaptiveDependency() throws {
        let container = Container()
        container.register(Token.self) { _ in Token() }.inObjectScope(.transient)
        container.register(Cache.self) { r in Cache(session: r.resolve(Token.self)!) }.inObjectScope(.container)

        let report = container.validate()

        #expect(report.isValid)
        let warning = try #require(report.warnings.first)
        #expect(report.warnings.count == 1)
        #expect(warning.kind == .captiveDependency)
        #expect(warning.service == "Cache" && warning.dependency == "Token")
        #expect(warning.description.contains("Cache (scope container) resolves Token (scope transient)"))
        #expect(report.graph.edges.contains { $0.warning == .captiveDependency })
    }

    @Test func warnsOfAParentSingletonThatCapturesAChildRegistration() throws {
        let parent = Container()
        parent.register(Theme.self) { _ in Theme() }.inObjectScope(.container)
        parent.register(Panel.self) { r in Panel(theme: r.resolve(Theme.self)!) }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.register(Theme.self) { _ in Theme() }.inObjectScope(.container)

        let report = child.validate()

        let warning = try #require(report.warnings.first { $0.kind == .parentCapturesChild })
        #expect(warning.service == "Panel" && warning.dependency == "Theme")
        #expect(warning.description.contains("registered in its parent"))
        #expect(warning.description.contains("Theme registered in this container, which overrides"))
        #expect(parent.validate().warnings.isEmpty)
    }

    @Test func graphHasNodesEdgesDotAndTree() throws {
        let parent = Container()
        parent.register(Knobs.self) { _ in Knobs() }.inObjectScope(.container)
        let container = Container(parent: parent)
        container.register(Store.self) { r in Store(config: r.resolve(Knobs.self)!) }
        container.register(Service.self, name: "main") { r in Service(store: r.resolve(Store.self)!) }
        container.register(Token.self) { r in
            _ = r.resolve(Theme.self); return Token()
        }

        let graph = container.validate().graph

        #expect(graph.nodes.map(\.label) == ["Knobs", "Service (name: \"main\")", "Store", "Token"])
        let config = try #require(graph.nodes.first { $0.serviceType == "Knobs" })
        #expect(config.containerLevel == 1 && config.objectScope == "container")
        let store = try #require(graph.nodes.first { $0.serviceType == "Store" })
        #expect(graph.edges.contains { $0.from == store.id && $0.to == config.id })
        #expect(graph.edges.contains { $0.to == nil && $0.requested == "Theme" })
        #expect(graph.dot.hasPrefix("digraph Graft {"))
        #expect(graph.dot.contains("label=\"Service (name: \\\"main\\\")\\nscope: graph\\nthis container\""))
        #expect(graph.dot.contains("Theme\\nnot registered"))
        #expect(
            graph.description.contains(
                "Service (name: \"main\") [graph, this container]\n  Store [graph, this container]\n    Knobs [container, its parent]"
            ))
        #expect(graph.description.contains("  Theme (not registered)"))
    }

    @Test func registrationsListCountsAndValidationLeavesThemAlone() throws {
        let parent = Container()
        parent.register(Knobs.self) { _ in Knobs() }.inObjectScope(.container)
        let container = Container(parent: parent)
        container.register(Store.self) { r in Store(config: r.resolve(Knobs.self)!) }
        container.register(Memo.self) { (_, title: String) in Memo(title: title) }
        for _ in 0..<3 { _ = container.resolve(Store.self) }
        _ = container.validate()

        let infos = container.registrations
        #expect(infos.map { "\($0.serviceType)" } == ["Memo", "Store", "Knobs"])
        let store = try #require(infos.first { $0.serviceType == Store.self })
        #expect(store.resolutionCount == 3 && store.instanceCount == 3 && store.containerLevel == 0)
        let config = try #require(infos.first { $0.serviceType == Knobs.self })
        #expect(config.resolutionCount == 3 && config.instanceCount == 1 && config.containerLevel == 1)
        #expect(infos.first { $0.serviceType == Memo.self }?.argumentTypes == ["String"])
    }

    /// `validate()` during a resolution stops with a message: it would share the open graph with
    /// the enclosing resolution.
    @Test func validateDuringAResolutionStopsWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
            let view = container.synchronize()
            view.withObjectGraph(GraphIdentifier()) { _ in _ = view.validate() }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("validate() called during a resolution"))
    }

    /// A factory that force-unwraps a missing dependency stops the process, but the reason comes
    /// first: what was missing and the path that asked, on standard error.
    @Test func forceUnwrapOfAMissingDependencyIsExplainedBeforeTheStop() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.loggingFunction = nil
            let container = Container()
            container.register(Lamp.self) { r in Lamp(bulb: r.resolve(Bulb.self)!) }
            _ = container.validate()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("no registration of Bulb taking no arguments"))
        #expect(stderr.contains("Path: Lamp -> Bulb"))
    }

    /// A cycle met through a force unwrap, in a validation of a synchronized view (which holds the
    /// hierarchy's mutex throughout): the chain is written before the stop, to standard error
    /// and to the logging function.
    @Test func forceUnwrapInACycleIsExplainedBeforeTheStop() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.loggingFunction = { FileHandle.standardError.write(Data(("LOGGED " + $0 + "\n").utf8)) }
            let container = Container()
            container.register(Tick.self) { r in Tick(tock: r.resolve(Tock.self)!) }
            container.register(Tock.self) { r in Tock(tick: try r.require(Tick.self)) }
            _ = container.synchronize().validate()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Graft: circular dependency: Tick -> Tock -> Tick"))
        #expect(stderr.contains("LOGGED Graft: circular dependency: Tick -> Tock -> Tick"))
    }

    /// What the report holds is not written as well; a factory's own `resolve` that fails is, and
    /// an optional dependency not registered is not.
    @Test func reportedFailuresAreNotWrittenTwice() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Container.loggingFunction = nil
            let container = Container()
            container.register(Lamp.self) { r in Lamp(bulb: try r.require(Bulb.self)) }
            container.register(Shade.self) { r in Shade(bulb: r.resolve(Bulb?.self) ?? nil) }
            container.register(Knobs.self) { r in
                _ = r.resolve(Preferences.self)
                return Knobs()
            }
            guard container.validate().failures.count == 1 else { fatalError("one failure expected") }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(!stderr.contains("Bulb"))
        #expect(stderr.contains("no registration of Preferences taking no arguments"))
    }

    /// An `@Injected` or a `Lazy` first read during `validate()` keeps none of the validation's
    /// instances: a later read gets the container's singleton.
    @Test func cachesFilledDuringValidationKeepNothing() {
        let container = Container()
        let view = container.synchronize()
        let environment = withResolver(view) { PreferencesHolder() }
        container.register(Preferences.self) { _ in Preferences() }.inObjectScope(.container)
        let lazy = view.resolve(Lazy<Preferences>.self)!
        container.register(PreferencesReader.self) { _ in
            _ = lazy.instance
            return PreferencesReader(settings: environment.settings)
        }
        #expect(view.validate().isValid)
        let singleton = view.resolve(Preferences.self)!
        #expect(environment.settings === singleton)
        #expect(lazy.instance === singleton)
    }
    /// A factory run by `validate()` that sets another registration's scope, even to the scope it
    /// has (`.container` again, or a custom scope again, which makes a new storage): what that
    /// registration then made during the validation is not kept, and its counts are as before.
    @Test(arguments: [
        ObjectScope.container, ObjectScope(storageFactory: PermanentStorage.init, description: "session"),
    ])
    func aScopeSetByAFactoryDuringValidationKeepsNothingMadeThen(scope: ObjectScope) {
        final class Late {}
        final class Early {}
        let container = Container()
        var made = 0
        let late = container.register(Late.self) { _ in
            made += 1
            return Late()
        }.inObjectScope(scope)
        // Validated first (sorted by label), so Late is validated after its scope was set again.
        container.register(Early.self) { _ in
            late.inObjectScope(scope)
            return Early()
        }
        #expect(container.validate().isValid)
        let madeByValidation = made
        #expect(madeByValidation >= 1)
        let first = container.resolve(Late.self)
        #expect(made == madeByValidation + 1, "the validation's instance was kept")
        #expect(container.resolve(Late.self) === first)
        #expect(container.registrations.first { $0.serviceType == Late.self }?.instanceCount == 1)
    }
    /// What a `deinit` run by that drop resolves is its own: kept and counted after `validate()`.
    @Test func aDeinitRunWhenValidationDropsWhatItKeptResolvesForReal() {
        final class Zed {}
        final class Late {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Early {}
        let container = Container()
        var zedFromDeinit: Zed?
        let late = container.register(Late.self) { _ in
            Late { zedFromDeinit = container.resolve(Zed.self) }
        }.inObjectScope(.container)
        container.register(Early.self) { _ in
            late.inObjectScope(.container)
            return Early()
        }
        container.register(Zed.self) { _ in Zed() }.inObjectScope(.container)
        #expect(container.validate().isValid)
        #expect(zedFromDeinit != nil)
        #expect(container.resolve(Zed.self) === zedFromDeinit, "the deinit's singleton was dropped")
        let zed = container.registrations.first { $0.serviceType == Zed.self }
        #expect(zed?.instanceCount == 1)
        #expect(zed?.resolutionCount == 2)
    }

    /// A factory that resolves through a child container it captured: what the child's scopes keep
    /// during `validate()` is dropped too, and the child makes its singleton afresh afterwards.
    @Test(arguments: [false, true])
    func aSingletonOfACapturedChildIsNotKept(throughAView: Bool) {
        final class Session {}
        final class Screen {}
        let container = Container()
        let child = Container(parent: container)
        var made = 0
        child.register(Session.self) { _ in
            made += 1
            return Session()
        }.inObjectScope(.container)
        let captured: Resolver = throughAView ? child.synchronize() : child
        container.register(Screen.self) { _ in
            _ = captured.resolve(Session.self)
            return Screen()
        }
        #expect(container.validate().isValid)
        #expect(made == 1)
        let counts = child.registrations.first { $0.serviceType == Session.self }
        #expect(counts?.resolutionCount == 0, "the validation's resolution was counted")
        #expect(counts?.instanceCount == 0, "the validation's instance was counted")
        let first = child.resolve(Session.self)
        #expect(made == 2, "the validation's singleton was kept")
        #expect(child.resolve(Session.self) === first)
    }

    /// A fallback over a dependency that is not registered is no warning: the dependency is listed
    /// as absent. A registered dependency that fails, taken the same way, is a warning.
    @Test func aFallbackOverAnUnregisteredDependencyIsListedAsAbsentNotAsAWarning() {
        final class Clock {}
        final class Service {}
        final class Mailer {}
        final class Notifier {}
        struct Down: Error {}
        let container = Container()
        container.register(Service.self) { r in
            _ = r.resolve(Clock.self) ?? Clock()
            return Service()
        }
        container.register(Mailer.self) { (_: Resolver) throws -> Mailer in throw Down() }
        container.register(Notifier.self) { r in
            _ = r.resolve(Mailer.self)
            return Notifier()
        }
        let report = container.validate()
        #expect(report.absentDependencies == ["Service -> Clock"])
        #expect(report.warnings.map(\.kind) == [.handledFailure])
        #expect(report.warnings.first?.service == "Notifier")
        #expect(report.description.contains("ABSENT Service -> Clock"))
    }

    /// A factory that registers while `validate()` runs (a new key, or its own key again) leaves
    /// no trace: afterwards the container holds the registrations it held before, and the
    /// registration replaced keeps its singleton.
    @Test(arguments: [false, true])
    func registrationsAFactoryMakesDuringValidationAreUndone(throughAView: Bool) {
        final class Stray {}
        final class Settings {}
        final class Screen {}
        let container = Container()
        let registering: Container = throughAView ? container.synchronize() : container
        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let settings = container.resolve(Settings.self)
        container.register(Screen.self) { _ in
            registering.register(Stray.self) { _ in Stray() }
            registering.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
            return Screen()
        }
        let before = container.registrations.count
        #expect(container.validate().isValid)
        #expect(container.resolve(Stray.self) == nil)
        #expect(container.registrations.count == before)
        #expect(container.resolve(Settings.self) === settings)
    }

    /// A factory that registers in a child container it captured while `validate()` runs leaves
    /// no trace there either: nor in what the hierarchy records of its children's registrations
    /// for failure messages, where a child that ended meanwhile leaves none either.
    @Test(arguments: [false, true])
    func registrationsAFactoryMakesInACapturedChildAreUndone(throughAView: Bool) throws {
        final class Stray {}
        final class Screen {}
        let container = Container()
        let child = Container(parent: container)
        child.register(Screen.self, name: "kept") { _ in Screen() }
        var ending: Container? = Container(parent: container)
        ending!.register(Screen.self, name: "ended") { _ in Screen() }
        let registering: Container = throughAView ? child.synchronize() : child
        container.register(Screen.self) { _ in
            registering.register(Stray.self) { _ in Stray() }
            registering.register(Screen.self, name: "kept") { _ in Screen() }
            ending = nil
            return Screen()
        }
        #expect(container.hierarchy.childRegistrationRecordCount == 2)
        #expect(container.validate().isValid)
        #expect(child.resolve(Stray.self) == nil)
        #expect(!child.registrations.contains { $0.serviceType == Stray.self })
        #expect(container.hierarchy.childRegistrationRecordCount == 1)
        let error = try #require(throws: ResolutionError.self) { try container.require(Stray.self) }
        #expect(!error.description.contains("not visible from here"))
    }

    /// A `deinit` run when validation releases what a factory registered sees the container as it
    /// was before validation: its registrations and singletons are back already.
    @Test func aDeinitRunByUndoingARegistrationSeesTheRestoredContainer() {
        final class Settings {}
        final class Screen {}
        final class Stray {}
        final class Witness {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let container = Container()
        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let settings = container.resolve(Settings.self)
        let seen = Box<(sameSettings: Bool, registered: Bool)?>(nil)
        container.register(Screen.self) { [unowned container] _ in
            let witness = Witness {
                seen.value = (
                    container.resolve(Settings.self) === settings, container.hasAnyRegistration(of: Settings.self)
                )
            }
            container.register(Stray.self) { _ in
                withExtendedLifetime(witness) {}
                return Stray()
            }
            return Screen()
        }
        #expect(container.validate().isValid)
        #expect(seen.value?.sameSettings == true)
        #expect(seen.value?.registered == true)
    }

    /// The `deinit` of what a factory threw, which `validate()` releases once its call ends, runs
    /// in the container as it was before the validation: a singleton it resolves is kept, and is
    /// the one the application resolves next, not a second one.
    @Test func aDeinitOfAnErrorValidationDroppedKeepsTheSingletonItResolves() {
        final class Settings {}
        final class Screen {}
        final class Jam: Error, @unchecked Sendable {  // immutable; one thread
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let container = Container()
        let made = Counter()
        container.register(Settings.self) { _ in
            made.increment()
            return Settings()
        }.inObjectScope(.container)
        let fromDeinit = Box<Settings?>(nil)
        container.register(Screen.self) { [unowned container] r throws -> Screen in
            _ = r.resolve(Screen.self)  // a cycle: the request fails, and what is thrown is dropped
            throw Jam { fromDeinit.value = container.resolve(Settings.self) }
        }
        #expect(!container.validate().isValid)
        let settings = fromDeinit.value
        #expect(settings != nil)
        #expect(container.resolve(Settings.self) === settings)
        #expect(made.value == 2)  // the validation's own, dropped, and the deinit's
    }

    /// A factory that resets a scope while `validate()` runs it drops nothing: the singletons kept
    /// before the validation, of that scope or a custom one, are the ones after it.
    @Test(arguments: [false, true])
    func aResetByAFactoryDuringValidationLeavesTheSingletonsKeptBefore(custom: Bool) {
        final class Settings {}
        final class Screen {}
        let scope: ObjectScope = custom ? ObjectScope(storageFactory: PermanentStorage.init) : .container
        let container = Container()
        container.register(Settings.self) { _ in Settings() }.inObjectScope(scope)
        container.register(Screen.self) { [unowned container] _ in
            container.resetObjectScope(scope)
            return Screen()
        }
        let settings = container.resolve(Settings.self)
        #expect(container.validate().isValid)
        #expect(container.resolve(Settings.self) === settings)
    }
}
