// Graft — MIT License.

extension Container {
    /// Registers `serviceType` to be made by `initializer`, each of whose parameters is resolved
    /// from the container by its type.
    ///
    /// ```swift
    /// container.autoregister(Database.self, initializer: Database.init)
    /// container.autoregister(UserService.self, initializer: UserService.init(database:logger:))
    /// ```
    ///
    /// The initializer may take any number of parameters. A parameter of an `Optional` type, or
    /// implicitly unwrapped (`Logger!`), is `nil` when its wrapped type cannot be resolved: nothing
    /// is registered for it, or it is registered and fails (logged as `resolve` logs it, and
    /// dropped with what its resolution made); the service is made without it. Any other parameter
    /// must resolve: when one cannot, the registration fails as a throwing factory does, so `resolve`
    /// returns `nil` (and logs why), ``Resolver/require(_:name:)`` throws the
    /// ``ResolutionError`` of that parameter with its path (`UserService -> Logger`), and
    /// ``validate()`` lists it. An error the initializer throws fails the resolution in the same way.
    ///
    /// Name a particular initializer when the type has several with the same number of
    /// parameters (`UserService.init(database:logger:)`), or convert it (`Cat.init as () -> Cat`).
    /// Of two such initializers, one that throws and one that does not (a `Decodable` type's
    /// `init(from:)` beside its own), `Type.init` names the one that does not throw.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type.
    ///   - initializer: Makes the service from its dependencies, usually the type's `init`.
    /// - Returns: The registration, to chain ``ServiceEntry/inObjectScope(_:)-(ObjectScope)``,
    ///   ``ServiceEntry/initCompleted(_:)`` and ``ServiceEntry/implements(_:name:)``.
    @inlinable  // specialized in the caller, as `register` is: each dependency's `require` too
    @discardableResult
    public func autoregister<Service, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        initializer: @escaping (repeat each Dependency) throws -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name) { (resolver: Resolver) throws -> Service in
            try initializer(repeat autoregisteredParameter((each Dependency).self, from: resolver))
        }
    }

    /// Registers `serviceType` to be made by `initializer` from one argument given to `resolve`
    /// and dependencies resolved from the container.
    ///
    /// ```swift
    /// container.autoregister(PetOwner.self, argument: String.self, initializer: PetOwner.init(name:pet:))
    /// let owner = container.resolve(PetOwner.self, argument: "Michael")
    /// ```
    ///
    /// The argument goes to the initializer's parameter declared with exactly its type, wherever
    /// that parameter is; the other parameters, even one the argument's value could be cast to, are
    /// resolved as ``autoregister(_:name:initializer:)-6wkb8`` resolves them.
    /// See ``autoregister(_:name:arguments:_:initializer:)-71phe`` for how an argument finds its parameter.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - argumentType: The type of the argument `resolve` passes.
    ///   - initializer: Makes the service from the argument and its dependencies.
    /// - Returns: The registration, to chain settings on.
    @inlinable
    @discardableResult
    public func autoregister<Service, Argument, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument argumentType: Argument.Type,
        initializer: @escaping (repeat each Dependency) throws -> Service
    ) -> ServiceEntry<Service> {
        autoregister(serviceType, name: name, arguments: argumentType, initializer: initializer)
    }

    /// Registers `serviceType` to be made by `initializer` from arguments given to `resolve` and
    /// dependencies resolved from the container.
    ///
    /// ```swift
    /// container.autoregister(PetOwner.self, arguments: Animal.self, String.self, initializer: PetOwner.init(name:pet:))
    /// let owner = container.resolve(PetOwner.self, arguments: pet as Animal, "Michael")
    /// ```
    ///
    /// Arguments are matched to the initializer's parameters by type, not by position, so they
    /// may be listed in any order; `resolve` passes them in the order listed here, which is part
    /// of the registration's identity, as for a factory that takes arguments.
    ///
    /// A parameter takes the argument listed with exactly its declared type; every other parameter
    /// is resolved from the container, even one that an argument's value could be cast to: a `Dog`
    /// argument does not reach an `Animal` parameter, a `String` does not reach a `String?`, and a
    /// `nil` `Int?` does not reach a `Logger?`. To pass an argument to such a parameter, list it
    /// with the parameter's type (`arguments: Animal.self`) and pass it as that type
    /// (`dog as Animal`). One argument may go to several parameters of its type. Two arguments of
    /// the same type could not be told apart: registering them stops the program with a message.
    ///
    /// ``validate()`` lists such a registration as skipped: it cannot make up the arguments.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - firstType: The type of the first argument `resolve` passes.
    ///   - moreTypes: The types of the arguments after it, each different from the others.
    ///   - initializer: Makes the service from the arguments and its dependencies.
    /// - Returns: The registration, to chain settings on.
    @inlinable
    @discardableResult
    public func autoregister<Service, First, each More, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments firstType: First.Type,
        _ moreTypes: repeat (each More).Type,
        initializer: @escaping (repeat each Dependency) throws -> Service
    ) -> ServiceEntry<Service> {
        var argumentTypes: [Any.Type] = [First.self]
        repeat argumentTypes.append((each More).self)
        checkAutoregisteredArguments(argumentTypes, of: Service.self)
        let sources = (repeat AutoregisteredDependency<each Dependency>(argumentTypes: argumentTypes))
        return register(serviceType, name: name) {
            (resolver: Resolver, first: First, more: repeat each More) throws -> Service in
            // Boxed once per resolution: each parameter then takes its argument by position.
            var arguments: [Any] = [first]
            repeat arguments.append(each more)
            return try initializer(repeat (each sources).value(from: resolver, arguments: arguments))
        }
    }

    /// Stops on two arguments of one type: neither parameter of that type could be told which.
    @usableFromInline
    final func checkAutoregisteredArguments(_ argumentTypes: [Any.Type], of serviceType: Any.Type) {
        var seen = Set<ObjectIdentifier>()
        for type in argumentTypes where !seen.insert(ObjectIdentifier(type)).inserted {
            stop(
                "Graft: autoregister(\(serviceType).self, arguments: "
                    + argumentTypes.map { "\($0).self" }.joined(separator: ", ")
                    + ") lists \(type) more than once; arguments reach the initializer's parameters by type, "
                    + "so each needs a type of its own. Register the service with register(_:name:factory:), "
                    + "whose factory receives the arguments by position.")
        }
    }
}

