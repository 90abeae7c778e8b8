// Graft — MIT License.

// The planned path: a transient or graph-scoped registration with a plain factory (or a throwing
// one without arguments, such as an autoregistration or a factory that `require`s) and no
// `initCompleted` action is constructed in two halves around a factory call specialized in the
// caller (see Documentation/Internals/ResolutionPath.md).

extension Container {
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
    ) throws(ResolutionFailed) -> Service {
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
            let resolver: Resolver = self  // one existential for both calls: making one retains
            // The plan is set only for an entry with a plain factory or a throwing one without
            // arguments; the throwing one is called out of line, so a plain factory's call has no
            // error handling around it.
            let made: Service
            if let factory = entry.plainFactory {
                made = factory(resolver)
            } else {
                made = try entry.callPlannedThrowingFactory(resolver, from: start, in: hierarchy)
            }
            let finish =
                cell.plan == InstanceCell.planGraph
                ? entry.finishPlannedInGraph(made, from: start, in: hierarchy, resolver: resolver)
                : entry.finishPlanned(made, from: start, in: hierarchy, resolver: resolver)
            switch finish {
            case .made: return made
            case .failed: throw ResolutionFailed()
            case .kept: return try entry.finishKept(from: start, in: hierarchy)
            }
        case .refused:
            throw ResolutionFailed()
        case .general:
            return try entry.resolveOrFail(as: Service.self, in: self, resolver: self, arguments: nil)
        }
    }
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
    let request: ResolutionState.Request?
    let outerFrame: Int

    init(_ outcome: Outcome, request: ResolutionState.Request? = nil, outerFrame: Int = -1) {
        self.outcome = outcome
        self.request = request
        self.outerFrame = outerFrame
    }
}

extension ServiceEntry {
    /// The first half of a planned construction (``Container/resolvePlanned(_:cell:as:resolver:)``):
    /// what `resolve(as:in:resolver:arguments:)` and `construct` do before the factory runs.
    @usableFromInline
    func beginPlanned(in hierarchy: Hierarchy) -> PlannedStart {
        // Validation observes and rescopes; a recalled graph may hold this entry's instance.
        if _slowPath(hierarchy.diagnostics.isValidating || hierarchy.resolution.recalled != nil) {
            return PlannedStart(.general)
        }
        cell.countResolution()
        let request: ResolutionState.Request?
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
    func finishPlanned(
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
        if keepsInGraphInline && scopeKind == .graph && !hierarchy.resolution.hasFailed && !hasInitCompletedActions {
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

    /// Calls a planned entry's throwing factory (the plan is set for one only when it takes no
    /// arguments). If it throws, the resolution fails as `constructWithThrowingFactory` fails it
    /// (``failConstruction(throwing:outerFrame:request:marks:in:)``).
    @usableFromInline
    func callPlannedThrowingFactory(
        _ resolver: Resolver,
        from start: PlannedStart,
        in hierarchy: Hierarchy
    ) throws(ResolutionFailed) -> Service {
        assert(!takesArguments, "ServiceEntry: a planned throwing factory that takes arguments")
        let marks = hierarchy.marks
        do {
            return try throwingFactory!(resolver, zeroSizedArguments)
        } catch {
            failConstruction(
                throwing: error, outerFrame: start.outerFrame, request: start.request, marks: marks, in: hierarchy)
            throw ResolutionFailed()
        }
    }

    /// After ``finishPlanned(_:from:in:resolver:)`` said `.kept`: the kept instance, and the request ended.
    @usableFromInline
    func finishKept(from start: PlannedStart, in hierarchy: Hierarchy) throws(ResolutionFailed) -> Service {
        try finishWithKeptInstance(in: hierarchy, request: start.request)
    }
}
