// Graft — MIT License.

extension Container: Resolver {
    @inlinable
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        if viewed != nil { return resolveThroughView(serviceType, name: nil) }
        return resolveWithoutArguments(serviceType, name: nil)
    }

    @inlinable
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        if viewed != nil { return resolveThroughView(serviceType, name: name) }
        return resolveWithoutArguments(serviceType, name: name)
    }

    // Transparent (inlined even in debug builds): on a deep chain of resolutions with arguments,
    // each frame of a pack-generic function costs hundreds of bytes of stack in a debug build.
    @_transparent
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        // One inlined copy of the path for both kinds of container: in a debug build a second
        // copy, or a frame of its own for the view, would double the stack a level of a deep chain
        // takes. A view resolves on itself: it shares its container's table, parent and hierarchy.
        let isView = viewed != nil
        if isView { enterViewLock() }
        defer { if isView { exitViewLock() } }
        return resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
    }
}

// The one path every resolution takes (see DESIGN.md): key, lookup up the hierarchy, the entry's
// scope, and on a miss the factory, storing per scope and running `initCompleted`.
//
// The generic code runs unspecialized (callers are in other modules, and factories call through
// the `Resolver` existential), so the hot path stays out of the runtime's metadata caches: the
// entry's own methods do the work, reading `Service` from the entry itself, and arguments travel
// as a pointer to their tuple.
extension Container {
    /// Resolves `serviceType` with no arguments, passing this container (or view) to the factories
    /// that run.
    ///
    /// Inlinable: called on a concrete `Container`, a `.container`-scoped hit is specialized in the
    /// caller and costs a table probe and a copy, retaining nothing but the instance returned.
    @inlinable
    func resolveWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolveWithoutArguments(serviceType, name: name, handsFailureToCaller: false)
    }

    /// The path of ``resolveWithoutArguments(_:name:)``, and of `require` with
    /// `handsFailureToCaller` (its failure is thrown, not logged). Always inlined, so the flag is
    /// a constant in each copy: `resolve`'s, specialized or not (the `Resolver` witness), never
    /// tests it.
    @inlinable @inline(__always)
    func resolveWithoutArguments<Service>(
        _ serviceType: Service.Type,
        name: String?,
        handsFailureToCaller: Bool
    ) -> Service? {
        let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
        guard let slot = slot(for: key) else {
            if handsFailureToCaller { return resolveUnregisteredHandingFailureToCaller(serviceType, key: key) }
            return resolveUnregistered(serviceType, key: key, resolver: self)
        }
        // `directCell` is set only where the key's service type is the entry's own `Service`, and
        // the key was made from this `Service`: the cell holds values of exactly this type.
        if let cell = slot.pointee.directCell {
            if cell.hasInstance {
                cell.countResolution()
                return cell.instance(as: Service.self)
            }
            if cell.plan != InstanceCell.planGeneral {
                if handsFailureToCaller {
                    let outer = hierarchy.beginCallHandingFailureToCaller()
                    defer { hierarchy.endCallHandingFailureToCaller(outer) }
                    return resolvePlanned(slot, cell: cell, as: serviceType)
                }
                return resolvePlanned(slot, cell: cell, as: serviceType)
            }
        }
        if handsFailureToCaller { return resolveHandingFailureToCaller(slot, as: serviceType) }
        return resolve(slot, as: serviceType, resolver: self)
    }

    /// A transient or graph-scoped entry with a plain factory and no `initCompleted` action (the
    /// cell's plan says so): the graph's instance if it has one, else the factory is called here,
    /// specialized in the caller, between the two halves of a construction that the entry runs
    /// out of line (``ServiceEntry/beginPlanned(in:)``, ``ServiceEntry/finishPlanned(_:from:in:resolver:)``).
    /// What these halves do not cover (validation, a recalled graph) they leave to the general path.
    @inlinable
    func resolvePlanned<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>,
        cell: InstanceCell,
        as serviceType: Service.Type
    ) -> Service? {
        if cell.hasGraphInstance && cell.plan == InstanceCell.planGraph {
            cell.countResolution()
            return cell.graphInstance(as: Service.self)
        }
        // A direct cell belongs to a `ServiceEntry` of the key's own type (see `RegistrationTable.Slot`):
        // the cast only states that (and is checked in debug builds). Retained for the call: the
        // factory may change the table.
        let entry = unsafeDowncast(slot.pointee.entry.unsafelyUnwrapped, to: ServiceEntry<Service>.self)
        let start = entry.beginPlanned(in: hierarchy)
        switch start.outcome {
        case .factory:
            // The plan is set only for an entry with a plain factory.
            guard let factory = entry.plainFactory else { preconditionFailure("Graft: planned entry without factory") }
            let resolver: Resolver = self  // one existential for both calls: making one retains
            let made = factory(resolver)
            let finish =
                cell.plan == InstanceCell.planGraph
                ? entry.finishPlannedInGraph(made, from: start, in: hierarchy, resolver: resolver)
                : entry.finishPlanned(made, from: start, in: hierarchy, resolver: resolver)
            switch finish {
            case .made: return made
            case .failed: return nil
            case .kept: return try? entry.finishKept(from: start, in: hierarchy)
            }
        case .refused:
            return nil
        case .general:
            return entry.resolve(as: Service.self, in: self, resolver: self, arguments: nil)
        }
    }

    /// Everything but a `.container`-scoped hit, out of line.
    @usableFromInline
    func resolve<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>,
        as serviceType: Service.Type,
        resolver: Resolver,
        arguments: UnsafeRawPointer? = nil
    ) -> Service? {
        let entry = slot.pointee.entry.unsafelyUnwrapped  // retained: a factory may change the table
        return entry.resolve(as: serviceType, in: self, resolver: resolver, arguments: arguments)
    }

    /// Resolves `entry` with a pointer to `arguments` for the call's duration.
    @_transparent @usableFromInline
    func resolve<Service, Arguments>(
        _ entry: AnyServiceEntry,
        as serviceType: Service.Type,
        resolver: Resolver,
        arguments: UnsafePointer<Arguments>
    ) -> Service? {
        entry.resolve(as: Service.self, in: self, resolver: resolver, arguments: UnsafeRawPointer(arguments))
    }

    /// Resolves `serviceType` with `arguments`, passing `resolver` to the factories that run.
    /// Inlinable so that, specialized in the caller, the argument tuple's type costs no lookup;
    /// transparent so that debug builds inline it too (one frame less per level of a deep chain).
    /// The two flags are constants at each call site: `handsFailureToCaller` for `require` (see
    /// ``resolveWithoutArguments(_:name:handsFailureToCaller:)``), `reportsMiss` off for the
    /// `Optional` wrapper, whose missing registration is a deliberate "maybe".
    @_transparent @usableFromInline
    func resolveService<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        resolver: Resolver,
        handsFailureToCaller: Bool = false,
        reportsMiss: Bool = true,
        arguments: repeat each Argument
    ) -> Service? {
        let key = ServiceKey(service: Service.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        if let slot = slot(for: key) {
            let entry = slot.pointee.entry.unsafelyUnwrapped  // retained: a factory may change the table
            var values: (repeat each Argument) = (repeat each arguments)
            // A pointer for the call's duration, without a closure: on a deep chain of resolutions
            // a closure frame per level adds up in a debug build.
            if handsFailureToCaller {
                let outer = hierarchy.beginCallHandingFailureToCaller()
                defer { hierarchy.endCallHandingFailureToCaller(outer) }
                return resolve(entry, as: Service.self, resolver: resolver, arguments: &values)
            }
            return resolve(entry, as: Service.self, resolver: resolver, arguments: &values)
        }
        if handsFailureToCaller {
            let outer = hierarchy.beginCallHandingFailureToCaller()
            defer { hierarchy.endCallHandingFailureToCaller(outer) }
            return resolveUnregistered(
                serviceType, key: key, resolver: resolver, reportsMiss: false, arguments: repeat each arguments)
        }
        return resolveUnregistered(
            serviceType, key: key, resolver: resolver, reportsMiss: reportsMiss, arguments: repeat each arguments)
    }

    /// `require`'s resolution of a registered key, but a `.container` hit: its failure is thrown,
    /// not logged (a failure met deeper, by a factory's own `resolve`, still is).
    @usableFromInline
    func resolveHandingFailureToCaller<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>,
        as serviceType: Service.Type
    ) -> Service? {
        let outer = hierarchy.beginCallHandingFailureToCaller()
        defer { hierarchy.endCallHandingFailureToCaller(outer) }
        return resolve(slot, as: serviceType, resolver: self)
    }

    /// `require`'s resolution of a key with no registration: a wrapper Graft makes, or a miss that
    /// is thrown, not logged.
    @usableFromInline
    func resolveUnregisteredHandingFailureToCaller<Service>(_ serviceType: Service.Type, key: ServiceKey) -> Service? {
        let outer = hierarchy.beginCallHandingFailureToCaller()
        defer { hierarchy.endCallHandingFailureToCaller(outer) }
        return resolveUnregistered(serviceType, key: key, resolver: self, reportsMiss: false)
    }

    /// The slot of `key` in this container or the nearest ancestor that has one; valid until a
    /// registration changes. Inlined: the hash of a key without a name folds to a few
    /// instructions, and a hit in this container's own table takes no call.
    @inlinable @inline(__always)
    func slot(for key: ServiceKey) -> UnsafeMutablePointer<RegistrationTable.Slot>? {
        let hash = RegistrationTable.hash(key)
        if let slot = services.slot(for: key, hash: hash) { return slot }
        return parent == nil ? nil : slotInAncestors(for: key, hash: hash)
    }

    @usableFromInline
    func slotInAncestors(for key: ServiceKey, hash: Int) -> UnsafeMutablePointer<RegistrationTable.Slot>? {
        var level = parent
        while let container = level {
            if let slot = container.services.slot(for: key, hash: hash) { return slot }
            level = container.parent
        }
        return nil
    }

    /// Nothing is registered under the key: answer what Graft itself provides, or report the miss
    /// (unless `reportsMiss` is off: an `Optional` asked for, a deliberate "maybe").
    @usableFromInline
    func resolveUnregistered<Service, each Argument>(
        _ serviceType: Service.Type,
        key: ServiceKey,
        resolver: Resolver,
        reportsMiss: Bool = true,
        arguments: repeat each Argument
    ) -> Service? {
        if Service.self == GraphIdentifier.self, key.arguments == noArgumentsKey {
            // Outside a resolution there is no graph: `nil`, as in Swinject, and nothing to report.
            return hierarchy.escapedGraph as? Service
        }
        if let wrapper = Service.self as? any ResolutionWrapper.Type,
            let wrapped = wrapper.wrap(from: self, resolver: resolver, name: key.name, arguments: repeat each arguments)
        {
            return wrapped as? Service
        }
        if reportsMiss {
            hierarchy.logMiss {
                var names: [String] = []
                repeat names.append(String(describing: (each Argument).self))
                return ResolutionError(
                    .notRegistered, path: hierarchy.path + [serviceLabel(Service.self, name: key.name)],
                    message: resolutionFailureMessage(serviceType, name: key.name, argumentTypeNames: names)
                ).description
            }
        }
        if _slowPath(hierarchy.isValidating), key.arguments != noArgumentsKey {
            var names: [String] = []
            repeat names.append(String(describing: (each Argument).self))
            hierarchy.validation?.observeMissing(
                serviceLabel(Service.self, name: key.name) + " (arguments: \(names.joined(separator: ", ")))",
                in: hierarchy)
        }
        return nil
    }
}

