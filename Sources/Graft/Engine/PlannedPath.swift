// Graft — MIT License.

// The planned path: a transient or graph-scoped registration with a plain factory (or a throwing
// one without arguments, such as an autoregistration or a factory that `require`s) and no
// `initCompleted` action is constructed by the one construction protocol (Construction.swift),
// its two halves called out of line around a factory call specialized in the caller (see
// Documentation/Internals/ResolutionPath.md). It is not a second protocol: only where the factory
// is called differs.

extension Container {
    /// A transient or graph-scoped entry with a plain factory, or a throwing one without
    /// arguments, and no `initCompleted` action (the cell's plan says so): the graph's instance if
    /// it has one, else the factory is called here, specialized in the caller, between the two
    /// halves of a construction that the entry runs out of line (``ServiceEntry/beginPlanned(in:)``, ``ServiceEntry/finishPlanned(_:from:in:resolver:)``).
    /// What these halves do not cover (validation, a recalled graph) they leave to the general path.
    @inlinable
    func resolvePlanned<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>, cell: InstanceCell, as serviceType: Service.Type
    ) throws(ResolutionFailed) -> Service {
        // Unspecialized code has read the graph's instance already (`resolveRegistered`).
        if _isConcrete(Service.self), cell.hasPlannedGraphInstance {
            cell.countResolution()
            return cell.graphInstance(as: Service.self)
        }
        // With no request in flight, a plain factory's request needs no nesting bookkeeping. (The
        // hint keeps the call out of the way of nested resolutions, the more frequent.)
        if _slowPath(hierarchy.resolution.depth == 0) { return try resolveTopLevel(slot, cell: cell, as: serviceType) }
        return try resolvePlannedConstruction(Self.entry(in: slot, as: serviceType), cell: cell)
    }

    /// The entry of a direct slot, unretained. A direct cell belongs to a `ServiceEntry` of the
    /// key's own type (see `RegistrationTable.Slot`): the cast only states that (and is checked in
    /// debug builds).
    @inlinable @inline(__always)
    static func entry<Service>(
        in slot: UnsafeMutablePointer<RegistrationTable.Slot>, as serviceType: Service.Type
    ) -> Unmanaged<ServiceEntry<Service>> {
        Unmanaged.passUnretained(unsafeDowncast(slot.pointee.entry.unsafelyUnwrapped, to: ServiceEntry<Service>.self))
    }

    /// Calls the plain factory of an entry held unretained, checked as ``borrowing(_:_:)`` checks.
    /// Release builds call it in a closure of their own: one returning the generic type, passed
    /// on through `borrowing`, costs instructions.
    @inlinable @inline(__always)
    static func callPlainFactory<Service>(
        of unretained: Unmanaged<ServiceEntry<Service>>, resolver: Resolver
    ) -> Service {
        #if DEBUG
            return borrowing(unretained) { $0.plainFactory(resolver) }
        #else
            return unretained._withUnsafeGuaranteedRef { $0.plainFactory(resolver) }
        #endif
    }

    /// `body` with the entry of `unretained`, borrowed. Debug builds hold it beside and check,
    /// when `body` returns, that something else still holds it (the invariant of
    /// ``resolveTopLevel(_:cell:as:)``): the first half and the factories are checked this way,
    /// and so is the unretained second half, whose closure captures the instance made, a value
    /// of the generic type; passed on through here, such a closure costs instructions, so release
    /// builds call it directly.
    @inlinable @inline(__always)
    static func borrowing<Service, Result>(
        _ unretained: Unmanaged<ServiceEntry<Service>>, _ body: (ServiceEntry<Service>) -> Result
    ) -> Result {
        #if DEBUG
            var held = unretained.takeUnretainedValue()
            let result = body(held)
            assert(!isKnownUniquelyReferenced(&held), "Graft: an entry was released while the planned path borrowed it")
            return result
        #else
            return unretained._withUnsafeGuaranteedRef(body)
        #endif
    }

    /// ``resolvePlanned(_:cell:as:)`` past its graph instance and its plain request: the
    /// construction's two halves around the factory call.
    ///
    /// The entry unretained until the factory returns, under ``resolveTopLevel(_:cell:as:)``'s
    /// invariant (its `factoryFrame` is set from the first half on, so a table that drops it hands
    /// it to the hierarchy), a plain factory's or a throwing one's. A nested construction (no
    /// request of its own) whose plan the factory left as it was keeps it unretained through the
    /// second half too, which then runs no user code; any other retains it before the second half,
    /// and a throwing factory's failure before it begins.
    @inlinable @inline(__always)
    func resolvePlannedConstruction<Service>(
        _ unretained: Unmanaged<ServiceEntry<Service>>, cell: InstanceCell
    ) throws(ResolutionFailed) -> Service {
        let start = Self.borrowing(unretained) { $0.beginPlanned(in: hierarchy) }
        switch start.outcome {
        case .factory:
            break
        case .refused:
            throw ResolutionFailed()
        case .general:
            return try unretained.takeUnretainedValue().resolveOrFail(
                as: Service.self, in: self, resolver: self, arguments: nil)
        }
        let resolver: Resolver = self  // one existential for both calls: making one retains
        // The plan is set only for an entry with a plain factory or a throwing one without
        // arguments; the throwing one is called out of line, so a plain factory's call has no
        // error handling around it.
        let plain = unretained._withUnsafeGuaranteedRef({ $0.hasPlainFactory })
        let plan = cell.plan
        let made =
            _fastPath(plain)
            ? Self.callPlainFactory(of: unretained, resolver: resolver)
            : try Self.callPlannedThrowingFactory(of: unretained, resolver, from: start, in: hierarchy)
        guard start.request == nil && cell.plan == plan else {
            // Ending a request, or keeping as a scope or actions the factory set, may run user
            // code: the entry retained.
            let entry = unretained.takeUnretainedValue()
            let finish =
                cell.plan == InstanceCell.planGraph
                ? entry.finishPlannedInGraph(made, from: start, in: hierarchy, resolver: resolver)
                : entry.finishPlanned(made, from: start, in: hierarchy, resolver: resolver)
            return try finish.result(made, keptBy: entry, in: hierarchy, request: start.request)
        }
        #if DEBUG
            var held = unretained.takeUnretainedValue()  // checked as in `borrowing`, on return
            defer { assert(!isKnownUniquelyReferenced(&held), "Graft: an entry was released in its second half") }
        #endif
        let finish = unretained._withUnsafeGuaranteedRef {
            plan == InstanceCell.planGraph
                ? $0.finishPlannedInGraph(made, from: start, in: hierarchy, resolver: resolver)
                : $0.finishPlanned(made, from: start, in: hierarchy, resolver: resolver)
        }
        return try finish.result(made, keptBy: unretained.takeUnretainedValue(), in: hierarchy, request: nil)
    }
}

