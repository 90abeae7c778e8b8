// Graft — MIT License.

/// Where an ``ObjectScope`` keeps the instance of one registration.
///
/// The built-in scopes have fast storage of their own inside the container; these types are the
/// building blocks for custom scopes made with ``ObjectScope/init(storageFactory:description:parent:)``.
public protocol InstanceStorage: AnyObject {
    /// The stored instance, if any. Setting `nil` releases it (``Container/resetObjectScope(_:)-(ObjectScope)`` does).
    var instance: Any? { get set }
    /// Called when the top-level resolution that used this storage has finished.
    func graphResolutionCompleted()
    /// The instance stored for `graph`, if any.
    func instance(inGraph graph: GraphIdentifier) -> Any?
    /// Stores `instance`, created while resolving `graph`.
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier)
}

extension InstanceStorage {
    public func graphResolutionCompleted() {}
    public func instance(inGraph graph: GraphIdentifier) -> Any? { instance }
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) { self.instance = instance }
}

/// Keeps an instance for as long as the storage lives: the storage of ``ObjectScope/container``.
public final class PermanentStorage: InstanceStorage {
    private var held: Any?

    /// The instance kept. Setting it releases the one it replaces after the store, so that
    /// instance's `deinit` may resolve the same service again (and read this storage).
    public var instance: Any? {
        get { held }
        set { withExtendedLifetime(exchange(&held, newValue)) {} }
    }

    /// Makes an empty storage.
    public init() {}
}

/// Stores `value` in `field` and returns what it replaced, for the caller to release once the
/// access to the field has ended: that release may run a `deinit` that reads the field again (a
/// resolution of the same service), which inside the store would be an overlapping access and
/// stop the program.
@inline(__always)
func exchange<Value>(_ field: inout Value, _ value: Value) -> Value {
    var replaced = value
    swap(&field, &replaced)
    return replaced
}

/// Keeps nothing: the storage of ``ObjectScope/transient``.
public final class TransientStorage: InstanceStorage {
    public var instance: Any? {
        get { nil }
        set {}  // swiftlint:disable:this unused_setter_value
    }
    /// Makes an empty storage.
    public init() {}
}

/// Keeps an instance only within the graph that created it, and nothing once that resolution ends.
///
/// A graph resolved inside another (`withObjectGraph` in a factory) ends first; its end gives the
/// enclosing graph its instance back, as Swinject's storage does.
public final class GraphStorage: InstanceStorage {
    private var graph: GraphIdentifier?
    private var held: Any?
    // Every store to `held` releases what it replaced after the store (see `exchange`).

    /// The instance of the current graph.
    public var instance: Any? {
        get { held }
        set { withExtendedLifetime(exchange(&held, newValue)) {} }
    }
    /// The instances of the graphs enclosing `graph`, innermost last; empty unless graphs nest.
    private var enclosing: [(graph: GraphIdentifier, instance: Any)] = []

    /// Makes an empty storage.
    public init() {}

    public func graphResolutionCompleted() {
        let outer = enclosing.popLast()
        graph = outer?.graph
        instance = outer?.instance
    }

    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        self.graph == graph ? instance : enclosing.last { $0.graph == graph }?.instance
    }

    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        if let current = self.graph, current != graph {
            guard instance != nil else {
                // A failed resolution takes back its instance; released once the list is consistent
                // again, since its `deinit` may call back into this storage.
                if let index = enclosing.lastIndex(where: { $0.graph == graph }) {
                    withExtendedLifetime(enclosing.remove(at: index)) {}
                }
                return
            }
            if let held = self.instance { enclosing.append((current, held)) }
        }
        self.graph = graph  // first: the release of what `instance` replaces may read both
        self.instance = instance
    }
}

/// Keeps an instance while something else holds a strong reference to it. Value types are not kept.
public final class WeakStorage: InstanceStorage {
    private weak var object: AnyObject?

    public var instance: Any? {
        get { object }
        set { object = newValue.flatMap(Self.referenceOrNil) }
    }

    /// Makes an empty storage.
    public init() {}

    /// The object `value` refers to, looking through `Optional` (a `Cat?` service holding a cat is
    /// shared like a `Cat`); `nil` for a value type: `value as AnyObject` would box a struct in a
    /// fresh object that dies at once.
    static func referenceOrNil(_ value: Any) -> AnyObject? {
        if let optional = value as? any OptionalValue { return optional.wrappedAny.flatMap(referenceOrNil) }
        return type(of: value) is AnyClass ? value as AnyObject : nil
    }
}

/// Combines storages: reads from the first that has an instance, writes to all of them.
public final class CompositeStorage: InstanceStorage {
    private let components: [InstanceStorage]

    /// Makes a storage that keeps each instance in every one of `components`, and reads the first
    /// that has one.
    public init(_ components: [InstanceStorage]) { self.components = components }

    /// The first instance `read` finds in the components. Each component is asked once: a lazy
    /// `compactMap(...).first` asks twice, and a storage whose answer changes in between (a weak
    /// one released meanwhile) would trap.
    private func firstInstance(_ read: (InstanceStorage) -> Any?) -> Any? {
        for case let instance? in components.lazy.map(read) { return instance }
        return nil
    }

    public var instance: Any? {
        get { firstInstance { $0.instance } }
        set { for component in components { component.instance = newValue } }
    }

    public func graphResolutionCompleted() { for component in components { component.graphResolutionCompleted() } }

    public func instance(inGraph graph: GraphIdentifier) -> Any? { firstInstance { $0.instance(inGraph: graph) } }

    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        for component in components { component.setInstance(instance, inGraph: graph) }
    }
}

/// Looks inside an `Optional` held as `Any`, and makes the `nil` of an `Optional` type.
protocol OptionalValue {
    var wrappedAny: Any? { get }
    /// `nil` of this type.
    static var absent: Self { get }
    /// The type it wraps.
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { map { $0 } }
    static var absent: Self { nil }
    static var wrappedType: Any.Type { Wrapped.self }
}

/// `nil` as a `Service`, when `Service` is an `Optional`; otherwise `nil` (no such value).
func absentValue<Service>(of _: Service.Type) -> Service? {
    (Service.self as? any OptionalValue.Type).flatMap { $0.absent as? Service }
}