/// Ends a resolution that cannot produce an instance; the message has been logged already.
/// Typed throws carry the failure without an `Optional<Service>` in unspecialized code, whose
/// metadata the runtime would have to look up on every call.
@usableFromInline
struct ResolutionFailed: Error {
    @usableFromInline init() {}
}

/// How the second half of a planned construction ended (``ServiceEntry/finishPlanned(_:from:in:resolver:)``).
@usableFromInline
enum PlannedFinish {
    /// Return the instance the factory made.
    case made
    /// The request failed: return `nil`.
    case failed
    /// The scope kept another instance while the factory ran (a circular resolution through an
    /// `initCompleted` action): return that one, with ``ServiceEntry/finishKept(from:in:)``.
    case kept
}

/// How the first half of a planned construction ended (``ServiceEntry/beginPlanned(in:)``).
@usableFromInline
struct PlannedStart {
    @usableFromInline
    enum Outcome {
        /// The frame is pushed: call the factory, then ``ServiceEntry/finishPlanned(_:from:in:resolver:)``.
        case factory
        /// The request has failed, or this would be a cycle or too deep: the resolution returns `nil`.
        case refused
        /// Nothing was done: take the general path.
        case general
    }

    @usableFromInline let outcome: Outcome
    let request: Hierarchy.Request?
    let outerFrame: Int

