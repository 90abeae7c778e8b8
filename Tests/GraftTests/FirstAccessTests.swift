import Foundation
import GraftTesting
import Testing

@testable import Graft

/// The service the first accesses resolve.
private final class Piece: Sendable {}

/// Runs `body` from its `deinit`.
private final class OnRelease {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    deinit { body() }
}

/// A service whose factory reads (see `registerReader(in:readingOnce:)`).
private final class Reader {}

/// A factory failure.
private struct Refused: Error {}

/// Registers a graph-scoped `OnRelease` that runs `read` from its `deinit`, at the end of the
/// resolution that made it: the first time only (each later resolution would read again, and
/// resolve again, without end).
private func registerOnRelease(in container: Container, readingOnce read: @escaping () -> Void) {
    var pending = true
    container.register(OnRelease.self) { _ in
        OnRelease {
            guard pending else { return }
            pending = false
            read()
        }
    }
    .inObjectScope(.graph)
}

/// Registers a `Reader` whose factory runs `read`, the first time only.
private func registerReader(in container: Container, readingOnce read: @escaping () -> Void) {
    var pending = true
    container.register(Reader.self) { _ in
        if pending {
            pending = false
            read()
        }
        return Reader()
    }
}

/// A container whose transient `Piece` makes the `OnRelease` of `registerOnRelease(in:readingOnce:)`:
/// `read` runs at the end of the first resolution of `Piece`.
private func container(readingOnceAtTheEnd read: @escaping () -> Void) -> Container {
    let container = Container()
    registerOnRelease(in: container, readingOnce: read)
    container.register(Piece.self) { r in
        _ = r.resolve(OnRelease.self)
        return Piece()
    }
    .inObjectScope(.transient)
    return container
}

/// A container whose `Piece`, in `scope`, resolves a `Reader` from its `initCompleted`, whose factory
/// runs `read`: during the first resolution of `Piece`, after it is made. The first time only.
private func container(readingOnceFromAFactory read: @escaping () -> Void, scope: ObjectScope) -> Container {
    let container = Container()
    registerReader(in: container, readingOnce: read)
    container.register(Piece.self) { _ in Piece() }
        .inObjectScope(scope)
        .initCompleted { r, _ in _ = r.resolve(Reader.self) }
    return container
}

private final class PieceHolder {
    @Injected var part: Piece
}

private final class OptionalHolder {
    @Injected var part: Piece?
}

@MainActor private final class MainHolder {
    @MainInjected var part: Piece
}

@MainActor private final class OptionalMainHolder {
    @MainInjected var part: Piece?
}

