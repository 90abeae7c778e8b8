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
///
/// It composes with ``OverridesTrait`` in any order and at any level: a test case runs with one
/// resolver, the test's own if it has one, else its innermost suite's, and every `.overrides` of
/// the test and its suites applied to that resolver.
public struct ResolverTrait: TestTrait, SuiteTrait, TestScoping {
    let makeResolver: @Sendable () -> SynchronizedResolver

    /// Applied to every test of a suite, so each test case gets its own resolver.
    public var isRecursive: Bool { true }

    // The same scope as `OverridesTrait`'s: whichever Graft trait is reached first binds for all (`GraftScope`).
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await GraftScope.run(test, testCase, function)
    }
}

/// Runs each test case inside ``Graft/withOverrides(_:isolation:operation:)``: the overrides
/// replace registrations of the test's resolver (one bound by a `.resolver` trait of the test or
/// of a suite, in whatever order the traits are listed; otherwise the resolver current when the
/// test starts).
///
/// ```swift
/// @Test(.overrides { $0.register(API.self) { _ in MockAPI() } })
/// func checkoutShowsTheError() { ... }
/// ```
///
/// Overrides from a suite and from its test all apply, outermost suite first: where two register
/// the same service, the test's own wins. With no resolver to copy (no `.resolver` trait, none
/// bound around the test, no ``Graft/SynchronizedResolver/bootstrap(_:)``), the test fails
/// without running, with a message saying how to bind one.
public struct OverridesTrait: TestTrait, SuiteTrait, TestScoping {
    let overrides: @Sendable (Container) -> Void

    /// Applied to every test of a suite, so each test case gets its own instances.
    public var isRecursive: Bool { true }

    // The same scope as `ResolverTrait`'s: whichever Graft trait is reached first binds for all (`GraftScope`).
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await GraftScope.run(test, testCase, function)
    }
}

/// The scope of a test case, built from all of its Graft traits at once.
///
/// Swift Testing nests the scopes of a test's traits in the order they are listed, its suites'
/// (recursive) traits first. Each trait binding on its own would let a `.resolver` nested inside
/// an `.overrides` bind the live resolver over the overridden one, silently. So the first Graft
/// trait to provide a test case's scope reads them all from `test.traits` (which holds the
/// suites' too) and binds once: the last `.resolver` listed, with every `.overrides` applied to
/// it in order; the others see the scope bound and only run the test.
enum GraftScope {
    @TaskLocal static var isBound = false

    static func run(_ test: Test, _ testCase: Test.Case?, _ function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope binds nothing (its tests do, each case anew); nor does a trait
        // nested in a test case's scope that another Graft trait has bound already.
        guard testCase != nil, !isBound else { return try await function() }
        try await run(traits: test.traits, function)
    }

    /// Binds the scope of a test case whose traits (its suites' included) are `traits`.
    static func run(traits: [any Trait], _ function: @Sendable () async throws -> Void) async throws {
        try await $isBound.withValue(true) {
            guard let resolver = traits.last(where: { $0 is ResolverTrait }) as? ResolverTrait else {
                return try await overridden(traits, function)
            }
            try await withResolver(resolver.makeResolver()) { try await overridden(traits, function) }
        }
    }

    /// Runs `function` with every `.overrides` of `traits` applied, in the order listed.
    private static func overridden(_ traits: [any Trait], _ function: @Sendable () async throws -> Void) async throws {
        let overrides = traits.compactMap { ($0 as? OverridesTrait)?.overrides }
        guard !overrides.isEmpty else { return try await function() }
        // With nothing to copy, the test fails without running, rather than stop the whole run.
        if let unbound = overridesTraitNeedsABoundResolver() { throw UnboundOverrides(description: unbound) }
        try await withOverrides({ container in for apply in overrides { apply(container) } }, operation: function)
    }
}

/// The failure of a test whose `.overrides` found no resolver to copy.
struct UnboundOverrides: Error, CustomStringConvertible { let description: String }

extension Trait where Self == ResolverTrait {
    /// Binds ``Graft/SynchronizedResolver/current`` to the resolver `make` returns, for each test case.
    public static func resolver(_ make: @escaping @Sendable () -> SynchronizedResolver) -> Self {
        ResolverTrait(makeResolver: make)
    }
}

extension Trait where Self == OverridesTrait {
    /// Applies `overrides` to a copy of the test's resolver's registrations, for each test case.
    public static func overrides(_ overrides: @escaping @Sendable (Container) -> Void) -> Self {
        OverridesTrait(overrides: overrides)
    }
}