    init(_ outcome: Outcome, request: Hierarchy.Request? = nil, outerFrame: Int = -1) {
        self.outcome = outcome
        self.request = request
        self.outerFrame = outerFrame
    }
}

extension ServiceEntry {
    @usableFromInline
    func resolve<Requested>(
        as requested: Requested.Type,
        in container: Container,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) -> Requested? {
        cell.countResolution()
        if _slowPath(container.hierarchy.isValidating) { observeForValidation(in: container, arguments: arguments) }
        // The static types, never the metatype values: `Requested` is what the caller's key says.
        guard Requested.self == Service.self else {
            return resolveForwarded(as: Requested.self, in: container, resolver: resolver, arguments: arguments)
        }
        do {
            // Same type, checked just above: the cast changes nothing but the static type.
            return unsafeBitCast(
                try resolveInstance(in: container.hierarchy, resolver: resolver, arguments: arguments),
                to: Requested.self)
        } catch {
            return nil
        }
    }

    /// Resolves this entry for a type it was forwarded to (`implements`, `forward`).
    private func resolveForwarded<Requested>(
        as requested: Requested.Type,
        in container: Container,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) -> Requested? {
        guard let instance = try? resolveInstance(in: container.hierarchy, resolver: resolver, arguments: arguments)
        else { return nil }
        if let forwarded = instance as? Requested { return forwarded }
        let hierarchy = container.hierarchy
        let error = ResolutionError(
            .wrongType, path: hierarchy.path + [serviceLabel(Requested.self, name: name)],
            message: "Graft: resolution failed: \(Service.self) is forwarded to \(Requested.self), but the instance "
                + "its factory made, of type \(type(of: instance)), is not a \(Requested.self).")
        hierarchy.record(error)
        hierarchy.logMiss { error.description }
        return nil
    }