/// Every first-access cache re-entered during its first access by a `deinit` or a factory hands
/// out one instance to everyone: the first one kept.
@Suite(.capturedLog) struct FirstAccessReentryTests {
    @Test(arguments: [false, true])
    func lazyReadByADeinitAtTheEndOfItsFirstAccessHandsOutOneInstance(synchronized: Bool) {
        var lazy: Lazy<Piece>?
        var seenInDeinit: Piece?
        let container = container(readingOnceAtTheEnd: { seenInDeinit = lazy?.instance })
        lazy = synchronized ? container.synchronize().resolve(Lazy<Piece>.self) : container.resolve(Lazy<Piece>.self)
        let first = lazy?.instance
        #expect(seenInDeinit != nil)
        #expect(first === seenInDeinit)
        #expect(lazy?.instance === first)
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func lazyReadByAFactoryDuringItsFirstAccessHandsOutOneInstance(scope: ObjectScope) {
        var lazy: Lazy<Piece>?
        var seenInFactory: Piece?
        let container = container(readingOnceFromAFactory: { seenInFactory = lazy?.instance }, scope: scope)
        lazy = container.resolve(Lazy<Piece>.self)
        let first = lazy?.instance
        #expect(seenInFactory != nil)
        #expect(first === seenInFactory)
        #expect(lazy?.instance === first)
    }

    /// A `Provider` keeps nothing itself: its scope's instance is the one everyone sees.
    @Test func providerReadByADeinitAndAFactoryDuringItsFirstAccessSeesTheScopesInstance() {
        var provider: Provider<Piece>?
        var seen: [Piece?] = []
        let container = Container()
        registerOnRelease(in: container, readingOnce: { seen.append(provider?.instance) })
        registerReader(in: container, readingOnce: { seen.append(provider?.instance) })
        container.register(Piece.self) { r in
            _ = r.resolve(OnRelease.self)
            return Piece()
        }
        .inObjectScope(.container)
        .initCompleted { r, _ in _ = r.resolve(Reader.self) }
        provider = container.resolve(Provider<Piece>.self)
        let first = provider?.instance
        #expect(first != nil)
        #expect(seen.count == 2)  // the factory, then the deinit at the end
        #expect(seen.allSatisfy { $0 === first })
    }

    @Test func injectedReadByADeinitAtTheEndOfItsFirstAccessHandsOutOneInstance() {
        var holder: PieceHolder?
        var seenInDeinit: Piece?
        let view = container(readingOnceAtTheEnd: { seenInDeinit = holder?.part }).synchronize()
        holder = withResolver(view) { PieceHolder() }
        let first = holder?.part
        #expect(seenInDeinit != nil)
        #expect(first === seenInDeinit)
        #expect(holder?.part === first)
    }

    @Test func injectedReadByAFactoryDuringItsFirstAccessHandsOutOneInstance() {
        var holder: PieceHolder?
        var seenInFactory: Piece?
        let container = container(readingOnceFromAFactory: { seenInFactory = holder?.part }, scope: .container)
        holder = withResolver(container.synchronize()) { PieceHolder() }
        let first = holder?.part
        #expect(seenInFactory != nil)
        #expect(first === seenInFactory)
        #expect(holder?.part === first)
    }

    /// The first value kept is the one handed out: the one built later by the outer access is
    /// released, and its `deinit` (user code) runs outside any access to the box.
    @Test func injectedDropsTheInstanceBuiltLaterAndItsDeinitMayReadTheBox() {
        final class Loud {
            let onRelease: OnRelease
            init(_ onRelease: OnRelease) { self.onRelease = onRelease }
        }
        final class LoudHolder {
            @Injected var loud: Loud
        }
        var holder: LoudHolder?
        var seen: [Loud?] = []
        var built = 0
        let container = Container()
        registerOnRelease(in: container, readingOnce: { seen.append(holder?.loud) })
        container.register(Loud.self) { r in
            _ = r.resolve(OnRelease.self)
            built += 1
            // Each instance reads the box when it is released.
            return Loud(OnRelease { seen.append(holder?.loud) })
        }
        .inObjectScope(.transient)
        holder = withResolver(container.synchronize()) { LoudHolder() }
        let first = holder?.loud
        #expect(built == 2)
        #expect(seen.count == 2)  // the deinit at the end, then the dropped instance's
        #expect(seen.allSatisfy { $0 === first })
        #expect(holder?.loud === first)
        holder = nil  // the kept instance reads the box from its `deinit`: no cycle left behind
    }

    @MainActor @Test func mainInjectedReadByADeinitAtTheEndOfItsFirstAccessHandsOutOneInstance() {
        var holder: MainHolder?
        var seenInDeinit: Piece?
        let view = container(readingOnceAtTheEnd: { MainActor.assumeIsolated { seenInDeinit = holder?.part } })
            .synchronize()
        holder = withResolver(view) { MainHolder() }
        let first = holder?.part
        #expect(seenInDeinit != nil)
        #expect(first === seenInDeinit)
        #expect(holder?.part === first)
    }

    @MainActor @Test func mainInjectedReadByAFactoryDuringItsFirstAccessHandsOutOneInstance() {
        var holder: MainHolder?
        var seenInFactory: Piece?
        let container = container(
            readingOnceFromAFactory: { MainActor.assumeIsolated { seenInFactory = holder?.part } }, scope: .container)
        holder = withResolver(container.synchronize()) { MainHolder() }
        let first = holder?.part
        #expect(seenInFactory != nil)
        #expect(first === seenInFactory)
        #expect(holder?.part === first)
    }

    /// An async `.container` build is one flight: a `deinit` at the end of its factory that asks
    /// again, synchronously (not built yet: `nil`) or from a task (waits for the build), starts no
    /// second build.
    @Test func asyncBuildAskedAgainFromADeinitAtTheEndOfItsFactoryBuildsOnce() async throws {
        let builds = Mailbox<Int>(0)
        let seenSynchronously = Mailbox<Bool?>(nil)
        let asked = Mailbox<Task<Piece, any Error>?>(nil)
        let view = Container().synchronize()
        view.registerAsync(Piece.self) { r in
            builds.update { $0 += 1 }
            do {
                let releasedAtTheEnd = OnRelease {
                    seenSynchronously.update { $0 = r.resolve(Piece.self) != nil }
                    // Detached: a task made here would count as the build's own wait (a cycle).
                    asked.update { $0 = Task.detached { try await r.resolveAsync(Piece.self) } }
                }
                _ = releasedAtTheEnd
            }
            return Piece()
        }
        let first = try await view.resolveAsync(Piece.self)
        let second = try await #require(asked.read()).value
        #expect(first === second)
        #expect(seenSynchronously.read() == false)
        #expect(builds.read() == 1)
    }

    /// A factory of the build that asks for it synchronously gets `nil` and starts nothing.
    @Test func asyncBuildAskedAgainFromItsOwnFactoryBuildsOnce() async throws {
        let builds = Mailbox<Int>(0)
        let seen = Mailbox<Bool?>(nil)
        let view = Container().synchronize()
        view.register(Reader.self) { r in
            seen.update { $0 = r.resolve(Piece.self) != nil }
            return Reader()
        }
        view.registerAsync(Piece.self) { r in
            builds.update { $0 += 1 }
            _ = r.resolve(Reader.self)
            return Piece()
        }
        let first = try await view.resolveAsync(Piece.self)
        #expect(try await view.resolveAsync(Piece.self) === first)
        #expect(seen.read() == false)
        #expect(builds.read() == 1)
    }
}

/// A first access that fails keeps nothing; `nil` of an optional service is kept only when nothing
/// is registered.
@Suite(.capturedLog) struct FirstAccessFailureTests {
    /// A container whose transient `Piece` factory throws on its first call only.
    private func failingOnce() -> Container {
        let container = Container()
        var calls = 0
        container.register(Piece.self) { (_: Resolver) throws -> Piece in
            calls += 1
            if calls == 1 { throw Refused() }
            return Piece()
        }
        .inObjectScope(.transient)
        return container
    }

