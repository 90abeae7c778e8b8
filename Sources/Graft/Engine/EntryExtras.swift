// Graft — MIT License.

/// The settings of a registration that few registrations use, kept out of ``ServiceEntry`` so
/// that a plain registration is one small object: argument and throwing factories, the argument
/// types, a custom scope's storage, `initCompleted` actions, the `.weak` instance, and an async
/// registration.
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
    /// An entry of the async kind: its registration (an ``AnyAsyncEntry``), which builds and keeps
    /// the instance. An object, so that the inlinable `resolveAsync` reads it and downcasts it to
    /// the `AsyncServiceEntry` of its service type, which only it can name.
    @exclusivity(unchecked) @usableFromInline var asyncRegistration: AnyObject?

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
/// ``Container/onContainer(registering:_:)``).
protocol SettingsUnderTheMutex: AnyObject {
    var settingsTakeTheMutex: Bool { get set }
}

extension ServiceEntry: SettingsUnderTheMutex {}
