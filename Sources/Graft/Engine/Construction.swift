// Graft — MIT License.

// The general path of one entry: the scope is asked for a kept instance, else the entry is
// constructed. A construction, on every path, is one protocol in two halves around the factory
// call: ``ServiceEntry/beginConstruction(in:opensRequest:)`` opens the request and pushes the
// factory's frame; the factory runs; ``ServiceEntry/finishConstruction(_:outerFrame:request:in:resolver:keepsGraphInline:)``
// pops the frame, keeps the instance per scope, runs the `initCompleted` actions and ends the
// request. The general path calls the halves here; the planned path (PlannedPath.swift) calls the
// same halves around a factory call specialized in its caller. Keeping itself is in Keeping.swift.

/// A construction between its two halves (``ServiceEntry/beginConstruction(in:opensRequest:)``
/// and ``ServiceEntry/finishConstruction(_:outerFrame:request:in:resolver:keepsGraphInline:)``): the request it
/// opened, if any, and the entry's frame before the factory's was pushed.
@usableFromInline
struct Construction {
    @usableFromInline let request: ResolutionState.Request?
    let outerFrame: Int
}

/// How the second half of a construction ended.
@usableFromInline
enum ConstructionEnd {
    /// Return the instance the factory made.
    case made
    /// The request failed: the resolution fails.
    case failed
    /// The scope kept another instance while the factory ran (a circular resolution through an
    /// `initCompleted` action): return that one, with ``ServiceEntry/finishWithKeptInstance(dropping:in:request:)``.
    case kept

    /// The resolution's result for this end: `made`, a failure, or the instance the scope kept,
    /// read from `entry` (``ServiceEntry/finishWithKeptInstance(dropping:in:request:)``), which is
    /// only evaluated then. A `made` that is not the result is dropped past the call
    /// (``SharedState/dropPastCall(_:)``).
    @inlinable @inline(__always)
    func result<Service>(
        _ made: Service, keptBy entry: @autoclosure () -> ServiceEntry<Service>, in hierarchy: SharedState,
        request: ResolutionState.Request?
    ) throws(ResolutionFailed) -> Service {
        switch self {
        case .made: return made
        case .failed:
            hierarchy.dropPastCall(made)
            throw ResolutionFailed()
        case .kept: return try entry().finishWithKeptInstance(dropping: made, in: hierarchy, request: request)
        }
    }
}

/// Ends a resolution that cannot produce an instance; the message has been logged already.
/// Typed throws carry the failure without an `Optional<Service>` in unspecialized code, whose
/// metadata the runtime would have to look up on every call.
@usableFromInline
struct ResolutionFailed: Error {
    @usableFromInline init() {}
}

extension ServiceEntry {
    @usableFromInline
    func resolve<Requested>(
        as requested: Requested.Type, in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?
    ) -> Requested? {
        do {
            return try resolveOrFail(as: requested, in: container, resolver: resolver, arguments: arguments)
        } catch {
            return nil
        }
    }