extension Container {
    /// Calls a planned entry's throwing factory (the plan is set for one only when it takes no
    /// arguments) as the general path calls one (``ServiceEntry/callThrowingFactory(_:arguments:outerFrame:request:in:)``),
    /// the entry unretained under ``resolvePlannedConstruction(_:cell:)``'s invariant, as a plain
    /// factory's, and so are the extras holding the factory and the factory's captures. If it
    /// throws, the failure runs user code (the logging function, the release of
    /// what the request made) and may end the request: the entry is retained for it. Not a method
    /// of the entry, whose `self` is guaranteed for the whole call, so that a reference to it
    /// taken inside could be optimized away; nor of its type, whose metadata a static function
    /// would ask for on every call.
    @usableFromInline
    static func callPlannedThrowingFactory<Service>(
        of unretained: Unmanaged<ServiceEntry<Service>>, _ resolver: Resolver, from start: PlannedStart,
        in hierarchy: SharedState
    ) throws(ResolutionFailed) -> Service {
        assert(!unretained._withUnsafeGuaranteedRef { $0.takesArguments }, "a planned throwing factory with arguments")
        let marks = hierarchy.marks
        do {
            #if DEBUG
                return try borrowing(unretained) { entry in
                    Result { try entry.throwingFactory!(resolver, zeroSizedArguments) }
                }.get()
            #else
                // The extras borrowed too (``ServiceEntry/unretainedExtras``).
                let extras = unretained._withUnsafeGuaranteedRef { $0.unretainedExtras }
                return try extras._withUnsafeGuaranteedRef { try $0.throwingFactory!(resolver, zeroSizedArguments) }
            #endif
        } catch {
            unretained.takeUnretainedValue().failConstruction(
                throwing: error, outerFrame: start.outerFrame, request: start.request, marks: marks, in: hierarchy)
            throw ResolutionFailed()
        }
    }
}

