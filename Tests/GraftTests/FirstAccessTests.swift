import Foundation
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
@Suite struct FirstAccessReentryTests {
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
@Suite struct FirstAccessFailureTests {
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
