// Graft — MIT License.

/// The identity of a registration: service type, the tuple type of the factory's arguments, and name.
///
/// Built from type identities only, so making and hashing one allocates nothing when there is no name.
@usableFromInline
struct ServiceKey: Hashable {
    @usableFromInline let service: ObjectIdentifier
    @usableFromInline let arguments: ObjectIdentifier
    @usableFromInline let name: String?

    @inlinable
    init(service: Any.Type, arguments: Any.Type, name: String?) {
        self.service = ObjectIdentifier(service)
        self.arguments = ObjectIdentifier(arguments)
        self.name = name
    }

    @usableFromInline
    static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        lhs.service == rhs.service && lhs.arguments == rhs.arguments && lhs.name == rhs.name
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(arguments)
        if let name { hasher.combine(name) }
    }
}
