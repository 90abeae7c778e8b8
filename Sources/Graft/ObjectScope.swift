// Graft — MIT License.

/// Something that makes the ``InstanceStorage`` for each registration in its scope.
public protocol ObjectScopeProtocol: AnyObject {
    /// Makes the storage that keeps one registration's instances in this scope.
    func makeStorage() -> InstanceStorage
}

/// How long a resolved instance is kept, and who shares it.
///
/// | scope | kept |
/// | --- | --- |
/// | ``transient`` | never: every resolution creates a new instance |
/// | ``graph`` (default) | for one top-level `resolve` call, shared by everything it creates |
/// | ``container`` | with the registration: one instance for the container and its children |
/// | ``weak`` | while something else holds it (and within one graph) |
///
/// Custom scopes compose the public storages:
///
/// ```swift
/// let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
/// container.register(Cart.self) { _ in Cart() }.inObjectScope(session)
/// container.resetObjectScope(session)  // at log-out
/// ```
public final class ObjectScope: ObjectScopeProtocol, CustomStringConvertible, @unchecked Sendable {
    // No mutable state: every field is a `let`. The factory runs when a registration is configured.
    /// How the scope appears in descriptions and messages (`graph`, `container`, ...).
    public let description: String
    private let storageFactory: () -> InstanceStorage
    private let parent: ObjectScopeProtocol?
    let kind: Kind

    /// The built-in scopes the resolution path handles without an ``InstanceStorage``.
    @usableFromInline
    enum Kind { case transient, graph, container, weak, custom }

    /// Makes a custom scope.
    ///
    /// - Parameters:
    ///   - storageFactory: Makes the storage of one registration.
    ///   - description: How the scope appears in descriptions and messages.
    ///   - parent: A scope whose storage is combined with this one's (reads try this one first).
    public convenience init(
        storageFactory: @escaping () -> InstanceStorage,
        description: String = "",
        parent: ObjectScopeProtocol? = nil
    ) {
        self.init(description, .custom, storageFactory, parent: parent)
    }

    private init(
        _ description: String, _ kind: Kind, _ storageFactory: @escaping () -> InstanceStorage,
        parent: ObjectScopeProtocol? = nil
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
        self.kind = kind
    }

    /// How an entry in `scope` keeps instances: a built-in kind, or a custom scope's new storage.
    static func storage(for scope: ObjectScopeProtocol) -> (Kind, InstanceStorage?) {
        if let builtIn = scope as? ObjectScope, builtIn.kind != .custom { return (builtIn.kind, nil) }
        return (.custom, scope.makeStorage())
    }

    /// Makes this scope's storage for one registration (with its parent scope's, if any).
    public func makeStorage() -> InstanceStorage {
        parent.map { CompositeStorage([storageFactory(), $0.makeStorage()]) } ?? storageFactory()
    }

    /// A new instance for every resolution.
    public static let transient = ObjectScope("transient", .transient, TransientStorage.init)

    /// One instance per top-level resolution (the default).
    public static let graph = ObjectScope("graph", .graph, GraphStorage.init)

    /// One instance for the registration, shared by the container and its descendants.
    public static let container = ObjectScope("container", .container, PermanentStorage.init)

    /// Shared while something else holds the instance; recreated after it is released.
    public static let weak = ObjectScope("weak", .weak, WeakStorage.init, parent: graph)
}
