// Graft — MIT License.

/// Runs `operation` with ``SynchronizedResolver/current`` bound to a resolver in which `overrides`
/// replace registrations of the current one, as if its container had been built afresh with them.
///
/// ```swift
/// @Test func checkoutShowsTheError() {
///     withOverrides({ $0.register(API.self) { _ in FailingAPI() } }) {
///         let model = CheckoutModel()          // its @Injected api is FailingAPI
///         model.submit()
///         #expect(model.error != nil)
///     }
/// }
/// ```
///
/// The scope copies the registrations of the current resolver's container and its ancestors (not
/// their instances) into a new hierarchy, then applies `overrides` to the copy of that container.
/// So inside the scope a `.container` or `.weak` service is made afresh, with the overrides as its
/// dependencies, and lives as long as the scope's resolver does (which an `@Injected` made inside
/// keeps alive); nothing made inside reaches the outer containers, and no instance they hold is
/// handed out inside. Scopes nest; parallel tasks each see their own. Factories that resolve
/// through the resolver they receive see the overrides; one that resolves through a container it
/// captured resolves there.
///
/// It needs a resolver to copy: with none bound (no ``withResolver(_:operation:)-(_,()->R)``
/// around it and no ``SynchronizedResolver/bootstrap(_:)``), it stops the program with a message
/// saying how to bind one.
public func withOverrides<R>(_ overrides: (Container) -> Void, operation: () throws -> R) rethrows -> R {
    try withResolver(Container.overriddenResolver(overrides), operation: operation)
}

/// Runs the asynchronous `operation` with ``SynchronizedResolver/current`` bound to a resolver in
/// which `overrides` replace registrations of the current one; see
/// ``withOverrides(_:operation:)-(_,()->R)``. Child tasks of `operation` inherit the binding.
/// With no resolver bound, it stops the program with a message saying how to bind one.
public func withOverrides<R>(
    _ overrides: (Container) -> Void, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
) async rethrows -> R {
    try await withResolver(Container.overriddenResolver(overrides), isolation: isolation, operation: operation)
}

extension Container {
    /// A copy of the current resolver's hierarchy of registrations, with `overrides` applied to its
    /// innermost container.
    static func overriddenResolver(_ overrides: (Container) -> Void) -> SynchronizedResolver {
        if let unbound = ResolverBinding.overridesNeedABoundResolver("withOverrides(_:operation:)") { stop(unbound) }
        let current = SynchronizedResolver.current
        // A new hierarchy with the current resolver's chain of registrations (ancestors first), no
        // instances. Read under its hierarchy's mutex: other threads may register through views.
        let innermost = current.hierarchy.withLock {
            var copied: [ObjectIdentifier: AnyServiceEntry] = [:]
            var parent: Container?
            for original in current.selfAndAncestors.reversed() {
                let copy = Container(
                    parent: parent, defaultObjectScope: original.defaultObjectScope as? ObjectScope ?? .graph)
                for (key, entry) in original.services.registrations {
                    // One copy per entry, whatever its kind, shared by every key that leads to it.
                    let entryCopy = copied[ObjectIdentifier(entry)] ?? entry.copy(into: copy)
                    copied[ObjectIdentifier(entry)] = entryCopy
                    copy.services.insert(entryCopy, for: key, directCell: entryCopy.directCell(forKeyWith: key.service))
                }
                // Added once the copies are in, so they are told only about registrations made in
                // the copy (the overrides), as they would be in a container built afresh with them.
                for behavior in original.state.behaviors { copy.addBehavior(behavior) }
                parent = copy
            }
            return parent!
        }
        overrides(innermost)
        return innermost.synchronize()
    }
}
