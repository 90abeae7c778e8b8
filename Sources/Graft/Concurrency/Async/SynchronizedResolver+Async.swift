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
    /// Inlinable: a service already built is read in the caller, specialized, with no suspension
    /// and no runtime metadata lookup; the rest of the path is out of line.
    @inlinable
    public func resolveAsync<Service: Sendable>(
        _ serviceType: Service.Type, name: String? = nil
    ) async throws -> Service {
        // One lock round trip: the entries of this hierarchy and their state share its mutex.
        lockAsyncRegistrations()
        var changes = 0
        if let entry = asyncEntryObjectLocked(ObjectIdentifier(Service.self), name: name, changes: &changes) {
            // The key includes `Service`: the entry registered under it is an `AsyncServiceEntry<Service>`
            // (checked in debug builds by `unsafeDowncast`).
            let typed = unsafeDowncast(entry, to: AsyncServiceEntry<Service>.self)
            // Built, and known to be still what the key resolves to here: after a change to a table
            // the lookup walks, the slow path checks that again.
            if typed.hasBuilt, let built = typed.built,
                typed.isKnownCurrent(through: services, changes: changes, tablesGone: hierarchy.notedTablesGone)
            {
                typed.asyncResolutionCount &+= 1
                unlockAsyncRegistrations()
                return built
            }
        }
        unlockAsyncRegistrations()
        return try await resolveAsyncBuilding(serviceType, name: name)
    }

    /// `resolveAsync` when the service is not built yet, or not registered.
    @usableFromInline
    func resolveAsyncBuilding<Service: Sendable>(
        _ serviceType: Service.Type, name: String?
    ) async throws -> Service {
        guard let entry = asyncEntry(serviceType, name: name), isCurrentRegistration(entry) else {
            let label = serviceLabel(Service.self, name: name)
            throw ResolutionError(
                .notRegistered, path: [label],  // the async factories it passes through add themselves
                message: "Graft: resolution failed: no async registration of \(label) (registerAsync). "
                    + (isUnboundPlaceholder ? ResolverBinding.howToBind + " " : "")
                    + synchronousRegistrationHint(serviceType, name: name))
        }
        return try await entry.resolve(through: self)
    }

    /// Whether `entry` is still what its key resolves to here: a later `register`, `registerMain`
    /// or forward of the key, in the entry's container or in a child of it (as an override made by
    /// `withOverrides` is), replaces it, and the synchronous `resolve` answers with that one.
    /// When it is, the entry records it, so `resolveAsync` returns its built instance without this
    /// lookup until a table that lookup walks changes, or a table noted through is gone.
    func isCurrentRegistration<Service>(_ entry: AsyncServiceEntry<Service>) -> Bool {
        hierarchy.locked {
            let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: entry.name)
            let container = viewed ?? self
            guard let gate = entry.gate, let slot = container.slot(for: key), slot.pointee.entry === gate else {
                return false
            }
            var changes = 0
            if asyncEntryObjectLocked(ObjectIdentifier(Service.self), name: entry.name, changes: &changes) === entry {
                entry.noteCurrent(through: container.services, changes: changes, tablesGone: hierarchy.notedTablesGone)
            }
            return true
        }
    }
}
