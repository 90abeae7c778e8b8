// Graft — MIT License.

/// A type the container makes itself around a registered service: `Optional`, `Lazy`, `Provider`.
protocol ResolutionWrapper {
    /// Wraps the resolution of the wrapped type with `name` and `arguments`, or `nil` when that
    /// cannot be resolved. (`Any?`, not `Self?`, so it can be called on `any ResolutionWrapper.Type`.)
    static func wrap<each Argument>(
        from container: Container, resolver: Resolver, name: String?, arguments: repeat each Argument
    ) -> Any?
}

/// `Lazy` and `Provider`: wrappers made around a request resolved later.
protocol DeferredWrapper: ResolutionWrapper {
    associatedtype Service
    init(_ resolution: DeferredResolution<Service>, madeIn container: Container)
}

extension DeferredWrapper {
    /// The service resolved later, which a message about a missing registration names.
    static var wrappedType: Any.Type { Service.self }

    /// A wrapper of the registration found now, or, for a wrapper of a wrapper
    /// (`Lazy<Provider<X>>`), of the same request made again on access; `nil` when neither exists.
    static func wrap<each Argument>(
        from container: Container, resolver: Resolver, name: String?, arguments: repeat each Argument
    ) -> Any? {
        let key = ServiceKey(service: Service.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        let values = (repeat each arguments)
        let entry = container.slot(for: key)?.pointee.entry
        guard entry != nil || Service.self is any ResolutionWrapper.Type else { return nil }
        let resolution = DeferredResolution<Service>(
            link: container.link, synchronized: resolver is SynchronizedResolver, name: name
        ) { container, resolver in
            guard let entry else {
                return container.resolveService(
                    Service.self, name: name, resolver: resolver, arguments: repeat each values)
            }
            return withUnsafePointer(to: values) { pointer in
                entry.resolve(as: Service.self, in: container, resolver: resolver, arguments: UnsafeRawPointer(pointer))
            }
        }
        return Self(resolution, madeIn: container)
    }
}

// Each conformance spells out the requirement's signature: `Optional` resolves now, `Lazy` and
// `Provider` defer (`DeferredWrapper`, above).
extension Optional: ResolutionWrapper {
    /// `resolve(Dog?.self)` is `.some(dog)`, or `.some(nil)` when no `Dog` can be resolved. An
    /// optional dependency is a deliberate "maybe": as in Swinject, no registration of `Dog` is
    /// not logged (a `Dog` that is registered and fails is).
    ///
    /// A `Dog` that is registered and fails is not absent but broken: where the call hands its
    /// failure to its caller (`require` throws it, a `Lazy` or `Provider` reports it), the
    /// `Optional` is not made (`nil`), so the failure reaches that caller instead of turning into
    /// `.some(nil)` that nobody logs.
    static func wrap<each Argument>(
        from container: Container, resolver: Resolver, name: String?, arguments: repeat each Argument
    ) -> Any? {
        let hierarchy = container.hierarchy
        let errors = hierarchy.resolution.errorCount
        let wrapped: Wrapped? = container.resolveService(
            Wrapped.self, name: name, resolver: resolver, reportsMiss: false, arguments: repeat each arguments)
        if case .none = wrapped, hierarchy.handsFailureToCaller {
            // Failed: a failure recorded since (a factory threw, a cycle, a wrong type), or a
            // registered service refused because the request in flight has failed.
            if hierarchy.resolution.errorCount != errors { return nil }
            let key = ServiceKey(
                service: Wrapped.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
            if hierarchy.resolution.hasFailed, container.slot(for: key) != nil { return nil }
        }
        return wrapped as Any
    }
}