    @Test func optionalInjectedWhoseFactoryFailedResolvesAgainOnTheNextAccess() {
        let holder = withResolver(failingOnce().synchronize()) { OptionalHolder() }
        #expect(holder.part == nil)  // the factory threw
        let second = holder.part
        #expect(second != nil)
        #expect(holder.part === second)  // kept once resolved
    }

    @Test func optionalInjectedOfAnAsyncServiceSeesItOnceBuilt() async throws {
        let view = Container().synchronize()
        view.registerAsync(Piece.self) { _ in Piece() }
        let holder = withResolver(view) { OptionalHolder() }
        #expect(holder.part == nil)  // not built yet: a failure, so not kept
        let built = try await view.resolveAsync(Piece.self)
        #expect(holder.part === built)
    }

    @Test func optionalInjectedOfAnUnregisteredServiceKeepsNil() {
        let container = Container()
        let holder = withResolver(container.synchronize()) { OptionalHolder() }
        #expect(holder.part == nil)
        container.register(Piece.self) { _ in Piece() }
        #expect(holder.part == nil)  // decided on the first access
    }

    @MainActor @Test func optionalMainInjectedWhoseFactoryFailedResolvesAgainOnTheNextAccess() {
        let holder = withResolver(failingOnce().synchronize()) { OptionalMainHolder() }
        #expect(holder.part == nil)
        let second = holder.part
        #expect(second != nil)
        #expect(holder.part === second)
    }

    @MainActor @Test func optionalMainInjectedOfAnUnregisteredServiceKeepsNil() {
        let container = Container()
        let holder = withResolver(container.synchronize()) { OptionalMainHolder() }
        #expect(holder.part == nil)
        container.register(Piece.self) { _ in Piece() }
        #expect(holder.part == nil)
    }

    @Test func lazyOfAnOptionalWhoseFactoryFailedResolvesAgainOnTheNextAccess() throws {
        let container = failingOnce()
        let lazy = try #require(container.resolve(Lazy<Piece?>.self))
        #expect(lazy.instance == nil)
        let second = lazy.instance
        #expect(second != nil)
        #expect(lazy.instance === second)
    }
}

/// A value handed between tasks.
private final class Mailbox<Value>: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func read() -> Value { lock.withLock { value } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}

/// The wrappers that share one first access: `Lazy` and `Provider` made through a plain container or
/// its synchronized view, `@Injected` and `@MainInjected`. Between them they take every isolation
/// of the component (one thread, any thread, the main actor).
enum FirstAccessWrapper: String, CaseIterable, Codable, Sendable {
    case lazy, synchronizedLazy, provider, synchronizedProvider, injected, mainInjected

    /// Whether a value is kept: a `Provider` keeps nothing, each access resolves.
    var keeps: Bool { self != .provider && self != .synchronizedProvider }

