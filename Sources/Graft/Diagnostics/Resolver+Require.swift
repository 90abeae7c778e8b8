// Graft — MIT License.

extension Resolver {
    /// Resolves `serviceType`, or throws why it cannot be resolved and where.
    ///
    /// ```swift
    /// container.register(Repository.self) { r in try Repository(database: r.require(Database.self)) }
    /// let repository = try container.require(Repository.self)
    /// ```
    ///
    /// Inside a factory, the error's ``ResolutionError/path`` runs from the outermost request. A
    /// `ResolutionError` thrown by a nested `require` leaves the factory unchanged.
    ///
    /// `require(Service?.self)` returns `nil` when nothing is registered for `Service`; when
    /// `Service` is registered and cannot be resolved, it throws that failure, as
    /// `require(Service.self)` does.
    ///
    /// - Throws: ``ResolutionError``: not registered (with the registrations nearby), a circular
    ///   dependency, a factory that threw, resolution too deep, a main-actor service off the main
    ///   actor, or an instance of the wrong type. The error is thrown, not logged.
    @inlinable
    public func require<Service>(_ serviceType: Service.Type, name: String? = nil) throws(ResolutionError) -> Service {
        if let container = Container.exactly(self) {
            return try Container.borrowed(container) { c throws(ResolutionError) in
                try c.requireWithoutArguments(serviceType, name: name)
            }
        }
        return try requireThroughForeignResolver(serviceType, name: name)
    }

    /// `require` through a resolver other than Graft's own. Out of line: its `Optional` would
    /// otherwise make every unspecialized `require` look up `Optional<Service>`'s metadata.
    @usableFromInline @inline(never)
    func requireThroughForeignResolver<Service>(
        _ serviceType: Service.Type, name: String?
    ) throws(ResolutionError) -> Service {
        if let instance = resolve(serviceType, name: name) { return instance }
        throw foreignResolverMiss(serviceType, name: name, argumentTypeNames: [])
    }

    /// Resolves `serviceType` with `arguments`, or throws why it cannot be resolved and where.
    ///
    /// ```swift
    /// let cat = try container.require(Animal.self, arguments: "Mimi", 3)
    /// ```
    @inlinable
    public func require<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments: repeat each Argument
    ) throws(ResolutionError) -> Service {
        if let container = Container.exactly(self) {
            return try Container.borrowed(container) { c throws(ResolutionError) in
                try c.requireService(serviceType, name: name, arguments: repeat each arguments)
            }
        }
        if let instance = resolve(serviceType, name: name, arguments: repeat each arguments) { return instance }
        throw foreignResolverMiss(serviceType, name: name, argumentTypeNames: typeNames(repeat (each Argument).self))
    }

    // Swinject's `argument:` label needs an overload of its own: the declaration above again, forwarding to it.
    /// Resolves `serviceType` with one argument, or throws why it cannot be resolved and where.
    @inlinable
    public func require<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument: repeat each Argument
    ) throws(ResolutionError) -> Service {
        try require(serviceType, name: name, arguments: repeat each argument)
    }

    /// A resolver other than Graft's own returned `nil`: all that is known is what was asked.
    @usableFromInline
    func foreignResolverMiss(_ serviceType: Any.Type, name: String?, argumentTypeNames: [String]) -> ResolutionError {
        let label = serviceLabel(serviceType, name: name)
        return ResolutionError(
            .notRegistered, path: [label],
            message: "Graft: resolution failed: \(Self.self) returned nil for \(label) taking "
                + "\(argumentsPhrase(argumentTypeNames)).")
    }
}

extension Container {
    /// `resolver` itself, unretained, when it is a `Container` or a view (`SynchronizedResolver`),
    /// else `nil`.
    ///
    /// `Container` is not open, and `SynchronizedResolver` is its only subclass, so these two
    /// types are every resolver that is a `Container`: comparing the resolver's type with them is
    /// two compares of type metadata, where the conditional cast `resolver as? Container` from a
    /// generic resolver is a call into the runtime, many times the cost of the compares, paid by
    /// every `require` a factory makes.
    ///
    /// Invariant: the bit cast runs only when `R` is one of these two class types, so `resolver`
    /// is exactly one strong reference to a `Container` (checked in debug builds), and the caller
    /// borrows `resolver` for as long as it uses the result: the container outlives it. It goes
    /// through a raw pointer, a trivial copy, and comes out unretained: a strong reference made
    /// from it in unspecialized code (a factory's `require` through the `Resolver` it receives)
    /// is retained and released around its use, writing the shared container's reference count
    /// from every thread that resolves through it.
    @inlinable @inline(__always)
    static func exactly<R: Resolver>(_ resolver: R) -> Unmanaged<Container>? {
        // Any other resolver (an existential such as `any Container & Sendable` included) takes
        // the path of a resolver of the application's own.
        guard R.self == Container.self || R.self == SynchronizedResolver.self else { return nil }
        assert(resolver is Container, "Graft: \(R.self) taken for a Container")
        return Unmanaged.fromOpaque(unsafeBitCast(resolver, to: UnsafeRawPointer.self))
    }

