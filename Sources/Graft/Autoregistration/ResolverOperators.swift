// Graft — MIT License.

// The `~>` operators: a short way to write a dependency inside a factory whose type the
// initializer's parameter already says.
//
//     container.register(PetOwner.self) { r in PetOwner(pet: r~>, food: r ~> (Food.self, name: "dry")) }
//
// They cannot throw: a dependency that cannot be resolved stops the program with the reason and
// the path, as a force-unwrapped `resolve` would, but with a message. The standard library
// declares the infix `~>` already; the postfix one is Graft's.

/// Marks the postfix `~>`, which resolves the type its context asks for.
postfix operator ~>

/// Resolves the type the context asks for: `PetOwner(pet: r~>)` resolves the parameter's type.
///
/// ```swift
/// container.register(PetOwner.self) { r in PetOwner(pet: r~>) }
/// ```
///
/// An `Optional` type (`let pet: Animal? = r~>`) is `nil` when its wrapped type cannot be
/// resolved, as ``Resolver/resolve(_:)`` makes an `Optional`, and a failure is logged once, as
/// `resolve` logs it. In a factory that `nil` handles the failure: the factory's own resolution
/// stands, without the dependency, and only what the failed resolution made is dropped. Any
/// other type that cannot be
/// resolved stops the program with ``Resolver/require(_:name:)``'s reason and path, naming the
/// service whose factory asked: the operator cannot report a failure. Where a failure should be
/// reported instead (to `resolve`, `require` and ``Container/validate()``), write
/// `try r.require(Animal.self)` in a factory, or use ``Container/autoregister(_:name:initializer:)-6wkb8``.
///
/// - Parameter resolver: The resolver a factory receives, or a container.
/// - Returns: The resolved instance.
@inlinable
public postfix func ~> <Service>(resolver: any Resolver) -> Service {
    resolveOrStop(try resolver.require(Service.self), through: resolver, form: .postfix)
}

/// Resolves `serviceType`: `r ~> Cat.self` is `r.resolve(Cat.self)!` with Graft's message on failure.
///
/// ```swift
/// container.register(PetOwner.self) { r in PetOwner(pet: r ~> Cat.self) }
/// ```
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service>(resolver: any Resolver, serviceType: Service.Type) -> Service {
    resolveOrStop(try resolver.require(serviceType), through: resolver, form: .type)
}

/// Resolves the registration of a type under a name: `r ~> (Cat.self, name: "mimi")`.
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service>(resolver: any Resolver, service: (service: Service.Type, name: String)) -> Service {
    resolveOrStop(try resolver.require(Service.self, name: service.name), through: resolver, form: .named)
}

/// Resolves the registration whose factory takes one argument of `argument`'s type:
/// `r ~> (Cat.self, argument: "Mimi")`.
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service, Argument>(
    resolver: any Resolver,
    service: (service: Service.Type, argument: Argument)
) -> Service {
    resolveOrStop(try resolver.require(Service.self, arguments: service.argument), through: resolver, form: .argument)
}

/// Resolves the registration under a name whose factory takes one argument of `argument`'s type:
/// `r ~> (Cat.self, name: "mimi", argument: "Mimi")`.
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service, Argument>(
    resolver: any Resolver,
    service: (service: Service.Type, name: String, argument: Argument)
) -> Service {
    resolveOrStop(
        try resolver.require(Service.self, name: service.name, arguments: service.argument), through: resolver,
        form: .namedArgument)
}

/// Resolves the registration whose factory takes the arguments of the tuple, any number of them:
/// `r ~> (Cat.self, arguments: ("Mimi", 3))`.
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service, each Argument>(
    resolver: any Resolver,
    service: (service: Service.Type, arguments: (repeat each Argument))
) -> Service {
    resolveOrStop(
        try resolver.require(Service.self, arguments: repeat each service.arguments), through: resolver,
        form: .arguments)
}

/// Resolves the registration under a name whose factory takes the arguments of the tuple:
/// `r ~> (Cat.self, name: "mimi", arguments: ("Mimi", 3))`.
///
/// Failure stops the program, as for the postfix `~>`.
@inlinable
public func ~> <Service, each Argument>(
    resolver: any Resolver,
    service: (service: Service.Type, name: String, arguments: (repeat each Argument))
) -> Service {
    resolveOrStop(
        try resolver.require(Service.self, name: service.name, arguments: repeat each service.arguments),
        through: resolver, form: .namedArguments)
}