extension Container {
    /// A planned entry's resolution with no request in flight: its plain request
    /// (``ServiceEntry/beginPlainRequest(in:)``), or ``resolvePlannedConstruction(_:cell:)``
    /// when it cannot begin one. The whole request in one frame, out of line (nested resolutions,
    /// which run the callers unspecialized, would pay for it), specialized in the caller.
    ///
    /// The entry unretained. The invariant: the slot's table holds the entry when the request
    /// begins, and no release of it is the last until the request ends. While a resolution runs,
    /// a table drops an entry when a registration replaces it or `removeAll` empties the table,
    /// and both hand an entry whose factory is running to the hierarchy, which releases it once
    /// no factory runs (``SharedState/dropEntry(_:)``); so does a refused construction
    /// before the user code its refusal runs. The table's container is this one or an ancestor,
    /// which the caller's reference keeps alive. No value of a type built on `Service` (an enum, an
    /// `Optional`): unspecialized, each would ask the runtime for its metadata.
    @inlinable @inline(never)
    func resolveTopLevel<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>, cell: InstanceCell, as serviceType: Service.Type
    ) throws(ResolutionFailed) -> Service {
        let unretained = Self.entry(in: slot, as: serviceType)
        let hierarchy = self.hierarchy
        guard unretained._withUnsafeGuaranteedRef({ $0.hasPlainFactory && $0.beginPlainRequest(in: hierarchy) }) else {
            return try resolveUnplainTopLevel(unretained, cell: cell)
        }
        let made = Self.callPlainFactory(of: unretained, resolver: self)
        if unretained._withUnsafeGuaranteedRef({ $0.endPlainRequest(in: hierarchy) }) { return made }
        // The general end may run user code: the entry retained, while the request holds it.
        return try unretained.takeUnretainedValue().finishPlainRequest(made, in: self)
    }
}

extension Container {
    /// ``resolvePlannedConstruction(_:cell:)`` for a top-level request that cannot be a plain
    /// one (a throwing factory, validation, a recalled graph): out of line, so the plain request's
    /// frame does not pay for the construction's.
    @inlinable @inline(never)
    func resolveUnplainTopLevel<Service>(
        _ unretained: Unmanaged<ServiceEntry<Service>>, cell: InstanceCell
    ) throws(ResolutionFailed) -> Service {
        try resolvePlannedConstruction(unretained, cell: cell)
    }
}

/// How the planned path's first half ended (``ServiceEntry/beginPlanned(in:)``).
@usableFromInline
struct PlannedStart {
    @usableFromInline
    enum Outcome {
        /// The construction has begun: call the factory, then ``ServiceEntry/finishPlanned(_:from:in:resolver:)``.
        case factory
        /// The request has failed, or this would be a cycle or too deep: the resolution fails.
        case refused
        /// Nothing was done: take the general path.
        case general
    }

    @usableFromInline let outcome: Outcome
    // The construction begun, when `outcome` is `.factory`, its fields stored flat: read through
    // a nested struct, the second half would load all of them before the calls it makes.
    @usableFromInline let request: ResolutionState.Request?
    let outerFrame: Int

