import GraftTesting
import Testing

@testable import Graft

private struct Breakdown: Error {}
private final class Breaking {}
private final class SelfNeeding {
    init(_: SelfNeeding?) {}
}
private final class RegisteredNowhere {}
private final class Piece {}
private final class Fixture {}
private final class LazyFragile {}
private final class ProviderFragile {}
private final class InjectedFragile {}
private final class OperatorFragile {}
private final class NestedFragile {}
private final class Dependent {
    init(_: NestedFragile?) {}
}

private final class FragileHolder {
    @Injected var part: InjectedFragile?
}

private final class MainFragile {}

@MainActor private final class MainFragileHolder {
    @MainInjected var part: MainFragile?
}

private func attempt<T>(_ body: () throws(ResolutionError) -> T) -> Result<T, ResolutionError> {
    do { return .success(try body()) } catch { return .failure(error) }
}

/// The reason of the error thrown, or `nil` when nothing was thrown.
private func thrownReason<T>(_ body: () throws(ResolutionError) -> T) -> String? {
    if case .failure(let error) = attempt(body) { return "\(error.reason)" }
    return nil
}

/// `require` of an `Optional` agrees with `require` of the type it wraps: a registered service
/// that fails is broken, not absent, so its failure is thrown; only a missing registration is
/// `nil`. Callers that give an `Optional`'s `nil` to user code (`Lazy`, `Provider`, `@Injected`,
/// `~>`) log that failure, as `resolve` does.
@Suite(.capturedLog) struct RequireAgreementTests {
    @Test(arguments: [false, true])
    func requireOfAnOptionalOfAFailingServiceThrowsTheFailure(throughView: Bool) {
        let log = LogCapture()
        let container = Container()
        container.register(Breaking.self) { _ in throw Breakdown() }
        let r: Container = throughView ? container.synchronize() : container
        let beforeResolve = log.messages(mentioning: "Breaking").count
        #expect(r.resolve(Breaking?.self) != nil)  // `.some(nil)`, and logged
        #expect(log.messages(mentioning: "Breaking").count > beforeResolve)
        #expect(
            thrownReason { () throws(ResolutionError) in try r.require(Breaking.self) } == "factory failed: Breakdown()"
        )
        #expect(
            thrownReason { () throws(ResolutionError) in try r.require(Breaking?.self) }
                == "factory failed: Breakdown()")
    }

    @Test(arguments: [false, true])
    func requireOfAnOptionalOfACycleThrowsTheCycle(throughView: Bool) {
        let log = LogCapture()
        let container = Container()
        container.register(SelfNeeding.self) { r in SelfNeeding(try r.require(SelfNeeding.self)) }
        let r: Container = throughView ? container.synchronize() : container
        let beforeResolve = log.messages(mentioning: "SelfNeeding").count
        _ = r.resolve(SelfNeeding?.self)
        #expect(log.messages(mentioning: "SelfNeeding").count > beforeResolve)
        #expect(
            thrownReason { () throws(ResolutionError) in try r.require(SelfNeeding?.self) } == "circular dependency")
    }

    /// The same with a name, with arguments, and for an `Optional` of an `Optional`.
    @Test(arguments: [false, true])
    func requireOfAnOptionalThrowsTheFailureWithANameOrArguments(throughView: Bool) {
        let container = Container()
        container.register(Breaking.self, name: "named") { _ in throw Breakdown() }
        container.register(Breaking.self) { (_: Resolver, _: Int) throws -> Breaking in throw Breakdown() }
        container.register(Breaking.self) { (_: Resolver, _: Int, _: String) throws -> Breaking in throw Breakdown() }
        container.register(Piece.self) { _ in throw Breakdown() }
        let r: Container = throughView ? container.synchronize() : container
        let reason = "factory failed: Breakdown()"
        #expect(thrownReason { () throws(ResolutionError) in try r.require(Breaking?.self, name: "named") } == reason)
        #expect(thrownReason { () throws(ResolutionError) in try r.require(Breaking?.self, argument: 1) } == reason)
        #expect(
            thrownReason { () throws(ResolutionError) in try r.require(Breaking?.self, arguments: 1, "a") } == reason)
        #expect(thrownReason { () throws(ResolutionError) in try r.require(Piece??.self) } == reason)
        // `resolve` keeps its "maybe": `.some(nil)`.
        #expect(r.resolve(Breaking?.self, name: "named") != nil)
        #expect(r.resolve(Breaking?.self, argument: 1) != nil)
    }

    /// Nothing registered: `nil`, thrown or logged nowhere, with or without a name or arguments.
    @Test(arguments: [false, true])
    func requireOfAnOptionalOfAnUnregisteredServiceIsNil(throughView: Bool) throws {
        let log = LogCapture()
        let container = Container()
        let r: Container = throughView ? container.synchronize() : container
        #expect(try r.require(RegisteredNowhere?.self) == nil)
        #expect(try r.require(RegisteredNowhere?.self, name: "named") == nil)
        #expect(try r.require(RegisteredNowhere?.self, argument: 1) == nil)
        #expect(try r.require(RegisteredNowhere??.self).map { $0 == nil } == true)
        #expect(log.messages(mentioning: "RegisteredNowhere").isEmpty)
    }

    /// A factory that went on after a dependency failed resolves the rest as before: `require` of
    /// a registered service's `Optional` gives the instance, of an unregistered one `nil`.
    @Test func requireOfAnOptionalAfterAHandledFailureInTheFactoryResolves() {
        let container = Container()
        container.register(Breaking.self) { _ in throw Breakdown() }
        container.register(Piece.self) { _ in Piece() }
        var found: Result<Piece?, ResolutionError>?
        var absent: Result<RegisteredNowhere?, ResolutionError>?
        container.register(Fixture.self) { r in
            _ = r.resolve(Breaking.self)  // fails, handled: the factory goes on
            found = attempt { () throws(ResolutionError) in try r.require(Piece?.self) }
            absent = attempt { () throws(ResolutionError) in try r.require(RegisteredNowhere?.self) }
            return Fixture()
        }
        #expect(container.resolve(Fixture.self) != nil)
        guard case .success(.some) = found else {
            Issue.record("require(Piece?.self) after a handled failure: \(String(describing: found))")
            return
        }
        guard case .success(nil) = absent else {
            Issue.record("require(RegisteredNowhere?.self) after a handled failure: \(String(describing: absent))")
            return
        }
    }

    /// `Lazy<X?>` and `Provider<X?>` of a registered `X` that fails are `nil`, as `resolve` makes
    /// it, and the failure is logged. (Each case registers under a name of its own: cases run in
    /// parallel and the log is the process's.)
    @Test(arguments: [false, true])
    func lazyAndProviderOfAnOptionalOfAFailingServiceAreNilAndLogged(throughView: Bool) throws {
        let log = LogCapture()
        let name = "deferred \(throughView)"
        let container = Container()
        container.register(LazyFragile.self, name: name) { _ in throw Breakdown() }
        container.register(ProviderFragile.self, name: name) { _ in throw Breakdown() }
        let r: Container = throughView ? container.synchronize() : container
        let lazy = try r.require(Lazy<LazyFragile?>.self, name: name)
        #expect(lazy.instance == nil)
        #expect(log.messages(mentioning: "factory of LazyFragile (name: \"\(name)\") threw").count == 1)
        let provider = try r.require(Provider<ProviderFragile?>.self, name: name)
        #expect(provider.instance == nil)
        #expect(log.messages(mentioning: "factory of ProviderFragile (name: \"\(name)\") threw").count == 1)
    }

    /// An optional `@Injected` whose service fails is `nil` (resolved again on the next access),
    /// and the failure is logged.
    @Test func optionalInjectedOfAFailingServiceIsNilAndLogged() {
        let log = LogCapture()
        let container = Container()
        container.register(InjectedFragile.self) { _ in throw Breakdown() }
        let holder = withResolver(container.synchronize()) { FragileHolder() }
        #expect(holder.part == nil)
        #expect(log.messages(mentioning: "factory of InjectedFragile threw").count == 1)
        #expect(holder.part == nil)
        #expect(log.messages(mentioning: "factory of InjectedFragile threw").count == 2)
    }

    @MainActor @Test func optionalMainInjectedOfAFailingServiceIsNilAndLogged() {
        let log = LogCapture()
        let container = Container()
        container.register(MainFragile.self) { _ in throw Breakdown() }
        let holder = withResolver(container.synchronize()) { MainFragileHolder() }
        #expect(holder.part == nil)
        #expect(log.messages(mentioning: "factory of MainFragile threw").count == 1)
    }

    /// `~>` of an `Optional` whose service fails is `nil` and logged, not a stop.
    @Test(arguments: [false, true])
    func operatorOfAnOptionalOfAFailingServiceIsNilAndLogged(throughView: Bool) {
        let log = LogCapture()
        let name = "operator \(throughView)"
        let container = Container()
        container.register(OperatorFragile.self, name: name) { _ in throw Breakdown() }
        let r: Container = throughView ? container.synchronize() : container
        let fragile: OperatorFragile? = r ~> (OperatorFragile?.self, name: name)
        #expect(fragile == nil)
        #expect(log.messages(mentioning: "factory of OperatorFragile (name: \"\(name)\") threw").count == 1)
        let unnamed: Breaking? = r~>  // nothing registered: `nil`
        #expect(unnamed == nil)
    }

    /// In a factory, an `Optional` dependency that fails is `nil` there (`~>`, `autoregister`):
    /// the factory's instance stands, and the failure is logged once.
    @Test func optionalDependencyThatFailsIsNilInTheFactoryLoggedOnce() {
        let log = LogCapture()
        let container = Container()
        container.register(NestedFragile.self) { _ in throw Breakdown() }
        container.register(Dependent.self, name: "operator") { r in Dependent(r~>) }
        container.autoregister(Dependent.self, name: "autoregistered", initializer: Dependent.init)
        #expect(container.resolve(Dependent.self, name: "operator") != nil)
        #expect(log.messages(mentioning: "factory of NestedFragile threw").count == 1)
        #expect(container.resolve(Dependent.self, name: "autoregistered") != nil)
        #expect(log.messages(mentioning: "factory of NestedFragile threw").count == 2)
    }
}
