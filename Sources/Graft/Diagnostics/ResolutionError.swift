// Graft — MIT License.

/// Why a resolution failed, and where: what ``Resolver/require(_:name:)`` throws.
///
/// ```swift
/// do {
///     let service = try container.require(UserService.self)
/// } catch {
///     print(error.path)         // ["UserService", "UserRepository", "Database"]
///     print(error)              // what is missing, what is registered nearby, the path
/// }
/// ```
public struct ResolutionError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Reason: Sendable {
        /// Nothing is registered for the type, name and argument types asked for.
        case notRegistered
        /// A factory needs, through its dependencies, the service it is making.
        case circularDependency
        /// A factory threw this error.
        case factoryFailed(any Error)
        /// Factories nested deeper than 200 levels (a runaway recursion).
        case tooDeep
        /// A service registered with `registerMain` was resolved off the main actor, where its
        /// factory may not run: resolve it with ``Resolver/resolveMain(_:name:)`` (or
        /// `@MainInjected`) on the main actor.
        case notOnMainActor
        /// The instance made is not of the type asked for (a type it is forwarded to with
        /// `implements` or `forward`).
        case wrongType

        /// Whether a failure of this kind belongs to the whole request rather than to one dependency:
        /// a cycle or the depth limit is a mistake in the wiring, so no factory may handle it (with an
        /// `Optional`, `??`, `try?`) and go on with a half-made object. The request the application
        /// started fails, and keeps nothing it made. A dependency's own failure (its factory threw, it
        /// is not registered, it is of the wrong type, it is refused off the main actor) may be
        /// handled by the factory that asked.
        var failsTheWholeRequest: Bool {
            switch self {
            case .circularDependency, .tooDeep: true
            case .notRegistered, .factoryFailed, .notOnMainActor, .wrongType: false
            }
        }
    }

    /// The kind of failure.
    public var reason: Reason
    /// The services being resolved, from the outermost request to the one that failed, as
    /// `String(describing:)` prints their types, each followed by ` (name: "x")` when named:
    /// `["UserService", "UserRepository", "Database"]`.
    public var path: [String]
    /// One message a person can act on: what failed, what exists nearby, and the path.
    public var description: String
    /// ``description`` without the path.
    let message: String
    /// Whether this failure was logged already (as the failure of a request, it is logged once).
    var isLogged = false

    /// Makes an error; `message` is the first part of ``description``, followed by the path (or
    /// by `shownPath`, a shorter account of a long one).
    init(_ reason: Reason, path: [String], message: String, shownPath: String? = nil) {
        self.reason = reason
        self.path = path
        self.message = message
        let shown = shownPath ?? (path.count > 1 ? path.joined(separator: " -> ") : nil)
        self.description = shown.map { message + "\nPath: " + $0 } ?? message
    }

    /// ``description`` without its leading `Graft: `, to follow a message's own.
    var descriptionWithoutPrefix: String {
        description.hasPrefix("Graft: ") ? String(description.dropFirst("Graft: ".count)) : description
    }

    /// This error as the request that needed the failed one sees it: `label` first on the path.
    func prefixed(by label: String) -> ResolutionError {
        ResolutionError(reason, path: [label] + path, message: message)
    }
}

extension ResolutionError.Reason: CustomStringConvertible {
    /// The reason in a few words: `not registered`, `factory failed: <error>`, ...
    public var description: String {
        switch self {
        case .notRegistered: "not registered"
        case .circularDependency: "circular dependency"
        case .factoryFailed(let error): "factory failed: \(error)"
        case .tooDeep: "too deep"
        case .notOnMainActor: "not on the main actor"
        case .wrongType: "wrong type"
        }
    }
}

/// `Type` or `Type (name: "x")`: how paths and graphs name a service.
func serviceLabel(_ type: Any.Type, name: String?) -> String { name.map { "\(type) (name: \"\($0)\")" } ?? "\(type)" }
