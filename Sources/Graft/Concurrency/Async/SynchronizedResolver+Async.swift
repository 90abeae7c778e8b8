// Graft — MIT License.

extension SynchronizedResolver {
    /// Resolves a service registered with ``Container/registerAsync(_:name:factory:)``, awaiting its
    /// build; a `.container` service is built once however many tasks ask at the same time.
    ///
    /// ```swift
    /// let database = try await resolver.resolveAsync(Database.self)
    /// ```
    ///
    /// - Throws: ``ResolutionError`` (not registered, the factory threw, a cycle among async
    ///   factories), or `CancellationError` when the calling task is cancelled while waiting.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`): a service already built is
    /// returned with no executor hop, and only a build's wait leaves it. Inlinable: a built
    /// service is read in the caller, specialized, with no suspension and no runtime metadata
    /// lookup; the rest of the path is out of line.
    @inlinable
    nonisolated(nonsending) public func resolveAsync<Service: Sendable>(
        _ serviceType: Service.Type, name: String? = nil
    ) async throws -> Service {
        // One lock round trip: the table, the entries and their state share the hierarchy's mutex.
        if let built = hierarchy.mutex.withLock({ builtAsyncInstanceLocked(Service.self, name: name) }) { return built }
        return try await resolveAsyncBuilding(serviceType, name: name)
    }

    /// `resolveAsync` when the service is not built yet, or not registered (its resolution is
    /// counted by the caller).
    @usableFromInline
    func resolveAsyncBuilding<Service: Sendable>(_ serviceType: Service.Type, name: String?) async throws -> Service {
        guard let registration = hierarchy.withLock({ asyncRegistrationLocked(serviceType, name: name) }) else {
            let label = serviceLabel(Service.self, name: name)
            throw ResolutionError(
                .notRegistered, path: [label],  // the async factories it passes through add themselves
                message: "Graft: resolution failed: no async registration of \(label) (registerAsync). "
                    + (isUnboundPlaceholder ? ResolverBinding.howToBind + " " : "")
                    + synchronousRegistrationHint(serviceType, name: name))
        }
        return try await registration.resolve(as: Service.self, forwardedName: name, through: self)
    }
}
