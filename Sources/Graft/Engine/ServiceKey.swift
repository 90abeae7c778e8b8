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
    /// The factory's argument types (see ``argumentsKey(_:)``).
    @usableFromInline let arguments: UInt
    @usableFromInline let name: String?

    @inlinable
    init(service: Any.Type, arguments: UInt, name: String?) {
        self.serviceType = service
        self.arguments = arguments
        self.name = name
    }

    @inlinable
    var service: ObjectIdentifier { ObjectIdentifier(serviceType) }

    /// `Service: …, Name: …, Factory: …` for a registration of this key, as failure messages and
    /// `Container.description` name one; `service` is the type its `register` call was given.
    func registrationDescription(of service: Any.Type, argumentTypeNames arguments: [String]) -> String {
        let parameters = arguments.isEmpty ? "Resolver" : "(Resolver, \(arguments.joined(separator: ", ")))"
        return "Service: \(service)" + (name.map { ", Name: \"\($0)\"" } ?? "")
            + ", Factory: \(parameters) -> \(serviceType)"
    }
}

/// The key component of the argument types `Argument...`: the address of their tuple type's
/// metadata, with the lowest bit set for exactly one argument (metadata addresses are aligned, so
/// that bit is free). The bit tells a single `Void` argument from none (both tuples are `Void`),
/// and a single `(Int, String)` argument from an `Int` and a `String` (both tuples are
/// `(Int, String)`); for any other count the tuple type alone tells the arity. A generic type over
/// the pack would say the same, but its metadata is looked up at run time on every call.
@inlinable @inline(__always)
func argumentsKey<each Argument>(_: repeat (each Argument).Type) -> UInt {
    var count = 0
    for _ in repeat (each Argument).self { count += 1 }
    let tuple = UInt(bitPattern: ObjectIdentifier((repeat each Argument).self))
    return count == 1 ? tuple | 1 : tuple
}

/// The key component of a factory without arguments.
@inlinable @inline(__always)
var noArgumentsKey: UInt { UInt(bitPattern: ObjectIdentifier(Void.self)) }

/// Where a factory reads an argument tuple of zero size from when the caller's tuple has no
/// address (nothing is read from it; it is only never null).
@inlinable @inline(__always)
var zeroSizedArguments: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 16).unsafelyUnwrapped }
