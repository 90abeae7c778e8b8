// Graft — MIT License.

extension SynchronizedResolver {
    /// The resolver bound to the current task (by ``withResolver(_:operation:)-(_,()->R)`` or
    /// ``withOverrides(_:operation:)-(_,()->R)``), else the process default set by
    /// ``bootstrap(_:)``, else an empty one whose every resolution fails with a message saying how
    /// to bind one.
    ///
    /// A binding is inherited by the child tasks of the task that made it (`Task {}`, task groups,
    /// `async let`), not by `Task.detached`, and not by work handed to a `DispatchQueue` or a C
    /// callback; ``withEscapedResolver(_:)`` carries it there.
    ///
    /// ```swift
    /// SynchronizedResolver.bootstrap(appContainer.synchronize())
    /// let api = SynchronizedResolver.current.resolve(API.self)
    /// ```
    public static var current: SynchronizedResolver {
        let bound = ResolverBinding.bound
        if ObjectIdentifier(bound) != ResolverBinding.unboundIdentity { return bound }
        return ResolverBinding.processDefault.withLock { $0 } ?? bound
    }

    /// Sets the process-wide default: the resolver ``current`` gives where no task has bound one.
    /// An application calls it once at start-up; calling it again replaces it.
    public static func bootstrap(_ resolver: SynchronizedResolver) {
        // The one replaced is released after unlocking: its container's deinit may run.
        withExtendedLifetime(ResolverBinding.processDefault.withLock { exchange(&$0, resolver) }) {}
    }

    /// Whether this is the empty resolver ``current`` gives when nothing is bound.
    var isUnboundPlaceholder: Bool { hierarchy.isUnboundPlaceholder }
}

/// Where ``SynchronizedResolver/current`` comes from.
enum ResolverBinding {
    /// The resolver bound to the current task (or thread, outside tasks); ``unbound`` where none
    /// is. Not optional: the task-local's value is copied by the standard library's generic code,
    /// where a class reference copies with one retain and an `Optional` through its value
    /// witnesses, a cost every resolution through `current` would pay.
    @TaskLocal static var bound: SynchronizedResolver = unbound

    /// The empty resolver of an unbound task: its misses say how to bind one, and it refuses
    /// registrations (they would be process-wide by accident).
    static let unbound: SynchronizedResolver = {
        let placeholder = Container().synchronize()
        placeholder.hierarchy.markAsUnboundPlaceholder()
        return placeholder
    }()
    /// `unbound`'s identity, compared without retaining it.
    static let unboundIdentity = ObjectIdentifier(unbound)

    /// The process-wide default, set by ``SynchronizedResolver/bootstrap(_:)``.
    fileprivate static let processDefault = Locked<SynchronizedResolver?>(nil)

    /// The ways to bind a resolver, for every message about an unbound task. `withOverrides` is
    /// not one: it copies the resolver bound already.
    static let howToBind =
        "No resolver is bound to this task: call SynchronizedResolver.bootstrap(container.synchronize()) at "
        + "start-up, or run this code inside withResolver(_:operation:) (in a test, the .resolver trait); "
        + "work handed to a queue or a callback takes its task's binding with withEscapedResolver(_:)."

    /// Why `call` (`withOverrides`, the `.overrides` test trait) cannot run now, or `nil` when a
    /// resolver is bound (or a default set) for it to copy.
    static func overridesNeedABoundResolver(_ call: String) -> String? {
        guard SynchronizedResolver.current.isUnboundPlaceholder else { return nil }
        return "Graft: \(call) with no resolver bound: the overrides replace registrations of "
            + "SynchronizedResolver.current, and there is none to copy. " + howToBind
    }
}

/// Why the `.overrides` test trait cannot run now, or `nil` when a resolver is bound (or a default
/// set) for it to copy. For GraftTesting, which fails the test with it.
package func overridesTraitNeedsABoundResolver() -> String? {
    ResolverBinding.overridesNeedABoundResolver(".overrides trait")
}

/// Runs `operation` with ``SynchronizedResolver/current`` bound to `resolver`, in it and in every
/// child task it creates.
///
/// ```swift
/// withResolver(container.synchronize()) {
///     let service = SynchronizedResolver.current.resolve(UserService.self)
/// }
/// ```
public func withResolver<R>(_ resolver: SynchronizedResolver, operation: () throws -> R) rethrows -> R {
    try ResolverBinding.$bound.withValue(resolver, operation: operation)
}

/// Runs `operation` with ``SynchronizedResolver/current`` bound to `resolver`, in it and in every
/// child task it creates (`Task {}`, task groups, `async let`; not `Task.detached`).
///
/// ```swift
/// await withResolver(container.synchronize()) {
///     await withTaskGroup(of: Void.self) { group in
///         group.addTask { _ = SynchronizedResolver.current.resolve(UserService.self) }
///     }
/// }
/// ```
public func withResolver<R>(
    _ resolver: SynchronizedResolver, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
) async rethrows -> R {
    try await ResolverBinding.$bound.withValue(resolver, operation: operation, isolation: isolation)
}

/// The resolver binding of the task that made it, to restore where task-locals do not reach: work
/// handed to a `DispatchQueue`, a C callback, or a detached task.
///
/// ```swift
/// withEscapedResolver { escaped in
///     queue.async {
///         escaped.yield { _ = SynchronizedResolver.current.resolve(API.self) }
///     }
/// }
/// ```
public struct EscapedResolver: Sendable {
    let resolver: SynchronizedResolver

    /// Runs `operation` with the captured binding restored.
    public func yield<R>(_ operation: () throws -> R) rethrows -> R {
        try ResolverBinding.$bound.withValue(resolver, operation: operation)
    }
}

/// Captures the current task's resolver binding for code that runs outside the task.
public func withEscapedResolver<R>(_ body: (EscapedResolver) throws -> R) rethrows -> R {
    try body(EscapedResolver(resolver: ResolverBinding.bound))
}