/// Where one parameter of an autoregistered initializer gets its value from, decided at
/// registration: the argument listed with exactly its type, if there is one; else the container.
///
/// The types are compared, never the values: a value cast to the parameter's type would let an
/// argument reach a parameter it was not listed for (a boxed `nil` casts to every `Optional`, a
/// `Dog` to its superclass `Animal`), and the parameter would no longer be resolved.
@usableFromInline
struct AutoregisteredDependency<Dependency> {
    /// The position of the argument of exactly this parameter's type, or -1.
    @usableFromInline let argumentIndex: Int

    @usableFromInline
    init(argumentTypes: [Any.Type]) { argumentIndex = argumentTypes.firstIndex { $0 == Dependency.self } ?? -1 }

    /// The parameter's value: its argument, else resolved.
    @inlinable
    func value(from resolver: Resolver, arguments: [Any]) throws(ResolutionError) -> Dependency {
        // Boxed from a value of this very type, the cast cannot fail.
        if argumentIndex >= 0, let exact = arguments[argumentIndex] as? Dependency { return exact }
        return try autoregisteredParameter(Dependency.self, from: resolver)
    }
}

/// A parameter of an autoregistered initializer, resolved by its type with `require`. An
/// `Optional` parameter is `nil` when its wrapped type cannot be resolved, a failure logged as
/// `resolve` logs it: the parameter handles the failure, as `~>` into an `Optional` does, and the
/// service is made. An array parameter (`[Service]`) with no registration of its own takes the
/// collection of `Service` (``Resolver/requireAll(_:)``). Any other parameter throws the failure
/// on, which fails the registration.
@inlinable
func autoregisteredParameter<Dependency>(
    _: Dependency.Type, from resolver: Resolver
) throws(ResolutionError) -> Dependency {
    do {
        return try resolver.require(Dependency.self)
    } catch {
        if let absent = absentAfterOperatorFailure(error, resolver: resolver, serviceType: Dependency.self) {
            return absent
        }
        if let collection = try autoregisteredCollection(Dependency.self, after: error, from: resolver) {
            return collection
        }
        throw error
    }
}

// The forms above again, for an initializer that does not throw. A type often has an initializer
// that throws beside one that does not, with as many parameters (a `Decodable` type's
// `init(from:)` beside its `init(store:)`): with the forms above alone, `Type.init` could name
// either, and the call is ambiguous. A form that takes only initializers that do not throw is the
// more specific, so Swift picks it, and the initializer that does not throw, as
// SwinjectAutoregistration does.
extension Container {
    /// Registers `serviceType` to be made by `initializer`, which does not throw, each of whose
    /// parameters is resolved from the container by its type.
    ///
    /// Chosen over the form whose initializer throws when `Type.init` names two initializers with
    /// as many parameters, one of which throws (a `Decodable` type's `init(from:)`): the one that
    /// does not throw is registered. Otherwise the same as that form.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type.
    ///   - initializer: Makes the service from its dependencies, usually the type's `init`.
    /// - Returns: The registration, to chain settings on.
    @inlinable
    @discardableResult
    public func autoregister<Service, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        initializer: @escaping (repeat each Dependency) -> Service
    ) -> ServiceEntry<Service> {
        autoregister(serviceType, name: name, initializer: initializer as (repeat each Dependency) throws -> Service)
    }

    /// Registers `serviceType` to be made by `initializer`, which does not throw, from one
    /// argument given to `resolve` and dependencies resolved from the container.
    ///
    /// Chosen over the form whose initializer throws, as the form without arguments is.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - argumentType: The type of the argument `resolve` passes.
    ///   - initializer: Makes the service from the argument and its dependencies.
    /// - Returns: The registration, to chain settings on.
    @inlinable
    @discardableResult
    public func autoregister<Service, Argument, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument argumentType: Argument.Type,
        initializer: @escaping (repeat each Dependency) -> Service
    ) -> ServiceEntry<Service> {
        autoregister(serviceType, name: name, arguments: argumentType, initializer: initializer)
    }

    /// Registers `serviceType` to be made by `initializer`, which does not throw, from arguments
    /// given to `resolve` and dependencies resolved from the container.
    ///
    /// Chosen over the form whose initializer throws, as the form without arguments is.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: A name telling apart registrations of the same type and argument types.
    ///   - firstType: The type of the first argument `resolve` passes.
    ///   - moreTypes: The types of the arguments after it, each different from the others.
    ///   - initializer: Makes the service from the arguments and its dependencies.
    /// - Returns: The registration, to chain settings on.
    @inlinable
    @discardableResult
    public func autoregister<Service, First, each More, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments firstType: First.Type,
        _ moreTypes: repeat (each More).Type,
        initializer: @escaping (repeat each Dependency) -> Service
    ) -> ServiceEntry<Service> {
        autoregister(
            serviceType, name: name, arguments: firstType, repeat each moreTypes,
            initializer: initializer as (repeat each Dependency) throws -> Service)
    }
}
