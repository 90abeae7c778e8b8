// Graft — MIT License.

/// The identity of a registration: service type, the tuple type of the factory's arguments, and name.
///
/// Built from type identities only, so making one allocates nothing when there is no name.
/// ``RegistrationTable`` hashes and compares its fields directly.
@usableFromInline
struct ServiceKey {
    @usableFromInline let service: ObjectIdentifier
    @usableFromInline let arguments: ObjectIdentifier
    @usableFromInline let name: String?

    @inlinable
    init(service: Any.Type, arguments: Any.Type, name: String?) {
        self.service = ObjectIdentifier(service)
        self.arguments = ObjectIdentifier(arguments)
        self.name = name
    }
}
