// Graft — MIT License.

/// The settings of a registration that few registrations use, kept out of ``ServiceEntry`` so
/// that a plain registration is one small object: argument and throwing factories, the argument
/// types, a custom scope's storage, `initCompleted` actions and the `.weak` instance.
@usableFromInline
final class EntryExtras<Service> {
    let argumentsType: Any.Type
    @usableFromInline let argumentsKey: UInt
    let argumentTypeNames: () -> [String]
    let argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?
    let throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)?
    /// The settings that change while the registration is used (not generic: its field
    /// accesses need no metadata).
    typealias State = EntryExtrasState
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        var state = State()
    #else
        @exclusivity(unchecked) var state = State()
    #endif
    /// Set on an async registration's gate: where a scope given to the gate goes. A gate stays
    /// transient, so that it never keeps an instance past its check; whoever configures it (a
    /// behavior is handed one for an async registration) configures the registration behind it.
    var scopeGoesTo: ((ObjectScopeProtocol) -> Void)?
    /// Set on an async registration's gate: the scope of the registration behind it, which the gate reports as its own.
    var scopeReadFrom: (() -> ObjectScopeProtocol)?
    /// Set on an async registration's gate: where an `initCompleted` action given to the gate
    /// goes (the log, which says it is not run).
    var initCompletedGoesTo: ((@escaping (Resolver, Service) -> Void) -> Void)?

    @usableFromInline
    init(
        argumentsType: Any.Type,
        argumentsKey: UInt,
        argumentTypeNames: @escaping () -> [String],
        argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?,
        throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)?
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
struct EntryExtrasState {
    var storage: InstanceStorage?
    var initCompletedActions: [(Resolver, UnsafeRawPointer) -> Void] = []
    weak var weakInstance: AnyObject?
}

/// An entry whose settings may have to change under the hierarchy's mutex (see
/// ``Container/onContainer(registering:_:)``).
protocol SettingsUnderTheMutex: AnyObject {
    var settingsTakeTheMutex: Bool { get set }
}

extension ServiceEntry: SettingsUnderTheMutex {}