    @_transparent
    private func resolveInstance(
        in hierarchy: Hierarchy,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Service {
        switch scopeKind {
        case .container:
            if hasInstance { return instance }
        case .graph:
            if hasGraphInstance { return graphInstance }
            if let record = hierarchy.recalled, recall(from: record, in: hierarchy) { return graphInstance }
        case .weak:
            // As Swinject's composite of weak and graph storage: the shared instance, while alive,
            // comes before what an earlier resolution of a recalled graph left.
            if hasGraphInstance { return graphInstance }
            if weakInstance != nil {
                do { return try sharedWeakInstance() } catch {}  // released meanwhile: make a new one
            }
            if let record = hierarchy.recalled, recall(from: record, in: hierarchy) { return graphInstance }
        case .transient:
            break
        case .custom:
            return try resolveInStorage(in: hierarchy, resolver: resolver, arguments: arguments)
        }
        return try construct(
            in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: hierarchy.isAtRequestBase)
    }

    /// The instance `.weak` shares, if still alive. Out of line: its `as?` needs an
    /// `Optional<Service>`, whose metadata lookup would otherwise be paid by every resolution.
    @inline(never)
    private func sharedWeakInstance() throws(ResolutionFailed) -> Service {
        guard let object = weakInstance, let instance = object as? Service else { throw ResolutionFailed() }
        return instance
    }

    /// A custom scope's storage is asked with the graph's identifier, so the graph (and, at the
    /// top, the request) must exist before the storage is read.
    @inline(never)
    private func resolveInStorage(
        in hierarchy: Hierarchy,
        resolver: Resolver,
        arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Service {
        let request: Hierarchy.Request? = hierarchy.isAtRequestBase ? hierarchy.beginRequest() : nil
        let result = Result { () throws(ResolutionFailed) -> Service in
            if let stored = storedInstance(in: hierarchy) { return stored }
            return try construct(in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: false)
        }
        if let request, !hierarchy.endRequest(request) { throw ResolutionFailed() }
        return try result.get()
    }

    /// What the custom storage holds for the current graph, if it is a `Service`. A value of
    /// another type (a storage shared by the registrations of a custom scope, or filled by its
    /// owner) counts as none, as in Swinject: the factory runs and its instance replaces it.
    /// The storage's `Any?` is checked for `nil` before the cast: for an `Optional`, `Any` or
    /// `AnyObject` service a cast of `nil` would succeed and the factory would never run.
    private func storedInstance(in hierarchy: Hierarchy) -> Service? {
        guard let stored = storage?.instance(inGraph: hierarchy.currentGraph) else { return nil }
        return stored as? Service
    }

    /// Calls the factory, keeps the instance per scope, then runs the `initCompleted` actions.
    private func construct(
        in hierarchy: Hierarchy,
        resolver: Resolver,
        arguments: UnsafeRawPointer?,
        opensRequest: Bool
    ) throws(ResolutionFailed) -> Service {
        // A factory that may throw takes a path of its own: a `try` around the factory call here
        // would cost every construction a move of the instance through its value witness.
        if _slowPath(hasThrowingFactory) {
            return try constructWithThrowingFactory(
                in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: opensRequest)
        }
        let request = try openConstruction(in: hierarchy, opensRequest: opensRequest)
        let made = callFactory(in: hierarchy, resolver: resolver, arguments: arguments)
        return try finishConstruction(made, in: hierarchy, resolver: resolver, request: request)
    }

    /// `construct` for a factory that may throw.
    @inline(never)
    private func constructWithThrowingFactory(
        in hierarchy: Hierarchy,
        resolver: Resolver,
        arguments: UnsafeRawPointer?,
        opensRequest: Bool
    ) throws(ResolutionFailed) -> Service {
        let request = try openConstruction(in: hierarchy, opensRequest: opensRequest)
        let outerFrame = factoryFrame
        factoryFrame = hierarchy.pushFactory(self)
        let made: Service
        do {
            made = try throwingFactory!(resolver, arguments ?? zeroSizedArguments)
        } catch {
            failThrown(error, in: hierarchy)  // with this factory still on the path
            hierarchy.popFactory(self)
            factoryFrame = outerFrame
            if let request { _ = hierarchy.endRequest(request) }
            throw ResolutionFailed()
        }
        hierarchy.popFactory(self)
        factoryFrame = outerFrame
        return try finishConstruction(made, in: hierarchy, resolver: resolver, request: request)
    }

    /// After the factory: counts the instance, keeps it per scope, runs `initCompleted`, ends the
    /// request. Inlined into `construct` (its locals are the same on a deep chain either way).
    @_transparent
    private func finishConstruction(
        _ made: Service,
        in hierarchy: Hierarchy,
        resolver: Resolver,
        request: Hierarchy.Request?
    ) throws(ResolutionFailed) -> Service {
        instanceCount &+= 1
        if settle(made, in: hierarchy, resolver: resolver) {
            return try finishWithKeptInstance(in: hierarchy, request: request)
        }
        if let request, !hierarchy.endRequest(request) { throw ResolutionFailed() }
        return made
    }

    /// The first half of a planned construction (``Container/resolvePlanned(_:cell:as:resolver:)``):
    /// what `resolve(as:in:resolver:arguments:)` and `construct` do before the factory runs.
    @usableFromInline
    func beginPlanned(in hierarchy: Hierarchy) -> PlannedStart {
        // Validation observes and rescopes; a recalled graph may hold this entry's instance.
        if _slowPath(hierarchy.isValidating || hierarchy.recalled != nil) { return PlannedStart(.general) }
        cell.countResolution()
        let request: Hierarchy.Request?
        do {
            request = try openConstruction(in: hierarchy, opensRequest: hierarchy.isAtRequestBase)
        } catch {
            return PlannedStart(.refused)
        }
        let outerFrame = factoryFrame
        factoryFrame = hierarchy.pushFactory(self)
        return PlannedStart(.factory, request: request, outerFrame: outerFrame)
    }

    /// The second half: pops the factory's frame, then keeps the instance as `construct` does.
    /// - Returns: Whether the resolution returns `made`, fails, or returns the instance the scope
    ///   kept meanwhile (``finishKept(from:in:)``).
    @usableFromInline
    func finishPlanned(
        _ made: Service,
        from start: PlannedStart,
        in hierarchy: Hierarchy,
        resolver: Resolver
    ) -> PlannedFinish {
        finishPlanned(made, from: start, in: hierarchy, resolver: resolver, keepsInGraphInline: false)
    }

    /// ``finishPlanned(_:from:in:resolver:)`` for a graph-scoped plan: the graph scope's keeping
    /// is inline (a transient plan would pay for the larger frame).
    @usableFromInline
    func finishPlannedInGraph(
        _ made: Service,
        from start: PlannedStart,
        in hierarchy: Hierarchy,
        resolver: Resolver
    ) -> PlannedFinish {
        finishPlanned(made, from: start, in: hierarchy, resolver: resolver, keepsInGraphInline: true)
    }

    @inline(__always)
    private func finishPlanned(
        _ made: Service,
        from start: PlannedStart,
        in hierarchy: Hierarchy,
        resolver: Resolver,
        keepsInGraphInline: Bool
    ) -> PlannedFinish {
        hierarchy.popFactory(self)
        factoryFrame = start.outerFrame
        instanceCount &+= 1
        // The scope is read again: the factory may have changed it. What `settle` does for the
        // graph scope, without its calls.
        if keepsInGraphInline && scopeKind == .graph && !hierarchy.hasFailed && !hasInitCompletedActions {
            if hasGraphInstance { return .kept }
            setGraphInstance(made, in: hierarchy)
            hierarchy.holdsGraphInstance(self, cell: cell)
        } else if settle(made, in: hierarchy, resolver: resolver) {
            // A kept instance is read before the request ends (ending it may end the graph): the
            // caller does both with ``finishKept(from:in:)``.
            return .kept
        }
        if let request = start.request, !hierarchy.endRequest(request) { return .failed }
        return .made
    }

    /// After ``finishPlanned(_:from:in:resolver:)`` said `.kept`: the kept instance, and the request ended.
    @usableFromInline
    func finishKept(from start: PlannedStart, in hierarchy: Hierarchy) throws(ResolutionFailed) -> Service {
        try finishWithKeptInstance(in: hierarchy, request: start.request)
    }

    // `checkBeforeConstructing` and `settle` are inlined in release builds; in debug builds they
    // are frames of their own, so their locals are off the stack while the factory (and every
    // level below it) runs.

    /// Opens a request if asked (before the checks, so a cycle or the depth limit met here fails
    /// this request, not the one around it), then checks that the construction may go on,
    /// closing that request if not.
    @inline(__always)
    private func openConstruction(
        in hierarchy: Hierarchy,
        opensRequest: Bool
    ) throws(ResolutionFailed) -> Hierarchy.Request? {
        let request: Hierarchy.Request? = opensRequest ? hierarchy.beginRequest() : nil
        guard canConstruct(in: hierarchy) else {
            if let request { _ = hierarchy.endRequest(request) }
            throw ResolutionFailed()
        }
        return request
    }

    @inline(__always)
    private func canConstruct(in hierarchy: Hierarchy) -> Bool {
        // The request in flight has failed: it will return nil and keep nothing, so running more
        // factories for it is wasted work (and, keeping nothing, a graph would be rebuilt for
        // every later resolution in it: exponential on a diamond-shaped graph).
        if hierarchy.hasFailed {
            if _slowPath(hierarchy.isValidating) { hierarchy.explainRefusal(of: self) }
            return false
        }
        if !takesArguments && hierarchy.isConstructorCycle(factoryFrame: factoryFrame) {
            failCycle(in: hierarchy)
            return false
        }
        if hierarchy.frameCount >= Hierarchy.maximumDepth {
            failTooDeep(in: hierarchy)
            return false
        }
        return true
    }

    /// After the factory: keeps the instance per scope and runs `initCompleted`, unless the
    /// request has failed meanwhile.
    /// - Returns: Whether the scope had kept an instance while the factory ran (a circular
    ///   `initCompleted` made one), which is then the result.
    @inline(__always)
    private func settle(_ made: Service, in hierarchy: Hierarchy, resolver: Resolver) -> Bool {
        guard !hierarchy.hasFailed else { return false }
        if scopeKind == .transient {  // keeps nothing: no call to ask or keep
            if hasInitCompletedActions { runInitCompleted(made, in: hierarchy, resolver: resolver) }
            return false
        }
        if isKeepingAnInstance(in: hierarchy) { return true }
        keep(made, in: hierarchy)
        if hasInitCompletedActions { runInitCompleted(made, in: hierarchy, resolver: resolver) }
        return false
    }

    /// Runs a factory that cannot throw in a frame of the hierarchy's construction stack.
    @_transparent
    private func callFactory(in hierarchy: Hierarchy, resolver: Resolver, arguments: UnsafeRawPointer?) -> Service {
        let outerFrame = factoryFrame
        factoryFrame = hierarchy.pushFactory(self)
        // One of the two factories is set (the third, throwing, takes its own path); an argument
        // factory is reached only through a key with argument types, whose resolution passes a
        // pointer to their tuple. A tuple of zero size (one `Void` argument) may be given no
        // address at all: nothing is read from it then, so any aligned address serves.
        // (`if let` and `!`, not `unsafelyUnwrapped`: that generic accessor would reabstract the
        // closure through a heap-allocated thunk on every call.)
        let made: Service
        if let plainFactory {
            made = plainFactory(resolver)
        } else if let arguments {
            made = argumentFactory!(resolver, arguments)
        } else {
            made = argumentFactory!(resolver, zeroSizedArguments)
        }
        hierarchy.popFactory(self)
        factoryFrame = outerFrame
        return made
    }

    @inline(never)
    private func finishWithKeptInstance(
        in hierarchy: Hierarchy,
        request: Hierarchy.Request?
    ) throws(ResolutionFailed) -> Service {
        let kept = Result { () throws(ResolutionFailed) -> Service in try keptInstance(in: hierarchy) }
        if let request, !hierarchy.endRequest(request) { throw ResolutionFailed() }
        return try kept.get()
    }

    // The failure paths, out of line: message building would otherwise enlarge the stack frame of
    // `construct`, which every level of a deep chain keeps on the stack.

    @inline(never)
    private func failCycle(in hierarchy: Hierarchy) {
        let chain = hierarchy.chain(reentering: self)
        let label = Hierarchy.label(self)
        let advice =
            hierarchy.frameCount - factoryFrame == 1
            ? "The factory of \(label) resolves \(label) again while it runs. If the recursion ends on its own "
                + "(a counter, a tree of nodes), pass its state as an argument: a registration with arguments may "
                + "resolve itself again. If the factory wants the instance it is making, keep the .graph scope and "
                + "inject a Lazy<\(serviceType)>, read after the factory returns."
            : "Each factory needs the next to be made first; break the cycle by injecting one side in "
                + "`initCompleted`, or through a Lazy."
        let error = ResolutionError(
            .circularDependency, path: hierarchy.path + [label],
            message: "Graft: circular dependency: \(chain). " + advice)
        hierarchy.fail(error)
        hierarchy.logFailure()
    }

    @inline(never)
    private func failTooDeep(in hierarchy: Hierarchy) {
        let levels = "Graft: resolution deeper than \(Hierarchy.maximumDepth) levels"
        let error: ResolutionError
        if let cycle = hierarchy.repeatingCycle(reentering: self) {
            let advice =
                cycle.isTransientThroughInitCompleted
                ? " Each pass makes new transient instances, whose initCompleted actions resolve the next again, "
                    + "without end: make one of them .graph (or .container), so that the cycle closes on the "
                    + "instance being made."
                : " A recursion that should end did not: check the condition that stops it."
            error = ResolutionError(
                .tooDeep, path: hierarchy.path + [Hierarchy.label(self)],
                message: "\(levels): the cycle \(cycle.chain) repeats." + advice,
                shownPath: cycle.shownPath)
        } else {
            error = ResolutionError(
                .tooDeep, path: hierarchy.path + [Hierarchy.label(self)],
                message: "\(levels): \(hierarchy.chain(reentering: self))")
        }
        hierarchy.fail(error)
        hierarchy.logFailure()
    }

    /// The factory threw: the request fails with that error (a `ResolutionError` from a nested
    /// `require`, unchanged) or `.factoryFailed` with the path to this factory. Logged unless
    /// logged already, or the call that ran this factory hands its failure to its caller.
    private func failThrown(_ thrown: any Error, in hierarchy: Hierarchy) {
        if let error = thrown as? ResolutionError {
            hierarchy.fail(error)
        } else if let refusal = thrown as? any GateRefusal {
            hierarchy.fail(
                ResolutionError(
                    refusal.reason, path: hierarchy.path,  // the gate's frame is this service's
                    message: "Graft: resolution failed: \(refusal.description)"))
        } else if !hierarchy.hasFailed {
            hierarchy.fail(
                ResolutionError(
                    .factoryFailed(thrown), path: hierarchy.path,  // with this factory still on the path
                    message: "Graft: resolution failed: the factory of \(Hierarchy.label(self)) threw \(thrown)"))
        }
        // The factory's frame is still pushed: the call that ran it is one level up.
        hierarchy.logFailure(level: hierarchy.frameCount - 1)
    }

    private func runInitCompleted(_ made: Service, in hierarchy: Hierarchy, resolver: Resolver) {
        let actions = initCompletedActions  // a local copy: an action may add more
        hierarchy.runCompletion(self) {
            withUnsafePointer(to: made) { instance in
                for action in actions { action(resolver, UnsafeRawPointer(instance)) }
            }
        }
    }

    /// Whether the scope already holds an instance for the resolution in flight. Asked before
    /// ``keptInstance(in:)`` rather than catching its error: a throw on every transient
    /// construction made it a third slower.
    private func isKeepingAnInstance(in hierarchy: Hierarchy) -> Bool {
        switch scopeKind {
        case .transient: false
        case .graph: hasGraphInstance
        case .container: hasInstance
        case .weak: hasGraphInstance || weakInstance != nil
        case .custom: storageHoldsAnInstance(in: hierarchy)
        }
    }

    /// Whether the custom storage holds a `Service` for the current graph (a value of another type
    /// counts as none). Out of line, and asked with `is`: a `Service?` here would cost every
    /// construction in unspecialized code a metadata lookup, custom scope or not.
    @inline(never)
    private func storageHoldsAnInstance(in hierarchy: Hierarchy) -> Bool {
        guard let stored = storage?.instance(inGraph: hierarchy.currentGraph) else { return false }
        return stored is Service
    }

    /// The instance the scope holds; only after ``isKeepingAnInstance(in:)`` said there is one.
    @inline(never)
    private func keptInstance(in hierarchy: Hierarchy) throws(ResolutionFailed) -> Service {
        switch scopeKind {
        case .graph: if hasGraphInstance { return graphInstance }
        case .container: if hasInstance { return instance }
        case .weak:
            if hasGraphInstance { return graphInstance }
            if let object = weakInstance, let instance = object as? Service { return instance }
        case .custom:
            if let stored = storedInstance(in: hierarchy) { return stored }
        case .transient: break
        }
        throw ResolutionFailed()
    }

    @inline(__always)
    private func nextKeptGeneration() -> Int {
        keptGeneration &+= 1
        return keptGeneration
    }

    /// Keeps a new instance as the scope says, noting it so a failed resolution can drop it.
    private func keep(_ made: Service, in hierarchy: Hierarchy) {
        switch scopeKind {
        case .transient:
            return
        case .graph:
            setGraphInstance(made, in: hierarchy)
            hierarchy.holdsGraphInstance(self, cell: cell)
        case .container:
            setInstance(made)
            hierarchy.keptNewInstance(self, generation: nextKeptGeneration())
        case .weak:
            setGraphInstance(made, in: hierarchy)
            weakInstance = WeakStorage.referenceOrNil(made)
            hierarchy.holdsGraphInstance(self, cell: cell)
            hierarchy.keptNewInstance(self, generation: nextKeptGeneration())
        case .custom:
            storage?.setInstance(made, inGraph: hierarchy.currentGraph)
            if !cell.isListedInGraph {
                cell.isListedInGraph = true
                hierarchy.holdsGraphInstance(self, cell: cell)
            }
            hierarchy.keptNewInstance(self, generation: nextKeptGeneration())
        }
    }
}

// Validation (Container.validate()): while it runs, every entry reachable is in the graph scope
// (`Container.validate()` sets and restores `scopeKind`), so the path keeps nothing beyond the
// validation's graph and leaves each scope's own instances alone.
extension ServiceEntry {
    /// A resolution with arguments is observed here; one without, where the validation's resolver
    /// receives it (a `.container` hit never reaches the entry).
    @inline(never) @usableFromInline
    func observeForValidation(in container: Container, arguments: UnsafeRawPointer?) {
        guard arguments != nil else { return }
        container.hierarchy.validation?.observe(self, in: container.hierarchy)
    }

    @usableFromInline
    func validateAsRoot(in container: Container, resolver: Resolver) -> Bool {
        do {
            _ = try construct(in: container.hierarchy, resolver: resolver, arguments: nil, opensRequest: true)
            return true
        } catch {
            return false
        }
    }
}