    init(_ outcome: Outcome, _ construction: Construction = Construction(request: nil, outerFrame: -1)) {
        self.outcome = outcome
        self.request = construction.request
        self.outerFrame = construction.outerFrame
    }
}

extension ServiceEntry {
    /// The planned path's first half (``Container/resolvePlanned(_:cell:as:)``): what the general
    /// path does before the factory runs (the resolution counted, the construction's first
    /// half), unless the hierarchy needs the general path (``SharedState/needsGeneralPath``).
    @usableFromInline
    func beginPlanned(in hierarchy: SharedState) -> PlannedStart {
        if _slowPath(hierarchy.needsGeneralPath) { return PlannedStart(.general) }
        cell.countResolution()
        do {
            return PlannedStart(.factory, try beginConstruction(in: hierarchy, opensRequest: hierarchy.isAtRequestBase))
        } catch {
            return PlannedStart(.refused)
        }
    }

    /// Begins a construction as a request of its own with none in flight
    /// (``ResolutionState/startPlainRequest()``): none can have failed, and no frame is pushed,
    /// so this one is neither a cycle nor too deep. `false` when the hierarchy needs the general
    /// path (``SharedState/needsGeneralPath``).
    @usableFromInline
    func beginPlainRequest(in hierarchy: SharedState) -> Bool {
        if _slowPath(hierarchy.needsGeneralPath) { return false }
        assert(factoryFrame == -1, "ServiceEntry: a factory frame left with no request in flight")
        cell.countResolution()
        hierarchy.claimRequests(resolving: SharedState.label(self))
        hierarchy.assertUserCodeMayRun("a resolution")
        hierarchy.resolution.startPlainRequest()
        factoryFrame = hierarchy.pushFactory(self)
        return true
    }

    /// Ends what ``beginPlainRequest(in:)`` began, when the request made nothing to keep or drop
    /// and did not fail (``SharedState/endsAsPlainRequest(_:)``), and the entry's scope keeps
    /// nothing beyond the request (the factory may have changed it): `false` leaves it to
    /// ``finishPlainRequest(_:in:)``. A graph-scoped instance is not kept when its graph, ending
    /// here, is not remembered (its identifier did not escape).
    @usableFromInline
    func endPlainRequest(in hierarchy: SharedState) -> Bool {
        guard hierarchy.endsAsPlainRequest(ResolutionState.plainRequest), !hasInitCompletedActions,
            scopeKind == .transient || scopeKind == .graph && !hierarchy.resolution.graph.escaped
        else { return false }
        hierarchy.resolution.leaveFrame(self)
        factoryFrame = -1
        instanceCount &+= 1
        hierarchy.resolution.endStartedPlainRequest()
        return true
    }

    /// The general end of what ``beginPlainRequest(in:)`` began: the construction's second half.
    @usableFromInline
    func finishPlainRequest(_ made: Service, in container: Container) throws(ResolutionFailed) -> Service {
        try finish(
            made, Construction(request: ResolutionState.plainRequest, outerFrame: -1), in: container.hierarchy,
            resolver: container)
    }

    /// The planned path's second half: the construction's second half, out of line.
    @usableFromInline
    func finishPlanned(
        _ made: Service, from start: PlannedStart, in hierarchy: SharedState, resolver: Resolver
    ) -> ConstructionEnd {
        finishConstruction(
            made, outerFrame: start.outerFrame, request: start.request, in: hierarchy, resolver: resolver,
            keepsGraphInline: false)
    }

    /// ``finishPlanned(_:from:in:resolver:)`` for a graph-scoped plan: the graph scope's keeping
    /// is inline (a transient plan would pay for the larger frame).
    @usableFromInline
    func finishPlannedInGraph(
        _ made: Service, from start: PlannedStart, in hierarchy: SharedState, resolver: Resolver
    ) -> ConstructionEnd {
        finishConstruction(
            made, outerFrame: start.outerFrame, request: start.request, in: hierarchy, resolver: resolver,
            keepsGraphInline: true)
    }
}
