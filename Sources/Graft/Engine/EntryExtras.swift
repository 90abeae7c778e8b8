// Graft — MIT License.

/// The settings of a registration that few registrations use, kept out of ``ServiceEntry`` so
/// that a plain registration is one small object: argument and throwing factories, the argument
/// types, a custom scope and its storage, `initCompleted` actions, the `.weak` instance, and an async
/// registration.
@usableFromInline
final class EntryExtras<Service> {
    let argumentsType: Any.Type
    @usableFromInline let argumentsKey: UInt
    let argumentTypeNames: () -> [String]
    let argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?
    let throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)?
    /// The settings that change while the registration is used (not generic: its field
    /// accesses need no metadata). Read by the inlinable `resolveAsync` (its async registration).
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        @usableFromInline var state = EntryExtrasState()
    #else
        @exclusivity(unchecked) @usableFromInline var state = EntryExtrasState()
    #endif

    @usableFromInline
    init(
        argumentsType: Any.Type = (any Resolver).self,
        argumentsKey: UInt = noArgumentsKey,
        argumentTypeNames: @escaping () -> [String] = { [] },
        argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)? = nil,
        throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)? = nil
    ) {
        self.argumentsType = argumentsType
        self.argumentsKey = argumentsKey
        self.argumentTypeNames = argumentTypeNames
        self.argumentFactory = argumentFactory
        self.throwingFactory = throwingFactory
    }
}

/// The settings of ``EntryExtras`` that change while the registration is used. Touched under the
/// same contract as the entry's own fields (one thread at a time, or the hierarchy's mutex), hence
/// no dynamic exclusivity checks in release builds; debug builds keep them.
@usableFromInline
struct EntryExtrasState {
    /// The entry's scope, when it is a custom one (``ServiceEntry/scope``).
    var customScope: ObjectScopeProtocol?
    var storage: InstanceStorage?
    var initCompletedActions: [(Resolver, UnsafeRawPointer) -> Void] = []
    weak var weakInstance: AnyObject?
    /// An entry of the async kind: its registration (an ``AnyAsyncEntry``), which builds and keeps
    /// the instance. An object, so that the inlinable `resolveAsync` reads it and downcasts it to
    /// the `AsyncServiceEntry` of its service type, which only it can name.
    @usableFromInline var asyncRegistration: AnyObject?
}
