// Graft — MIT License.

extension Container {
    /// Registers a service whose factory is `async` (opens a connection, reads a keychain), built
    /// by ``SynchronizedResolver/resolveAsync(_:name:)``; see ``AsyncServiceEntry``.
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { r in try await Database.connect(r.resolve(Config.self)!) }
    /// ```
    ///
    /// The synchronous `resolve` returns the instance once it is built, and otherwise `nil` with a
    /// message naming `resolveAsync`.
    @discardableResult
    public func registerAsync<Service: Sendable>(
        _ serviceType: Service.Type, name: String? = nil,
        factory: @escaping @Sendable (SynchronizedResolver) async throws -> Service
    ) -> AsyncServiceEntry<Service> {
        onContainer(registering: "registerAsync(\(Service.self).self)") { container in
            let registration = AsyncServiceEntry(name: name, container: container, factory: factory)
            _ = container.add(container.makeAsyncEntry(for: registration))
            return registration
        }
    }

    /// The entry of an async registration, not in a table yet: one entry of the async kind, whose
    /// resolutions `resolveAsync` and the synchronous `resolve` count. Its scope is custom with no
    /// storage: the synchronous `resolve` takes the general path, which reads what the registration
    /// built (``ServiceEntry/storedInstance(in:)``), with no check of its own: built, the instance;
    /// not built, a factory that refuses with a message naming `resolveAsync`.
    func makeAsyncEntry<Service: Sendable>(for registration: AsyncServiceEntry<Service>) -> ServiceEntry<Service> {
        // The message's names are made only when it is thrown: describing a type is slow.
        let name = registration.name
        let entry = ServiceEntry<Service>(
            serviceType: Service.self, name: name, container: self,
            throwingFactory: { _, _ in
                throw RefusedResolution(
                    description: "\(serviceLabel(Service.self, name: name)) is registered with registerAsync and has "
                        + "not been built yet: resolve it with `try await resolver."
                        + "\(resolutionCall("resolveAsync", Service.self, name: name))`, which builds it (a synchronous "
                        + "resolve returns it once built).", isOffMainActor: false)
            }, kind: .async)
        entry.madeExtras.state.asyncRegistration = registration
        entry.setKeeping(.custom, storage: nil)
        return entry
    }

    /// The async registration that a resolution of `Service` under `name` from here finds: the
    /// one the key's entry (in this container or the nearest ancestor) belongs to, if that entry is
    /// of the async kind, `Service`'s own registration or one forwarded to `Service` (a forward's
    /// resolution is counted here: its slot has no direct cell, so ``builtAsyncInstanceLocked(_:name:)``
    /// did not count it). Under the hierarchy's mutex.
    func asyncRegistrationLocked<Service>(_ serviceType: Service.Type, name: String?) -> AnyAsyncEntry? {
        let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
        guard let slot = slot(for: key), let entry = slot.pointee.entry, let registration = entry.asyncRegistration
        else { return nil }
        if slot.pointee.directCell == nil { entry.cell.countResolution() }
        return registration
    }

    /// What the async registration of `Service` under `name` that a resolution from here finds has
    /// built, or `nil` (nothing built yet, or no such registration); a resolution of its entry is
    /// counted when there is one. Under the hierarchy's mutex. Inlinable: `resolveAsync` reads a
    /// built service with the key's hash and probe specialized in the caller, as a synchronous
    /// `resolve` does.
    @inlinable @inline(__always)
    final func builtAsyncInstanceLocked<Service: Sendable>(_ serviceType: Service.Type, name: String?) -> Service? {
        guard let slot = slot(for: ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)),
            let cell = slot.pointee.directCell
        else { return nil }  // not registered, a forward, or a main-actor entry
        // A slot keeps a direct cell only for an entry of its key's own service type, so the entry
        // is a `ServiceEntry<Service>`, and an async entry's registration an
        // `AsyncServiceEntry<Service>` (both checked in debug builds by `unsafeDowncast`): no call
        // through a protocol.
        let entry = unsafeDowncast(slot.pointee.entry.unsafelyUnwrapped as AnyObject, to: ServiceEntry<Service>.self)
        guard entry.kind == .async else { return nil }
        let registration = unsafeDowncast(
            entry.extras.unsafelyUnwrapped.state.asyncRegistration.unsafelyUnwrapped,  // every async entry has one
            to: AsyncServiceEntry<Service>.self)
        let built = registration.built
        // Counted last: a store through the cell's pointer may alias anything, and read before it,
        // the entry, its extras and its registration need not be retained.
        cell.countResolution()
        return built
    }

    /// What `resolveAsync` says when it finds no async registration: the synchronous one it may
    /// have meant, and how to reach it.
    func synchronousRegistrationHint<Service>(_ serviceType: Service.Type, name: String?) -> String {
        hierarchy.withLock {
            let label = serviceLabel(Service.self, name: name)
            let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
            let registered = slot(for: key)?.pointee.entry  // a view shares its container's table
            if registered?.kind == .mainActor {
                return "\(label) is registered with registerMain: resolve it with "
                    + "`\(resolutionCall("resolveMain", Service.self, name: name))` on the main actor."
            }
            if registered != nil {
                return "\(label) is registered with register, synchronously: resolve it with "
                    + "`\(resolutionCall("resolve", Service.self, name: name))` (or `require`), or register it "
                    + "with registerAsync."
            }
            return "Register it with registerAsync to build it with resolveAsync."
        }
    }
}

/// `resolve(Database.self, name: "main")`: a call to show in a message.
func resolutionCall(_ method: String, _ type: Any.Type, name: String?) -> String {
    "\(method)(\(type).self" + (name.map { ", name: \"\($0)\")" } ?? ")")
}