    /// What the wrapper's message says when it cannot resolve `Piece` under `name`.
    func failedAccess(name: String) -> String {
        switch self {
        case .lazy, .synchronizedLazy: return "Lazy<Piece>.instance could not be resolved"
        case .provider, .synchronizedProvider: return "Provider<Piece>.instance could not be resolved"
        case .injected: return "@Injected could not resolve Piece (name: \"\(name)\")"
        case .mainInjected: return "@MainInjected could not resolve Piece (name: \"\(name)\")"
        }
    }

    /// Makes the wrapper of `Service` under `name` from `container`, and returns what reads it (on
    /// the main actor, where a `deinit` or a factory of these tests runs).
    @MainActor
    func reader<Service>(of _: Service.Type, name: String, in container: Container) -> () -> Service {
        switch self {
        case .lazy:
            let lazy = container.resolve(Lazy<Service>.self, name: name)!
            return { lazy.instance }
        case .synchronizedLazy:
            let lazy = container.synchronize().resolve(Lazy<Service>.self, name: name)!
            return { lazy.instance }
        case .provider:
            let provider = container.resolve(Provider<Service>.self, name: name)!
            return { provider.instance }
        case .synchronizedProvider:
            let provider = container.synchronize().resolve(Provider<Service>.self, name: name)!
            return { provider.instance }
        case .injected:
            let holder = withResolver(container.synchronize()) { NamedInjectedHolder<Service>(name: name) }
            return { holder.part }
        case .mainInjected:
            let holder = withResolver(container.synchronize()) { NamedMainInjectedHolder<Service>(name: name) }
            return {
                // Safe: these tests read every wrapper on the main actor (a test, a factory or a
                // `deinit` it runs), and `assumeIsolated` runs the closure synchronously on this
                // thread: the value crosses into it and back on this one thread.
                nonisolated(unsafe) var part: Service?
                MainActor.assumeIsolated { part = holder.part }
                return part!
            }
        }
    }
}

private final class NamedInjectedHolder<Service> {
    @Injected var part: Service
    init(name: String) { _part = Injected(name: name) }
}

@MainActor private final class NamedMainInjectedHolder<Service> {
    @MainInjected var part: Service
    init(name: String) { _part = MainInjected(name: name) }
}

/// Where user code run by a first access reads the same wrapper again.
enum FirstAccessReentry: CaseIterable, Sendable {
    /// A `deinit` at the end of the first resolution (a graph-scoped instance released as its graph ends).
    case deinitAtTheEnd
    /// A factory during it (of a service that the first instance's `initCompleted` resolves).
    case factoryDuring
}

/// One first access for all the wrappers: the same rules, told apart only where their policies
/// differ (`Provider` keeps nothing). Each test runs every wrapper through the same program.
@Suite(.capturedLog) struct FirstAccessPathTests {
    /// A transient `Piece` (so the scope shares nothing): re-entered during its first access, a
    /// wrapper that keeps hands the instance kept first to the nested read, the outer one and every
    /// later one; a `Provider` resolves anew each time.
    @MainActor @Test(arguments: FirstAccessWrapper.allCases, FirstAccessReentry.allCases)
    func aReenteredFirstAccessHandsOutTheInstanceKeptFirst(
        wrapper: FirstAccessWrapper, reentry: FirstAccessReentry
    ) {
        var read: (() -> Piece)?
        var nested: Piece?
        let container: Container
        switch reentry {
        case .deinitAtTheEnd:
            container = Container()
            registerOnRelease(in: container, readingOnce: { nested = read?() })
            container.register(Piece.self, name: "piece") { r in
                _ = r.resolve(OnRelease.self)
                return Piece()
            }
            .inObjectScope(.transient)
        case .factoryDuring:
            container = Container()
            registerReader(in: container, readingOnce: { nested = read?() })
            container.register(Piece.self, name: "piece") { _ in Piece() }
                .inObjectScope(.transient)
                .initCompleted { r, _ in _ = r.resolve(Reader.self) }
        }
        read = wrapper.reader(of: Piece.self, name: "piece", in: container)
        let first = read?()
        let later = read?()
        #expect(nested != nil)
        if wrapper.keeps {
            #expect(first === nested)
            #expect(later === first)
        } else {
            #expect(first !== nested)
            #expect(later !== first && later !== nested)
        }
    }

