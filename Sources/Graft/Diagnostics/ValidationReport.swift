// Graft — MIT License.

/// What ``Container/validate()`` found: every failure, the warnings, what it could not try, and
/// the dependency graph it observed.
///
/// ```swift
/// @Test func assemblyIsValid() {
///     let report = container.validate()
///     #expect(report.isValid, "\(report)")
/// }
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// Every registration that failed to resolve, each with its path.
    public var failures: [ResolutionError]
    /// Dangerous shapes of the graph that resolve today (see ``ValidationWarning``).
    public var warnings: [ValidationWarning]
    /// Registrations validation could not try, because their factories need runtime arguments.
    public var skipped: [String]
    /// What was observed while resolving.
    public var graph: DependencyGraph

    /// Whether every registration tried resolved.
    public var isValid: Bool { failures.isEmpty }

    /// Dependencies that are not registered, which a registration that resolved went on without
    /// (an `Optional` asked for, `r.resolve(X.self) ?? fallback`), as `Service -> Dependency`.
    /// Not failures nor warnings: an optional dependency may be absent on purpose. Listed so that
    /// a registration made under another name or type can be found. (A registered dependency that
    /// failed is a ``ValidationWarning/Kind/handledFailure`` warning instead.)
    public var absentDependencies: [String] {
        let failed = Set(failures.compactMap(\.path.first))
        let absent = graph.edges.filter { $0.to == nil && !failed.contains(graph.nodes[$0.from].label) }
        return Set(absent.map { "\(graph.nodes[$0.from].label) -> \($0.requested)" }).sorted()
    }

    /// A summary, then each failure, warning and skipped registration, and the absent dependencies.
    public var description: String {
        let summary =
            "Validation: \(graph.nodes.count) registrations, \(failures.count) failures, "
            + "\(warnings.count) warnings, \(skipped.count) skipped."
        let details: [String] =
            failures.map { "FAILURE \($0)" } + warnings.map { "WARNING \($0)" } + skipped.map { "SKIPPED " + $0 }
            + absentDependencies.map { "ABSENT " + $0 + " (not registered; resolved without it)" }
        return ([summary] + details).joined(separator: "\n")
    }
}

/// A shape of the graph that works today but is likely a bug.
public struct ValidationWarning: Sendable, CustomStringConvertible {
    /// The kinds of warning.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// A `.container` or `.weak` service resolves a `.transient` or `.graph` one, which then
        /// lives as long as the singleton (Simple Injector's "lifestyle mismatch").
        case captiveDependency
        /// A parent's `.container` or `.weak` service, resolved through a child container, used a
        /// registration of that child: the singleton depends on which child asked first.
        case parentCapturesChild
        /// A factory went on without a dependency that failed (its `resolve` returned `nil`, or
        /// it caught what `require` threw): the service resolves, without that dependency.
        case handledFailure

        /// The kind in a few words, as the dependency graph labels its edges.
        public var description: String {
            switch self {
            case .captiveDependency: "captive dependency"
            case .parentCapturesChild: "parent captures child"
            case .handledFailure: "handled failure"
            }
        }
    }

    /// The kind of warning.
    public var kind: Kind
    /// The long-lived service, labelled as in a path.
    public var service: String
    /// What it captured, labelled as in a path.
    public var dependency: String
    /// What is wrong and how to fix it.
    public var description: String
}

/// One registration, as ``Container/registrations`` lists it.
public struct RegistrationInfo {
    /// The type the registration answers to (for a forward, the forwarded type).
    public var serviceType: Any.Type
    /// The registration name, or `nil`.
    public var name: String?
    /// The scope its instances live in.
    public var objectScope: ObjectScopeProtocol
    /// The factory's argument types, as `String(describing:)` prints them.
    public var argumentTypes: [String]
    /// Which container holds it: 0 for the container asked, 1 for its parent, and so on.
    public var containerLevel: Int
    /// Whether the registration forwards to another's factory (`implements`, `forward`).
    public var isForwarded: Bool
    /// How many times the registration (with its forwards) was resolved.
    public var resolutionCount: Int
    /// How many instances its factory made.
    public var instanceCount: Int
}
