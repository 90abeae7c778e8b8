// Graft — MIT License.

// How a construction fails, on every path that constructs: a cycle, the depth limit, a factory
// that threw, or a resolution refused before its factory runs (a main-actor service off the main
// actor). Out of line: message building would otherwise enlarge the stack frame of `construct`,
// which every level of a deep chain keeps on the stack.

extension ServiceEntry {
    /// Fails this resolution with `refusal` as a construction whose factory threw it fails: the
    /// request it opens (or the nested resolution) fails with the registration on the path, logged
    /// once; nothing is made or kept.
    func refuse(_ refusal: RefusedResolution, in hierarchy: SharedState) {
        do {
            let construction = try beginConstruction(in: hierarchy, opensRequest: hierarchy.isAtRequestBase)
            failConstruction(
                throwing: refusal, outerFrame: construction.outerFrame, request: construction.request,
                marks: hierarchy.marks, in: hierarchy)
        } catch {}  // refused already: a cycle, too deep, or the request has failed
    }

    @inline(never)
    func failCycle(in hierarchy: SharedState) {
        let chain = hierarchy.resolution.chain(reentering: self)
        let label = SharedState.label(self)
        let advice =
            hierarchy.frameCount - factoryFrame == 1
            ? "The factory of \(label) resolves \(label) again while it runs. If the recursion ends on its own "
                + "(a counter, a tree of nodes), pass its state as an argument: a registration with arguments may "
                + "resolve itself again. If the factory wants the instance it is making, keep the .graph scope and "
                + "inject a Lazy<\(serviceType)>, read after the factory returns."
            : "Each factory needs the next to be made first; break the cycle by injecting one side in "
                + "`initCompleted`, or through a Lazy."
        failRequest(.circularDependency, message: "Graft: circular dependency: \(chain). " + advice, in: hierarchy)
    }

    @inline(never)
    func failTooDeep(in hierarchy: SharedState) {
        let levels = "Graft: resolution deeper than \(SharedState.maximumDepth) levels"
        let cycle = hierarchy.resolution.repeatingCycle(reentering: self)
        let message =
            switch cycle {
            case .some(let cycle) where cycle.isTransientThroughInitCompleted:
                "\(levels): the cycle \(cycle.chain) repeats. Each pass makes new transient instances, whose "
                    + "initCompleted actions resolve the next again, without end: make one of them .graph (or "
                    + ".container), so that the cycle closes on the instance being made."
            case .some(let cycle):
                "\(levels): the cycle \(cycle.chain) repeats. A recursion that should end did not: check the "
                    + "condition that stops it."
            case .none: "\(levels): \(hierarchy.resolution.chain(reentering: self))"
            }
        failRequest(.tooDeep, message: message, shownPath: cycle?.shownPath, in: hierarchy)
    }

    /// Fails the whole request with a cycle or the depth limit met by a construction's checks
    /// (`message`, this registration last on the path), logged now. A request this construction
    /// opened ends with it (``beginConstruction(in:opensRequest:)``), handing it on to any
    /// request around it; a failure of the whole request is never confined to a factory.
    func failRequest(
        _ reason: ResolutionError.Reason, message: String, shownPath: String? = nil, in hierarchy: SharedState
    ) {
        let path = hierarchy.resolution.path + [SharedState.label(self)]
        hierarchy.fail(ResolutionError(reason, path: path, message: message, shownPath: shownPath))
        assert(hierarchy.resolution.failureEndsRequest, "a construction's check confined its failure")
        keepWhileRefused(in: hierarchy)  // before the logging function
        hierarchy.logFailure()
    }

    /// A refused construction is about to run user code (the logging function, the end of the
    /// request it opened), which may drop this entry (a registration over it, `removeAll`) while
    /// the planned path borrows it: the hierarchy keeps it until no factory runs and no failed
    /// request is ending (``SharedState/releaseLater(_:)``), as it keeps an entry whose factory runs. (Needed where no frame of this entry is pushed, as at
    /// the depth limit or a refusal of a failed request; in a cycle, its running factory's frame
    /// makes a table hand it over anyway. A cycle met by a construction that opened a request is
    /// handed over twice: kept twice, each released once.)
    func keepWhileRefused(in hierarchy: SharedState) {
        hierarchy.releaseLater(self)
    }

    /// The factory threw (or the construction was refused, ``refuse(_:in:)``): the resolution fails
    /// with that error (a `ResolutionError` from a nested `require`, unchanged) or `.factoryFailed`
    /// with the path to this factory. Logged unless logged already, or the call that ran this
    /// factory hands its failure to its caller.
    ///
    /// The failure is recorded with the factory's frame still on the path, then the frame is
    /// popped and the request the construction opened is ended; a construction nested in a
    /// running factory instead drops what it made since `marks` and hands the failure to that
    /// factory (``SharedState/confineFailure(of:from:)``). Every construction whose factory throws
    /// ends this way, whichever path began it.
    func failConstruction(
        throwing thrown: any Error,
        outerFrame: Int,
        request: ResolutionState.Request?,
        marks: ResolutionState.Marks,
        in hierarchy: SharedState
    ) {
        if let error = thrown as? ResolutionError {
            // A failure a nested `require` handed this factory, thrown on: not handled here.
            if !hierarchy.handedFailures.isEmpty { hierarchy.takeBackHandedFailure(error) }
            hierarchy.fail(error)
        } else if !hierarchy.resolution.hasFailed {
            // With the refused registration's (or this factory's) frame still on the path.
            let refusal = thrown as? RefusedResolution
            let what = refusal?.description ?? "the factory of \(SharedState.label(self)) threw \(thrown)"
            hierarchy.fail(
                ResolutionError(
                    refusal?.reason ?? .factoryFailed(thrown), path: hierarchy.resolution.path,
                    message: "Graft: resolution failed: " + what))
        }
        // The factory's frame is still pushed: the call that ran it is one level up.
        hierarchy.logFailure(level: hierarchy.frameCount - 1)
        hierarchy.resolution.leaveFrame(self)
        factoryFrame = outerFrame
        if let request {
            _ = hierarchy.endRequest(request)
        } else if !hierarchy.isAtRequestBase {
            hierarchy.confineFailure(of: self, from: marks)
        }
        // What the factory threw is the application's: the caller's `catch` may hold its last
        // reference, released at this call's frame count, as an instance the construction made.
        hierarchy.dropPastCall(thrown)
    }
}