    /// The container of ``exactly(_:)`` as a strong reference, for a caller that keeps it (a
    /// collection's closures) or is specialized. A bit cast: specialized, it is not retained,
    /// where the result of `takeUnretainedValue()` is.
    @inlinable @inline(__always)
    static func strongly(_ unretained: Unmanaged<Container>) -> Container {
        unsafeBitCast(unretained.toOpaque(), to: Container.self)
    }

    /// Calls `body` with the container of ``exactly(_:)``, borrowed for the call (no retain):
    /// under its invariant, the caller's resolver keeps the container alive until `body` returns.
    /// Debug builds hold it beside, and check when `body` returns or throws that something else
    /// still holds it.
    @inlinable @inline(__always)
    static func borrowed<Result>(
        _ container: Unmanaged<Container>, _ body: (Container) throws(ResolutionError) -> Result
    ) throws(ResolutionError) -> Result {
        #if DEBUG
            var held = container.takeUnretainedValue()
            defer {
                assert(
                    !isKnownUniquelyReferenced(&held), "Graft: a resolver's container was released while it resolved")
            }
            return try body(held)
        #else
            // Specialized, the strong reference costs no retain, and the untyped error below
            // would cost its conversion.
            if _isConcrete(Result.self) { return try body(strongly(container)) }
            // `_withUnsafeGuaranteedRef` rethrows untyped: the error comes back as `any Error`,
            // only ever a `ResolutionError` (`body`'s type).
            do {
                return try container._withUnsafeGuaranteedRef { c in try body(c) }
            } catch {
                throw error as! ResolutionError
            }
        #endif
    }

    @inlinable
    final func requireWithoutArguments<Service>(
        _ serviceType: Service.Type, name: String?
    ) throws(ResolutionError) -> Service {
        // Not `onContainer`: no closure frame on the recursion of a deep chain (see `resolve`).
        let locks = isView
        if locks {
            enterViewLock()
            if _slowPath(hierarchy.diagnostics.isValidating) { observeIfValidating(serviceType, name: name) }
        }
        defer { if locks { exitViewLock() } }
        let errors = errorCount
        do {
            return try resolveOrFail(serviceType, name: name)
        } catch {
            throw requireFailure(since: errors, serviceType, name: name)
        }
    }

    @inlinable
    final func requireService<Service, each Argument>(
        _ serviceType: Service.Type, name: String?, arguments: repeat each Argument
    ) throws(ResolutionError) -> Service {
        // Not `onContainer`: no closure frame on the recursion of a deep chain (see `resolve`).
        let locks = isView
        if locks { enterViewLock() }
        defer { if locks { exitViewLock() } }
        let errors = errorCount
        if let instance = resolveService(
            serviceType, name: name, resolver: self, handsFailureToCaller: true, arguments: repeat each arguments)
        {
            return instance
        }
        throw requireFailure(
            since: errors, serviceType, name: name, arguments: argumentsKey(repeat (each Argument).self),
            argumentTypeNames: typeNames(repeat (each Argument).self))
    }

    /// Failures recorded in this hierarchy so far (see ``requireFailure(since:_:name:arguments:argumentTypeNames:)``).
    @usableFromInline
    final var errorCount: Int { hierarchy.resolution.errorCount }

    /// Why a resolution that `require` started returned `nil`: the failure recorded since
    /// `errorCount` was `errors` (a failed request, a wrong type), else the failure of the request
    /// in flight (a factory resolving after its request failed), else a missing registration.
    @usableFromInline
    final func requireFailure(
        since errors: Int,
        _ serviceType: Any.Type,
        name: String?,
        arguments: UInt = noArgumentsKey,
        argumentTypeNames: [String] = []
    ) -> ResolutionError {
        let label = serviceLabel(serviceType, name: name)
        return hierarchy.failure(since: errors, resolving: label)
            ?? notRegisteredFailure(serviceType, name: name, arguments: arguments, argumentTypeNames: argumentTypeNames)
    }
}

/// The names of a request's argument types, as messages print them.
@inlinable
func typeNames<each Argument>(_: repeat (each Argument).Type) -> [String] {
    var names: [String] = []
    repeat names.append(String(describing: (each Argument).self))
    return names
}