    /// An optional service whose registered factory throws once: the access is `nil` and logged,
    /// and not kept, so the next access resolves it; that value is kept by every wrapper that keeps.
    @MainActor @Test(arguments: FirstAccessWrapper.allCases)
    func aFailedOptionalIsNilLoggedAndNotKept(wrapper: FirstAccessWrapper) {
        let log = LogCapture()
        let name = "failing once, \(wrapper)"
        let container = Container()
        var calls = 0
        container.register(Piece.self, name: name) { (_: Resolver) throws -> Piece in
            calls += 1
            if calls == 1 { throw Refused() }
            return Piece()
        }
        .inObjectScope(.transient)
        let read = wrapper.reader(of: Piece?.self, name: name, in: container)
        #expect(read() == nil)
        #expect(log.messages(mentioning: name).count == 1)
        let second = read()
        #expect(second != nil)
        #expect((read() === second) == wrapper.keeps)
        #expect(log.messages(mentioning: name).count == 1)
    }

    /// The `nil` of an optional service that is not registered is a value like any other: kept by
    /// every wrapper that keeps, even once the service is registered; a `Provider` sees it then.
    @MainActor @Test(arguments: FirstAccessWrapper.allCases)
    func theNilOfAnUnregisteredOptionalIsKept(wrapper: FirstAccessWrapper) {
        let container = Container()
        let read = wrapper.reader(of: Piece?.self, name: "absent", in: container)
        #expect(read() == nil)
        container.register(Piece.self, name: "absent") { _ in Piece() }
        #expect((read() == nil) == wrapper.keeps)
    }

    /// A value made inside `validate()` lives in the validation's graph only: no wrapper keeps it.
    @MainActor @Test(arguments: FirstAccessWrapper.allCases)
    func whatAValidationMakesIsNotKept(wrapper: FirstAccessWrapper) {
        var read: (() -> Piece)?
        var duringValidation: Piece?
        let container = Container()
        container.register(Piece.self, name: "validated") { _ in Piece() }.inObjectScope(.transient)
        container.register(Reader.self) { _ in
            duringValidation = read?()
            return Reader()
        }
        read = wrapper.reader(of: Piece.self, name: "validated", in: container)
        _ = container.validate()
        let first = read?()
        #expect(duringValidation != nil)
        #expect(first !== duringValidation)
        #expect((read?() === first) == wrapper.keeps)
    }

    /// Every way a first access ends (a value kept, re-entered from a factory, the `nil` of an
    /// unregistered optional, a failed optional, a later access) leaves the hierarchy's mutex as it
    /// found it: free for another thread, and no synchronized call counted as open on this one.
    @MainActor @Test(arguments: FirstAccessWrapper.allCases)
    func everyFirstAccessLeavesTheMutexAsItFoundIt(wrapper: FirstAccessWrapper) async {
        let container = Container()
        var read: (() -> Piece)?
        registerReader(in: container, readingOnce: { _ = read?() })
        container.register(Piece.self, name: "kept") { _ in Piece() }.inObjectScope(.transient)
        container.register(Piece.self, name: "reentered") { _ in Piece() }
            .inObjectScope(.transient)
            .initCompleted { r, _ in _ = r.resolve(Reader.self) }
        var calls = 0
        container.register(Piece.self, name: "failing once") { (_: Resolver) throws -> Piece in
            calls += 1
            if calls == 1 { throw Refused() }
            return Piece()
        }
        read = wrapper.reader(of: Piece.self, name: "reentered", in: container)
        let accesses: [(String, () -> Void)] = [
            ("kept", { [reader = wrapper.reader(of: Piece.self, name: "kept", in: container)] in _ = reader() }),
            ("re-entered", { _ = read?() }),
            ("unregistered optional", { _ = wrapper.reader(of: Piece?.self, name: "absent", in: container)() }),
            ("failed optional", { _ = wrapper.reader(of: Piece?.self, name: "failing once", in: container)() }),
            ("later", { _ = read?() }),
        ]
        let mutex = UncheckedBox(container.hierarchy.mutex)
        for (access, run) in accesses {
            run()
            #expect(!container.hierarchy.isInSynchronizedCall, "\(access)")
            let free = await onNewThread { mutex.value.tryWithLock { true } ?? false }
            #expect(free, "\(access)")
        }
        #expect(calls == 1)
    }

    /// A failure of a service that is not optional stops the program, with the wrapper's message.
    @Test(arguments: FirstAccessWrapper.allCases)
    func aFailureStopsWithTheWrappersMessage(wrapper: FirstAccessWrapper) async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [wrapper = wrapper as FirstAccessWrapper] in
            await MainActor.run {
                let container = Container()
                container.register(Piece.self, name: "refused") { (_: Resolver) throws -> Piece in throw Refused() }
                _ = wrapper.reader(of: Piece.self, name: "refused", in: container)()
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains(wrapper.failedAccess(name: "refused")))
        #expect(stderr.contains("Refused"))
    }
}