/// Resolves with two arguments listed after the name, the form SwinjectAutoregistration deprecated.
///
/// As in SwinjectAutoregistration, a call of this form does not compile: Swift can also read the
/// tuple reordered, as the three-argument form with the name among the arguments, and reports the
/// call as ambiguous. Declared so that it stays an error, rather than resolving the wrong
/// registration; pass the arguments as a tuple.
@available(
    *, deprecated,
    message: "pass the arguments as a tuple: ~> (Service.self, name: \"name\", arguments: (argument1, argument2))"
)
@inlinable
public func ~> <Service, Argument1, Argument2>(
    resolver: any Resolver,
    service: (Service.Type, name: String, arguments: Argument1, Argument2)
) -> Service {
    resolver ~> (service.0, name: service.name, arguments: (service.arguments, service.3))
}

/// Resolves with three arguments listed, the form SwinjectAutoregistration deprecated.
@available(
    *, deprecated,
    message: "pass the arguments as a tuple: ~> (Service.self, arguments: (argument1, argument2, argument3))"
)
@inlinable
public func ~> <Service, Argument1, Argument2, Argument3>(
    resolver: any Resolver,
    service: (Service.Type, arguments: Argument1, Argument2, Argument3)
) -> Service {
    resolver ~> (service.0, arguments: (service.arguments, service.2, service.3))
}

/// Resolves with three arguments listed after the name, the form SwinjectAutoregistration deprecated.
@available(
    *, deprecated,
    message:
        "pass the arguments as a tuple: ~> (Service.self, name: \"name\", arguments: (argument1, argument2, argument3))"
)
@inlinable
public func ~> <Service, Argument1, Argument2, Argument3>(
    resolver: any Resolver,
    service: (Service.Type, name: String, arguments: Argument1, Argument2, Argument3)
) -> Service {
    resolver ~> (service.0, name: service.name, arguments: (service.arguments, service.3, service.4))
}

/// Which `~>` was used, for the message of a failure.
@usableFromInline
enum OperatorForm: String {
    // The labels of a tuple form, as its call is written.
    case postfix, type
    case named = "name:"
    case argument = "argument:"
    case namedArgument = "name:, argument:"
    case arguments = "arguments:"
    case namedArguments = "name:, arguments:"

    /// The call as written, with `serviceType` in it: `r ~> (Cat.self, name:)`.
    func text(for serviceType: Any.Type) -> String {
        switch self {
        case .postfix: "r~>"
        case .type: "r ~> \(serviceType).self"
        default: "r ~> (\(serviceType).self, \(rawValue))"
        }
    }
}

/// The path of every `~>`: `require`, the call its form makes of `resolver`, and on failure a stop
/// that says why and where. (Type names are printed out of line, in code not
/// specialized: interpolated in code specialized for a private type, an optimized build prints it
/// with its file's discriminator, `(Tag in _F256…)`.)
@inlinable
func resolveOrStop<Service>(
    _ require: @autoclosure () throws(ResolutionError) -> Service, through resolver: any Resolver, form: OperatorForm
) -> Service {
    do {
        return try require()
    } catch {
        return absentOrStop(error, resolver: resolver, form: form, serviceType: Service.self)
    }
}

/// An `Optional` type whose wrapped service is registered and failed: `nil`, as `resolve` makes
/// it, with the failure logged (`require` threw it instead); `nil` (stop) for any other type.
@usableFromInline
func absentAfterOperatorFailure<Service>(
    _ error: ResolutionError, resolver: any Resolver, serviceType: Service.Type
) -> Service? {
    guard let container = resolver as? Container else { return absentValue(of: Service.self) }
    return container.hierarchy.absentAfterFailure(of: Service.self, error)
}

/// The failure of a `~>` resolution: `nil` for an `Optional` (`absentAfterOperatorFailure`), else
/// a stop naming the service whose factory asked, if any.
@usableFromInline
func absentOrStop<Service>(
    _ error: ResolutionError, resolver: any Resolver, form: OperatorForm, serviceType: Service.Type
) -> Service {
    if let absent = absentAfterOperatorFailure(error, resolver: resolver, serviceType: Service.self) { return absent }
    // The frames still running are those of the factory that used the operator (the failed
    // resolution has ended); under the mutex, as a view's frames may be another thread's otherwise.
    var building = (resolver as? Container).flatMap { container in
        container.hierarchy.withLock { container.hierarchy.resolution.path.last }
    }
    // In an async factory: the builds it runs in lead the path, as they do for the error its
    // request throws.
    var shown = error
    for node in AsyncBuildContext.current?.inlineChain ?? [] {
        building = building ?? node.label
        shown = shown.prefixed(by: node.label)
    }
    stop(
        "Graft: \(form.text(for: serviceType)) could not resolve \(serviceType)"
            + (building.map { " while making \($0)" } ?? "") + "; `~>` cannot report a failure, so it stops.\n"
            + shown.description
            + "\nRegister what is missing; or, to have the failure returned by resolve, thrown by require and "
            + "listed by validate(), resolve it with `try r.require(\(serviceType).self)` in a factory that "
            + "throws, or autoregister the service.")
}
