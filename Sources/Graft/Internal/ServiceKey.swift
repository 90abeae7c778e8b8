// Graft — MIT License.

/// The identity of a registration: the static service type, the argument list, and the name.
///
/// Built from type identities only, so making one allocates nothing when there is no name.
/// ``RegistrationTable`` hashes and compares its fields directly.
@usableFromInline
struct ServiceKey {
    /// The generic `Service` of `register`/`resolve`, never a runtime metatype value: a
    /// `let t: Animal.Type = Cat.self` registers and resolves `Animal`, as in Swinject.
    @usableFromInline let serviceType: Any.Type
    /// ``ArgumentList`` of the factory's argument types, or `Void` for a factory without arguments.
    @usableFromInline let arguments: ObjectIdentifier
    @usableFromInline let name: String?

    @inlinable
    init(service: Any.Type, arguments: ObjectIdentifier, name: String?) {
        self.serviceType = service
        self.arguments = arguments
        self.name = name
    }

    @inlinable
    var service: ObjectIdentifier { ObjectIdentifier(serviceType) }
}

/// The key component of a factory's argument types: one type per pack, so one `Void` argument
/// differs from none, and one `(Int, String)` argument differs from an `Int` and a `String`.
@usableFromInline
struct ArgumentList<each Argument> {}

/// The key component of the argument types `Argument...`: `Void` for none (the plain
/// `register`/`resolve` path, which never builds a pack), else ``ArgumentList``.
@inlinable @inline(__always)
func argumentsKey<each Argument>(_: repeat (each Argument).Type) -> ObjectIdentifier {
    var count = 0
    repeat count += argumentCountOne((each Argument).self)
    return count == 0 ? noArgumentsKey : ObjectIdentifier(ArgumentList<repeat each Argument>.self)
}

@inlinable @inline(__always)
var noArgumentsKey: ObjectIdentifier { ObjectIdentifier(Void.self) }

@inlinable @inline(__always)
func argumentCountOne<T>(_: T.Type) -> Int { 1 }
