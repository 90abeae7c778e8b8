// Graft — MIT License.

/// The `resolve` forms Swinject's `Resolver` lists one by one: one argument, and 2 to 9 arguments,
/// each with and without a name. ``Resolver`` inherits them, so a type written to conform to
/// Swinject's `Resolver` compiles unchanged.
///
/// A conformer implements either these or ``Resolver/resolve(_:name:arguments:)`` (one method for
/// any number of arguments); each side's default implementation forwards to the other. Calls pick
/// Graft's parameter-pack forms (these requirements are disfavored), which keep an existential
/// argument's static type; through the pack requirement's default implementation they reach a
/// conformer's own fixed-arity method, with each argument's static type.
///
/// ```swift
/// final class Forwarding: Resolver {     // written for Swinject: no pack-based method
///     let base: Container
///     func resolve<S>(_ t: S.Type) -> S? { base.resolve(t) }
///     func resolve<S>(_ t: S.Type, name: String?) -> S? { base.resolve(t, name: name) }
///     func resolve<S, A1, A2>(_ t: S.Type, arguments a1: A1, _ a2: A2) -> S? { base.resolve(t, arguments: a1, a2) }
///     // …
/// }
/// let resolver: any Resolver = Forwarding(base: container)
/// resolver.resolve(Cat.self, arguments: "Mimi", 3)   // reaches Forwarding's two-argument method
/// ```
public protocol FixedArityResolver {
    /// Resolves the registration of `serviceType` whose factory takes 1 argument of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1>(_ serviceType: Service.Type, argument: Arg1) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 1 argument of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1>(_ serviceType: Service.Type, name: String?, argument: Arg1) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 2 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 2 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 3 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 3 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 4 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 4 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 5 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 5 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 6 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 6 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 7 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 7 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 8 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 8 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service?
    /// Resolves the registration of `serviceType` whose factory takes 9 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service?
    /// Resolves the registration of `serviceType` under `name` whose factory takes 9 arguments of these types (Swinject's form).
    @_disfavoredOverload
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service?
}

// Each fixed-arity form, for a conformer that implements the pack-based method: a thin forward to it.
extension Resolver {
    /// Resolves with 1 argument through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1>(_ serviceType: Service.Type, argument: Arg1) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:argument:)")
        return resolve(serviceType, name: nil, arguments: argument)
    }

    /// Resolves with 1 argument under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1>(_ serviceType: Service.Type, name: String?, argument: Arg1) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:argument:)")
        return resolve(serviceType, name: name, arguments: argument)
    }

    /// Resolves with 2 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2)
    }

    /// Resolves with 2 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2)
    }

    /// Resolves with 3 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3)
    }

    /// Resolves with 3 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3)
    }

    /// Resolves with 4 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4)
    }

    /// Resolves with 4 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4)
    }

    /// Resolves with 5 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4, arg5)
    }

    /// Resolves with 5 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5)
    }

    /// Resolves with 6 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4, arg5, arg6)
    }

    /// Resolves with 6 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6)
    }

    /// Resolves with 7 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }

    /// Resolves with 7 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }

    /// Resolves with 8 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:_:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }

    /// Resolves with 8 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:_:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }

    /// Resolves with 9 arguments through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:arguments:_:_:_:_:_:_:_:_:)")
        return resolve(serviceType, name: nil, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }

    /// Resolves with 9 arguments under `name` through ``Resolver/resolve(_:name:arguments:)``: the form for a conformer that implements the pack-based method.
    @_disfavoredOverload
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service? {
        FixedArityDispatch.stopIfLooping(Self.self, "resolve(_:name:arguments:_:_:_:_:_:_:_:_:)")
        return resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }
}

extension Resolver {
    /// The pack-based requirement, for a conformer that implements Swinject's fixed-arity forms
    /// instead: calls the form for this many arguments (the unnamed one when `name` is `nil`), each
    /// argument keeping its static type. More than 9 arguments stop with a message.
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        var values: [any PassedArgument] = []
        repeat values.append(PassedValue(value: each arguments))
        guard let first = values.first else {
            let withoutArguments: (Service.Type, String?) -> Service? = resolve(_:name:)
            return withoutArguments(serviceType, name)
        }
        // A Swinject-shaped conformer cannot take more: a programming error, like implementing
        // neither side (and no log line, which could reach the logging function under a lock).
        stopUnless(
            values.count <= 9,
            "Graft: \(Self.self) implements the fixed-arity resolve methods, which take at most 9 arguments; "
                + "\(values.count) were passed for \(Service.self). Implement resolve(_:name:arguments:) to take any number"
        )
        return FixedArityDispatch.$dispatching.withValue(FixedArityDispatch.dispatching + [ObjectIdentifier(Self.self)])
        {
            first.pass(to: NoArgumentsYet<Self, Service>(resolver: self, name: name), rest: values.dropFirst())
        }
    }
}

/// Detects a conformer that implements neither side: its pack-based default calls a fixed-arity
/// default, which would call the pack-based default again, forever.
enum FixedArityDispatch {
    /// The conformer types whose pack-based default is running on this task or thread.
    @TaskLocal static var dispatching: [ObjectIdentifier] = []

