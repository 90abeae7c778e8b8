// Graft — MIT License.

/// A registration that takes arguments, with values that ``Container/validate(samples:)`` resolves
/// it with.
///
/// ```swift
/// ValidationSample(OrderHandler.self, argument: Order(id: 1))
/// ValidationSample(Job.self, name: "nightly", arguments: "reports", 3)
/// ```
public struct ValidationSample {
    /// The key `resolve` would look up with these values.
    let key: ServiceKey
    /// The failure reported when no registration matches the sample.
    let unmatchedFailure: ResolutionError
    /// Resolves the entry matched with the values, as a root request of the validation (entry,
    /// container, resolver): whether it succeeded.
    let validate: (AnyServiceEntry, Container, Resolver) -> Bool

    /// A sample for the registration of `serviceType` under `name` whose factory takes exactly
    /// the types of `arguments`.
    public init<Service, each Argument>(
        _ serviceType: Service.Type, name: String? = nil, arguments: repeat each Argument
    ) {
        key = ServiceKey(service: Service.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        let label = serviceLabel(Service.self, name: name)
        unmatchedFailure = ResolutionError(
            .notRegistered, path: [label],
            message: "Graft: validation sample for \(label) taking "
                + "\(argumentsPhrase(typeNames(repeat (each Argument).self))) matches no registration: register it, "
                + "or give the sample the registration's type, name and argument types.")
        let values = (repeat each arguments)
        validate = { entry, container, resolver in
            // Matched by the key's argument types, so the factory reads exactly this tuple.
            withUnsafePointer(to: values) {
                entry.validateAsRoot(in: container, resolver: resolver, arguments: UnsafeRawPointer($0))
            }
        }
    }

    /// A sample for a registration whose factory takes one argument, of `argument`'s type.
    public init<Service, each Argument>(
        _ serviceType: Service.Type, name: String? = nil, argument: repeat each Argument
    ) {
        self.init(serviceType, name: name, arguments: repeat each argument)
    }
}
