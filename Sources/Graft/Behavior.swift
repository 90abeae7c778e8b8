// Graft — MIT License.

/// Told about each registration made in a container after the behavior is added to it, for
/// example to register the same factory under more types or to record what was registered.
public protocol Behavior {
    /// Called once per registration.
    ///
    /// - Parameters:
    ///   - container: The container the registration was made in.
    ///   - type: The type registered.
    ///   - entry: The registration, which the behavior may configure further.
    ///   - name: The registration name, or `nil`.
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    )
}
