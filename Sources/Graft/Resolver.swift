// Graft — MIT License.

/// The read side of a container: every way to ask for a service.
///
/// ``Container`` and the view ``Container/synchronize()`` returns conform; factories receive one.
/// Each call returns `nil` when nothing is registered for the type, name and argument types asked
/// for (and reports why through ``Container/loggingFunction``).
///
/// A conformer implements `resolve(_:)`, `resolve(_:name:)`, and either the pack-based
/// ``resolve(_:name:arguments:)`` or the fixed-arity forms of ``FixedArityResolver``, as a type
/// written for Swinject does.
///
/// `Resolver` is not `Sendable`: a global or a `static let` typed `Resolver` does not compile in
/// the Swift 6 language mode. Keep the view at its own type, which is `Sendable` and still a
/// `Container` (so code that registers keeps compiling):
///
/// ```swift
/// enum AppDependencies {
///     static let shared = Container().synchronize()   // SynchronizedResolver: register and resolve
/// }
/// ```
public protocol Resolver: FixedArityResolver {
    /// Resolves the unnamed registration of `serviceType` that takes no arguments.
    ///
    /// ```swift
    /// let db = container.resolve(Database.self)!
    /// ```
    func resolve<Service>(_ serviceType: Service.Type) -> Service?

    /// Resolves the registration of `serviceType` under `name` that takes no arguments.
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service?

    /// Resolves the registration of `serviceType` under `name` whose factory takes exactly the
    /// types of `arguments`, passing them to it.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve.
    ///   - name: A registration name, or `nil`.
    ///   - arguments: The values to pass to the factory after the resolver.
    /// - Returns: The instance, or `nil` when nothing is registered with these argument types.
    func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service?
}

// Swinject's labels (`argument:`, `arguments:`, with and without `name:`) need an overload each, so the
// declarations repeat; every one forwards to the pack-based requirement.
extension Resolver {
    /// Resolves the unnamed registration whose factory takes one argument of `argument`'s type.
    ///
    /// ```swift
    /// let pet: Animal = Dog()
    /// let owner = container.resolve(PetOwner.self, argument: pet)  // finds `{ (r, pet: Animal) in … }`
    /// ```
    ///
    /// The parameter is a pack so that an existential argument keeps its static type: a plain
    /// generic parameter would be handed `Dog` (SE-0352) and miss a factory taking `Animal`.
    /// (Transparent, like the other forwarding overloads: no frame of its own, even in a debug build.)
    @_transparent
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        argument: repeat each Argument
    ) -> Service? {
        resolve(serviceType, name: nil, arguments: repeat each argument)
    }

    /// Resolves the registration under `name` whose factory takes one argument of `argument`'s type.
    @_transparent
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        argument: repeat each Argument
    ) -> Service? {
        resolve(serviceType, name: name, arguments: repeat each argument)
    }

    /// Resolves the unnamed registration whose factory takes exactly the types of `arguments`.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, arguments: "Mew", true)
    /// ```
    @_transparent
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) -> Service? {
        resolve(serviceType, name: nil, arguments: repeat each arguments)
    }
}
