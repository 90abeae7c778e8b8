// Graft — MIT License.

/// The settings of a registration that few registrations use, kept out of ``ServiceEntry`` so
/// that a plain registration is one small object: argument and throwing factories, the argument
/// types, a custom scope's storage, `initCompleted` actions and the `.weak` instance.
/// Touched under the same contract as the entry's own fields (one thread at a time, or the
/// hierarchy's mutex), hence no dynamic exclusivity checks on the mutable ones.
@usableFromInline
final class EntryExtras<Service> {
    let argumentsType: Any.Type
    @usableFromInline let argumentsKey: UInt
    let argumentTypeNames: () -> [String]
    let argumentFactory: ((Resolver, UnsafeRawPointer) -> Service)?
    let throwingFactory: ((Resolver, UnsafeRawPointer) throws -> Service)?
    @exclusivity(unchecked) var storage: InstanceStorage?
    @exclusivity(unchecked) var initCompletedActions: [(Resolver, UnsafeRawPointer) -> Void] = []
    @exclusivity(unchecked) weak var weakInstance: AnyObject?
    /// Set on the entry of a main-actor registration that keeps its instances: it is reached only
    /// through a gate that checks the thread (see ``Container/mainActorGate(of:)``).
    var isMainActorIsolated = false
    /// Set on a main-actor gate: copies it, for `withOverrides`, as a gate over the copy of the
    /// entry it guards (see ``Container/markAsGate(_:of:)``).
    var copyAsGate: ((Container, inout [ObjectIdentifier: AnyServiceEntry]) -> AnyServiceEntry)?
    /// Set on a main-actor gate: the entry it guards, which keeps the instances (reset and
    /// validated through the gate's keys).
    var gatedEntry: AnyServiceEntry?
    /// Set on a gate (main-actor or async): where a scope given to the gate goes. A gate stays
    /// transient, so that it never keeps an instance past its check; whoever configures it (a
    /// behavior is handed one for an async registration) configures the registration behind it.
    var scopeGoesTo: ((ObjectScopeProtocol) -> Void)?
    /// Set on a gate: the scope of the registration behind it, which the gate reports as its own.
    var scopeReadFrom: (() -> ObjectScopeProtocol)?
    /// Set on a gate: where an `initCompleted` action given to the gate goes (a main-actor gate's
    /// guarded entry, which makes the instances; an async registration's log, which says it is not
    /// run).
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

/// An entry whose settings may have to change under the hierarchy's mutex (see
/// ``Container/registerThroughView(_:_:_:)``).
protocol SettingsUnderTheMutex: AnyObject {
    var settingsTakeTheMutex: Bool { get set }
}

extension ServiceEntry: SettingsUnderTheMutex {}