    @usableFromInline @inline(__always)
    func resolveOrFail<Requested>(
        as requested: Requested.Type, in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Requested {
        cell.countResolution()
        if _slowPath(container.hierarchy.diagnostics.entriesNeedChecks),
            !mayResolve(in: container, arguments: arguments)
        {
            throw ResolutionFailed()
        }
        // The static types, never the metatype values: `Requested` is what the caller's key says.
        guard Requested.self == Service.self else {
            return try resolveForwardedOrFail(
                as: Requested.self, in: container, resolver: resolver, arguments: arguments)
        }
        // Same type, checked just above: the cast changes nothing but the static type.
        return unsafeBitCast(
            try resolveInstance(in: container.hierarchy, resolver: resolver, arguments: arguments),
            to: Requested.self)
    }

    /// What the general path asks in a hierarchy that validates or has main-actor
    /// registrations (``HierarchyDiagnostics/entriesNeedChecks``), before the scope is asked: a validation
    /// observes the call; a main-actor registration off the main actor is refused, whatever its
    /// scope keeps, and its factory does not run; on the main actor, it is noted, so that a
    /// wrapper that keeps it hands it to the main actor only.
    /// - Returns: `false` if the resolution was refused (and has failed).
    @inline(never)
    func mayResolve(in container: Container, arguments: UnsafeRawPointer?) -> Bool {
        let hierarchy = container.hierarchy
        // A resolution with arguments is observed here; one without, where the validation's resolver
        // receives it (a `.container` hit never reaches the entry).
        if arguments != nil { hierarchy.diagnostics.validation?.observe(self, in: hierarchy) }
        if kind == .mainActor {
            guard Platform.isOnMainActor() else {
                refuse(.offMainActor(SharedState.label(self)), in: hierarchy)
                return false
            }
            hierarchy.resolution.noteMainActorResult()
        }
        return true
    }

    /// Resolves this entry for a type it was forwarded to (`implements`, `forward`). Out of line,
    /// and without an `Optional` of the requested type: the path of a forwarded type only pays for
    /// the cast.
    @inline(never)
    func resolveForwardedOrFail<Requested>(
        as requested: Requested.Type, in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Requested {
        let instance = try resolveInstance(in: container.hierarchy, resolver: resolver, arguments: arguments)
        if let forwarded = instance as? Requested { return forwarded }
        let error = ResolutionError(
            .wrongType, path: container.hierarchy.resolution.path + [serviceLabel(Requested.self, name: name)],
            message: "Graft: resolution failed: \(Service.self) is forwarded to \(Requested.self), but the instance "
                + "its factory made, of type \(type(of: instance)), is not a \(Requested.self).")
        container.hierarchy.record(error)
        container.hierarchy.logMiss { error.description }
        container.hierarchy.releaseOutsideCall(consume instance, recordingAgain: error)
        throw ResolutionFailed()
    }

    @_transparent
    func resolveInstance(
        in hierarchy: SharedState, resolver: Resolver, arguments: UnsafeRawPointer?
    ) throws(ResolutionFailed) -> Service {
        switch scopeKind {
        case .container:
            if hasInstance { return instance }
            return try constructKept(
                in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: hierarchy.isAtRequestBase)
        case .graph, .weak:
            if hasGraphInstance { return graphInstance }
            // As Swinject's composite of weak and graph storage: `.weak`'s shared instance, while
            // alive, comes before what an earlier resolution of a recalled graph left.
            if scopeKind == .weak, weakInstance != nil {
                do { return try sharedWeakInstance() } catch {}  // released meanwhile: make a new one
            }
            if hierarchy.resolution.graph.recalled != nil, recall(in: hierarchy) { return graphInstance }
        case .transient:
            break
        case .custom:
            return try resolveInStorage(in: hierarchy, resolver: resolver, arguments: arguments)
        }
        return try construct(
            in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: hierarchy.isAtRequestBase)
    }

    /// Constructs an instance: the two halves of a construction around the factory's call.
    func construct(
        in hierarchy: SharedState, resolver: Resolver, arguments: UnsafeRawPointer?, opensRequest: Bool
    ) throws(ResolutionFailed) -> Service {
        // A factory that may throw is called out of line: a `try` around the factory call here
        // would cost every construction a move of the instance through its value witness.
        if _slowPath(hasThrowingFactory) {
            return try constructWithThrowingFactory(
                in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: opensRequest)
        }
        let construction = try beginConstruction(in: hierarchy, opensRequest: opensRequest)
        let made = callFactory(resolver: resolver, arguments: arguments)
        return try finish(made, construction, in: hierarchy, resolver: resolver)
    }

    /// `construct` for an instance the container keeps (a `.container` singleton, a custom scope's):
    /// the instance holds what its factory makes, and the container holds it, so a wrapper made
    /// meanwhile that held ``SynchronizedResolver/current`` (a resolver of this hierarchy) would
    /// keep the container alive until read. So `current` is bound for the construction as
    /// ``WrapperLinks/bindingWhileKeeping(in:by:)`` says. Once per instance kept.
    @inline(never)
    func constructKept(
        in hierarchy: SharedState, resolver: Resolver, arguments: UnsafeRawPointer?, opensRequest: Bool
    ) throws(ResolutionFailed) -> Service {
        guard let rebound = WrapperLinks.bindingWhileKeeping(in: hierarchy, by: link) else {
            return try construct(in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: opensRequest)
        }
        return try ResolverBinding.$bound.withValue(rebound) {
            Result { () throws(ResolutionFailed) -> Service in
                try construct(in: hierarchy, resolver: resolver, arguments: arguments, opensRequest: opensRequest)
            }
        }.get()
    }

    /// `construct` for a factory that may throw: the same halves.
    @inline(never)
    func constructWithThrowingFactory(
        in hierarchy: SharedState, resolver: Resolver, arguments: UnsafeRawPointer?, opensRequest: Bool
    ) throws(ResolutionFailed) -> Service {
        let construction = try beginConstruction(in: hierarchy, opensRequest: opensRequest)
        let made = try callThrowingFactory(
            resolver, arguments: arguments, outerFrame: construction.outerFrame, request: construction.request,
            in: hierarchy)
        return try finish(made, construction, in: hierarchy, resolver: resolver)
    }

    /// The general path's second half: ``finishConstruction(_:outerFrame:request:in:resolver:keepsGraphInline:)``,
    /// its end turned into the resolution's result.
    @_transparent
    func finish(
        _ made: Service, _ construction: Construction, in hierarchy: SharedState, resolver: Resolver
    ) throws(ResolutionFailed) -> Service {
        try finishConstruction(
            made, outerFrame: construction.outerFrame, request: construction.request, in: hierarchy, resolver: resolver,
            keepsGraphInline: false
        ).result(made, keptBy: self, in: hierarchy, request: construction.request)
    }

    /// The first half of a construction: opens a request if asked (before the checks, so a cycle
    /// or the depth limit met here ends that request, which hands the failure on to any request
    /// around it), checks that the construction may go on, ending that request if not, and
    /// pushes the factory's frame.
    /// Throws (having failed the resolution) if the request has failed, or this would be a cycle
    /// or too deep.
    @inline(__always)
    func beginConstruction(in hierarchy: SharedState, opensRequest: Bool) throws(ResolutionFailed) -> Construction {
        let request = openRequest(if: opensRequest, in: hierarchy)
        guard canConstruct(in: hierarchy) else {
            // Ending the request may run user code: it logs the failures factories handled.
            if let request {
                keepWhileRefused(in: hierarchy)
                _ = hierarchy.endRequest(request)
            }
            throw ResolutionFailed()
        }
        let outerFrame = factoryFrame
        factoryFrame = hierarchy.pushFactory(self)
        return Construction(request: request, outerFrame: outerFrame)
    }

    /// The second half, once the factory returned: pops its frame, counts the instance, keeps it
    /// per scope (the scope is read again: the factory may have changed it), runs the
    /// `initCompleted` actions, and ends the request. `keepsGraphInline`: the graph scope's
    /// keeping is written inline, without `settle`'s calls (the planned path of a graph-scoped
    /// entry; any other caller would pay for the larger frame).
    @inline(__always)
    func finishConstruction(
        _ made: Service,
        outerFrame: Int,
        request: @autoclosure () -> ResolutionState.Request?,
        in hierarchy: SharedState,
        resolver: Resolver,
        keepsGraphInline: Bool
    ) -> ConstructionEnd {
        hierarchy.resolution.leaveFrame(self)
        factoryFrame = outerFrame
        instanceCount &+= 1
        // The request failed while the factory ran: nothing is kept, and the caller gets `nil`,
        // also when it is a factory of the same request (a cycle below this factory failed the
        // whole request: what was made has a hole in it).
        if _slowPath(hierarchy.resolution.hasFailed) {
            if let request = request() { _ = hierarchy.endRequest(request) }
            return .failed
        }
        if keepsGraphInline && scopeKind == .graph && !hasInitCompletedActions {
            if hasGraphInstance { return .kept }
            setGraphInstance(made, in: hierarchy)
            hierarchy.resolution.holdGraphInstance(self, cell: cell)
        } else if settle(made, in: hierarchy, resolver: resolver) {
            // A kept instance is read before the request ends (ending it may end the graph): the
            // caller does both with ``finishWithKeptInstance(dropping:in:request:)``.
            return .kept
        }
        // The request is read last (an autoclosure): read before the calls above, a planned
        // construction's would be spilled across them.
        if let request = request(), !hierarchy.endRequest(request) { return .failed }
        return .made
    }

    /// Calls a factory that may throw, between the two halves of a construction (its first half
    /// gave `outerFrame` and `request`). If it throws, the construction fails
    /// (``failConstruction(throwing:outerFrame:request:marks:in:)``: the frame popped, the request
    /// ended or the failure confined) and so does the resolution.
    @inline(__always)
    func callThrowingFactory(
        _ resolver: Resolver,
        arguments: UnsafeRawPointer?,
        outerFrame: Int,
        request: @autoclosure () -> ResolutionState.Request?,
        in hierarchy: SharedState
    ) throws(ResolutionFailed) -> Service {
        let marks = hierarchy.marks
        do {
            // Borrowed in release builds (``unretainedExtras``); retained in debug builds, as
            // ``callFactory(resolver:arguments:)`` says why.
            #if DEBUG
                return try throwingFactory!(resolver, arguments ?? zeroSizedArguments)
            #else
                return try unretainedExtras._withUnsafeGuaranteedRef {
                    try $0.throwingFactory!(resolver, arguments ?? zeroSizedArguments)
                }
            #endif
        } catch {
            failConstruction(throwing: error, outerFrame: outerFrame, request: request(), marks: marks, in: hierarchy)
            throw ResolutionFailed()
        }
    }

    // `canConstruct` and `settle` are inlined in release builds; in debug builds they
    // are frames of their own, so their locals are off the stack while the factory (and every
    // level below it) runs.

    /// Opens a request if asked (a call at the request base); else checks that this nested call
    /// is made on the thread of the requests in flight.
    @inline(__always)
    func openRequest(if opens: Bool, in hierarchy: SharedState) -> ResolutionState.Request? {
        if opens { return hierarchy.beginRequest(resolving: SharedState.label(self)) }
        hierarchy.checkNestedCall(resolving: SharedState.label(self))
        return nil
    }

    @inline(__always)
    func canConstruct(in hierarchy: SharedState) -> Bool {
        // The request in flight has failed: it will return nil and keep nothing, so running more
        // factories for it is wasted work (and, keeping nothing, a graph would be rebuilt for
        // every later resolution in it: exponential on a diamond-shaped graph).
        if hierarchy.resolution.hasFailed {
            if _slowPath(hierarchy.diagnostics.isValidating) { hierarchy.explainRefusal(of: self) }
            return false
        }
        if !takesArguments && hierarchy.isConstructorCycle(factoryFrame: factoryFrame) {
            failCycle(in: hierarchy)
            return false
        }
        if hierarchy.frameCount >= SharedState.maximumDepth {
            failTooDeep(in: hierarchy)
            return false
        }
        return true
    }

    /// After the factory, in a request that has not failed: keeps the instance per scope and runs
    /// `initCompleted`.
    /// - Returns: Whether the scope had kept an instance while the factory ran (a circular
    ///   `initCompleted` made one), which is then the result.
    @inline(__always)
    func settle(_ made: Service, in hierarchy: SharedState, resolver: Resolver) -> Bool {
        if scopeKind != .transient {  // a transient keeps nothing: no call to ask or keep
            if isKeepingAnInstance(in: hierarchy) { return true }
            keep(made, in: hierarchy)
        }
        if hasInitCompletedActions { runInitCompleted(made, in: hierarchy, resolver: resolver) }
        return false
    }

    /// Calls a factory that cannot throw (its frame is pushed by the construction's first half).
    @_transparent
    func callFactory(resolver: Resolver, arguments: UnsafeRawPointer?) -> Service {
        // One of the two factories is set (the third, throwing, is called out of line); an argument
        // factory is reached only through a key with argument types, whose resolution passes a
        // pointer to their tuple. A tuple of zero size (one `Void` argument) may be given no
        // address at all: nothing is read from it then, so any aligned address serves.
        // (`if let` and `!`, not `unsafelyUnwrapped`: that generic accessor would reabstract the
        // closure through a heap-allocated thunk on every call.) An argument factory is read
        // borrowed in release builds (``unretainedExtras``); debug builds read it retained, as the
        // borrowing closure would be a frame of its own on every level of a deep chain.
        if hasPlainFactory { return plainFactory(resolver) }
        #if DEBUG
            return argumentFactory!(resolver, arguments ?? zeroSizedArguments)
        #else
            return unretainedExtras._withUnsafeGuaranteedRef {
                $0.argumentFactory!(resolver, arguments ?? zeroSizedArguments)
            }
        #endif
    }

    /// After ``finishConstruction(_:outerFrame:request:in:resolver:keepsGraphInline:)`` said `.kept`: the kept
    /// instance, and the request ended; `made` (and the kept instance, if the request failed at its
    /// end) dropped past the call (``SharedState/dropPastCall(_:)``).
    @inline(never) @usableFromInline
    func finishWithKeptInstance(
        dropping made: Service, in hierarchy: SharedState, request: ResolutionState.Request?
    ) throws(ResolutionFailed) -> Service {
        let kept = Result { () throws(ResolutionFailed) -> Service in try keptInstance(in: hierarchy) }
        let ended = request.map(hierarchy.endRequest) ?? true
        hierarchy.dropPastCall(made)
        guard ended else {
            hierarchy.dropPastCall(kept)
            throw ResolutionFailed()
        }
        return try kept.get()
    }

    func runInitCompleted(_ made: Service, in hierarchy: SharedState, resolver: Resolver) {
        let actions = initCompletedActions  // a local copy: an action may add more
        let outer = hierarchy.resolution.enterCompletion(at: hierarchy.pushFactory(self))
        withUnsafePointer(to: made) { instance in
            for action in actions { action(resolver, UnsafeRawPointer(instance)) }
        }
        hierarchy.resolution.leaveCompletion(outer)
        hierarchy.resolution.leaveFrame(self)
    }
}
