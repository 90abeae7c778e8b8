// Graft — MIT License.
import Graft
import Testing

/// Runs each test case inside ``Graft/withResolver(_:isolation:operation:)`` with a resolver made
/// for it. Apply it to a test or a suite (then to each of its tests):
///
/// ```swift
/// @Test(.resolver { makeAppContainer().synchronize() })
/// func checkoutLoads() { ... }
/// ```
public struct ResolverTrait: TestTrait, SuiteTrait, TestScoping {
    let makeResolver: @Sendable () -> SynchronizedResolver

    /// Applied to every test of a suite, so each test case gets its own resolver.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // the suite: its tests bind
        try await withResolver(makeResolver()) { try await function() }
    }
}

/// Runs each test case inside ``Graft/withOverrides(_:isolation:operation:)``: the overrides
/// replace registrations of the resolver current when the test starts (one bound by an enclosing
/// `.resolver` trait, or the process default).
///
/// ```swift
/// @Test(.overrides { $0.register(API.self) { _ in MockAPI() } })
/// func checkoutShowsTheError() { ... }
/// ```
public struct OverridesTrait: TestTrait, SuiteTrait, TestScoping {
    let overrides: @Sendable (Container) -> Void

    /// Applied to every test of a suite, so each test case gets its own instances.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withOverrides(overrides) { try await function() }
    }
}

extension Trait where Self == ResolverTrait {
    /// Binds ``Graft/SynchronizedResolver/current`` to the resolver `make` returns, for each test case.
    public static func resolver(_ make: @escaping @Sendable () -> SynchronizedResolver) -> Self {
        ResolverTrait(makeResolver: make)
    }
}

extension Trait where Self == OverridesTrait {
    /// Applies `overrides` to a copy of the current resolver's registrations, for each test case.
    public static func overrides(_ overrides: @escaping @Sendable (Container) -> Void) -> Self {
        OverridesTrait(overrides: overrides)
    }
}