    static func stopIfLooping(_ resolverType: Any.Type, _ method: String) {
        guard !dispatching.isEmpty, dispatching.contains(ObjectIdentifier(resolverType)) else { return }
        stop(
            "Graft: \(resolverType) conforms to Resolver but implements neither resolve(_:name:arguments:) "
                + "(any number of arguments, as a parameter pack) nor \(method); implement one of them")
    }
}

// Turning a pack into a call of the method for its arity, one argument at a time: each step knows
// the static types of the arguments before it, and the next argument's box supplies its own.

protocol PassedArgument {
    func pass<Step: ArgumentStep>(to step: Step, rest: ArraySlice<any PassedArgument>) -> Step.Service?
}

struct PassedValue<Value>: PassedArgument {
    let value: Value

    func pass<Step: ArgumentStep>(to step: Step, rest: ArraySlice<any PassedArgument>) -> Step.Service? {
        step.adding(value, rest: rest)
    }
}

protocol ArgumentStep {
    associatedtype Service
    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service?
}

extension ArgumentStep {
    /// Passes the remaining arguments to `step`, or calls it once there are none.
    fileprivate func continuing<Step: ArgumentStep>(
        with step: Step,
        rest: ArraySlice<any PassedArgument>,
        call: (Step) -> Service?
    ) -> Service? where Step.Service == Service {
        guard let next = rest.first else { return call(step) }
        return next.pass(to: step, rest: rest.dropFirst())
    }
}

// `R` is known only as a `FixedArityResolver` here, so each call below can only be the requirement
// (Graft's pack-based forms, declared on `Resolver`, are not candidates): the conformer's own method.

struct NoArgumentsYet<R: FixedArityResolver, Service>: ArgumentStep {
    let resolver: R
    let name: String?

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        continuing(with: OneArgument<R, Service, Next>(resolver: resolver, name: name, a1: next), rest: rest) {
            $0.call()
        }
    }
}

struct OneArgument<R: FixedArityResolver, Service, A1>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, argument: a1) }
        return resolver.resolve(Service.self, argument: a1)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = TwoArguments<R, Service, A1, Next>(resolver: resolver, name: name, a1: a1, a2: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct TwoArguments<R: FixedArityResolver, Service, A1, A2>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2) }
        return resolver.resolve(Service.self, arguments: a1, a2)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = ThreeArguments<R, Service, A1, A2, Next>(resolver: resolver, name: name, a1: a1, a2: a2, a3: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct ThreeArguments<R: FixedArityResolver, Service, A1, A2, A3>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = FourArguments<R, Service, A1, A2, A3, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct FourArguments<R: FixedArityResolver, Service, A1, A2, A3, A4>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = FiveArguments<R, Service, A1, A2, A3, A4, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: a4, a5: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct FiveArguments<R: FixedArityResolver, Service, A1, A2, A3, A4, A5>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4
    let a5: A5

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4, a5) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4, a5)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = SixArguments<R, Service, A1, A2, A3, A4, A5, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct SixArguments<R: FixedArityResolver, Service, A1, A2, A3, A4, A5, A6>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4
    let a5: A5
    let a6: A6

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4, a5, a6) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4, a5, a6)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = SevenArguments<R, Service, A1, A2, A3, A4, A5, A6, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: a6, a7: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct SevenArguments<R: FixedArityResolver, Service, A1, A2, A3, A4, A5, A6, A7>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4
    let a5: A5
    let a6: A6
    let a7: A7

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4, a5, a6, a7) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4, a5, a6, a7)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = EightArguments<R, Service, A1, A2, A3, A4, A5, A6, A7, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: a6, a7: a7, a8: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct EightArguments<R: FixedArityResolver, Service, A1, A2, A3, A4, A5, A6, A7, A8>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4
    let a5: A5
    let a6: A6
    let a7: A7
    let a8: A8

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4, a5, a6, a7, a8) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4, a5, a6, a7, a8)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        let step = NineArguments<R, Service, A1, A2, A3, A4, A5, A6, A7, A8, Next>(
            resolver: resolver, name: name, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: a6, a7: a7, a8: a8, a9: next)
        return continuing(with: step, rest: rest) { $0.call() }
    }
}

struct NineArguments<R: FixedArityResolver, Service, A1, A2, A3, A4, A5, A6, A7, A8, A9>: ArgumentStep {
    let resolver: R
    let name: String?
    let a1: A1
    let a2: A2
    let a3: A3
    let a4: A4
    let a5: A5
    let a6: A6
    let a7: A7
    let a8: A8
    let a9: A9

    func call() -> Service? {
        if let name { return resolver.resolve(Service.self, name: name, arguments: a1, a2, a3, a4, a5, a6, a7, a8, a9) }
        return resolver.resolve(Service.self, arguments: a1, a2, a3, a4, a5, a6, a7, a8, a9)
    }

    func adding<Next>(_ next: Next, rest: ArraySlice<any PassedArgument>) -> Service? {
        preconditionFailure("Graft: more than 9 arguments reached the fixed-arity dispatch")
    }
}
