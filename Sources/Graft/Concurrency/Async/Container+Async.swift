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
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @Sendable (SynchronizedResolver) async throws -> Service
    ) -> AsyncServiceEntry<Service> {
        if let viewed {
            return registerThroughView(viewed, "registerAsync(\(Service.self).self)") {
                $0.registerAsync(serviceType, name: name, factory: factory)
            }
        }
        let entry = AsyncServiceEntry(name: name, container: self, factory: factory)
        let key = AsyncKey(service: ObjectIdentifier(Service.self), name: name)
        let replaced = hierarchy.uncheckedSection { state.asyncRegistrations.set(entry, for: key) }
        let label = entry.label
        let call = resolutionCall("resolveAsync", Service.self, name: name)
        // The gate in the table answers the synchronous `resolve`. It is finished (transient) and
        // recorded before the behaviors are told: one that copies the container copies the
        // registration, never a gate that reaches this entry from the copy.
        let gate = ServiceEntry<Service>(
            serviceType: serviceType, argumentsType: (any Resolver).self, argumentsKey: noArgumentsKey, name: name,
            container: self, argumentTypeNames: { [] }, plainFactory: nil, argumentFactory: nil,
            throwingFactory: { _, _ in
                guard let built = entry.builtInstance() else { throw AsyncServiceNotBuilt(service: label, call: call) }
                return built
            })
        gate.inObjectScope(.transient)
        // A scope given to the gate (by a behavior, which is handed it) is the registration's.
        gate.madeExtras.scopeGoesTo = { scope in
            guard let scope = scope as? ObjectScope else {
                stop("Graft: \(label) is an async service, in the .container or the .transient scope, not a custom one")
            }
            entry.inObjectScope(scope)
        }
        gate.madeExtras.scopeReadFrom = { entry.scope }
        // An `initCompleted` action has no instance to run on that an async build would hand it:
        // it is not run, and the log says so once per action given.
        gate.madeExtras.initCompletedGoesTo = { [hierarchy] _ in
            hierarchy.enterLocked()  // any thread may configure: the message is held, then delivered unlocked
            hierarchy.log {
                "Graft: initCompleted on \(label), an async service, is not run: do that work in its async factory."
            }
            hierarchy.exitLocked()
        }
        insert(gate)
        entry.gate = gate
        if !state.behaviors.isEmpty { tellBehaviors(about: gate) }
        withExtendedLifetime(replaced) {}  // released once this container is consistent
        return entry
    }

    /// The async registration of `Service` under `name`, here or in the nearest ancestor.
    func asyncEntry<Service>(_ serviceType: Service.Type, name: String?) -> AsyncServiceEntry<Service>? {
        asyncEntryObject(ObjectIdentifier(Service.self), name: name) as? AsyncServiceEntry<Service>
    }

    /// The async registration under `service` and `name`, here or in the nearest ancestor, untyped
    /// (non-generic, so the lookup needs no metadata).
    @usableFromInline
    final func asyncEntryObject(_ service: ObjectIdentifier, name: String?) -> AnyObject? {
        hierarchy.locked { asyncEntryObjectLocked(service, name: name) }
    }

    /// ``asyncEntryObject(_:name:)`` with the hierarchy's mutex already held.
    final func asyncEntryObjectLocked(_ service: ObjectIdentifier, name: String?) -> AnyAsyncEntry? {
        var changes = 0
        return asyncEntryLocked(service, name: name, changes: &changes)
    }

    /// ``asyncEntryObjectLocked(_:name:)``, and in `changes` a count that moves whenever a
    /// registration that could replace what it finds here changes: the change counts of the tables
    /// of every container walked, from this one to the one holding the entry (a registration of
    /// the key in any of them, the holder included, replaces the entry for a lookup from here).
    /// Each only grows, so for one container the sum is the same only if none has changed. (Sums
    /// of different containers are not comparable: ``AsyncServiceEntry/isKnownCurrent(through:changes:tablesGone:)``
    /// also compares the table, and the hierarchy's count of noted tables gone.)
    @usableFromInline
    final func asyncEntryObjectLocked(_ service: ObjectIdentifier, name: String?, changes: inout Int) -> AnyObject? {
        asyncEntryLocked(service, name: name, changes: &changes)
    }

    /// ``asyncEntryObjectLocked(_:name:changes:)``, typed for this module.
    final func asyncEntryLocked(_ service: ObjectIdentifier, name: String?, changes: inout Int) -> AnyAsyncEntry? {
        // This container's own registrations first, read in place (a copy of the registry would
        // retain and release its arrays on every call).
        // A view shares its container's table and parent.
        changes = services.changeCount
        if let entry = (viewed ?? self).state.asyncRegistrations.entry(service: service, name: name) { return entry }
        var level = parent  // never a view: a view as parent stands for its container
        while let container = level {
            changes &+= container.services.changeCount
            if let entry = container.state.asyncRegistrations.entry(service: service, name: name) { return entry }
            level = container.parent
        }
        return nil
    }

    /// The hierarchy's mutex, which guards the async registrations and their entries' state.
    @usableFromInline
    final func lockAsyncRegistrations() { hierarchy.mutex.lock() }

    @usableFromInline
    final func unlockAsyncRegistrations() { hierarchy.mutex.unlock() }
}

/// `resolve(Database.self, name: "main")`: a call to show in a message.
func resolutionCall(_ method: String, _ type: Any.Type, name: String?) -> String {
    "\(method)(\(type).self" + (name.map { ", name: \"\($0)\")" } ?? ")")
}

/// A synchronous resolution of an async service not built yet.
struct AsyncServiceNotBuilt: Error, CustomStringConvertible, RefusedResolution {
    let service: String
    /// The call that builds it, `resolveAsync(Database.self)`.
    let call: String
    var description: String {
        "\(service) is registered with registerAsync and has not been built yet: resolve it with "
            + "`try await resolver.\(call)`, which builds it (a synchronous resolve returns it once built)."
    }
    var reason: ResolutionError.Reason { .factoryFailed(self) }
}

extension Container {
    /// What `resolveAsync` says when it finds no async registration: the synchronous one it may
    /// have meant, and how to reach it.
    func synchronousRegistrationHint<Service>(_ serviceType: Service.Type, name: String?) -> String {
        hierarchy.locked {
            let container = viewed ?? self
            let label = serviceLabel(Service.self, name: name)
            let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
            let registered = container.slot(for: key)?.pointee.entry
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
