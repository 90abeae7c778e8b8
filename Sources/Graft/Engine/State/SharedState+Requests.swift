// Graft — MIT License.

/// Frames and requests: how a resolution nests, and what a request undoes when it fails.
extension SharedState {
    // MARK: Frames

    @inline(__always)
    func pushFactory(_ entry: AnyServiceEntry) -> Int {
        #if DEBUG
            if resolution.isMovingOut {
                resolution.stopIfAnotherThreadResolves("\(Self.label(entry)) was resolved")
                assertionFailure("SharedState: a factory ran while instances were being moved out")
            }
        #endif
        assertUserCodeMayRun("a factory or initCompleted action")
        return resolution.enterFrame(entry)
    }

    // Queries the path makes on every construction, from the stored fields of ``resolution`` (see
    // ``ResolutionState``: a computed property of it costs a debug build a copy of the whole state).

    var frameCount: Int { resolution.stack.count }

    /// Whether a resolution starting now is a request of its own.
    @inline(__always)
    var isAtRequestBase: Bool { resolution.stack.count == resolution.requestBase }

    /// Whether a construction must take the general path rather than the planned one: validation
    /// observes and rescopes, and a recalled graph may hold the entry's instance.
    @inline(__always)
    var needsGeneralPath: Bool { diagnostics.isValidating || resolution.graph.recalled != nil }

    /// Whether the call at the current frame count hands its failure to its caller.
    var handsFailureToCaller: Bool { resolution.stack.count == resolution.quietLevel }

    /// Re-entering `entry` while its own factory runs, with no `initCompleted` in between, can only
    /// recurse forever: `A`'s factory needs `B`, whose factory needs `A`, and so on.
    /// `factoryFrame` is the entry's own (its running factory's frame, or -1).
    @inline(__always)
    func isConstructorCycle(factoryFrame: Int) -> Bool {
        factoryFrame >= 0 && resolution.completionFrame < factoryFrame
    }

    /// Checks that a resolution the path found nested in the requests in flight (a factory's, or
    /// a cycle) is made on their thread; see ``claimRequests(resolving:)``.
    @inline(__always)
    func checkNestedCall(resolving label: @autoclosure () -> String) {
        if _slowPath(resolution.requestThread != Platform.currentThread()) { Self.stopResolvingOnTwoThreads(label()) }
    }

    /// Where a construction nested in a factory starts: what it makes from there on is its own.
    var marks: ResolutionState.Marks {
        (resolution.kept.list.count, resolution.graph.members.count)
    }

    static func label(_ entry: AnyServiceEntry) -> String {
        serviceLabel(entry.keyType, name: entry.name)
    }

    // MARK: The thread of the requests in flight

    /// Claims the requests in flight for the calling thread, before one opens: the first (at
    /// ``ResolutionState/depth`` 0) records the thread; a request opened inside others must be on
    /// their thread. A plain container is for one thread at a time: a second thread that finds
    /// another's requests in flight would take them for its own nesting (a cycle, a failure that
    /// is not its own, a `nil`), so the program stops instead, saying what to do. Not every
    /// overlap is seen: two calls that enter at the same instant both find depth 0.
    @inline(__always)
    func claimRequests(resolving label: @autoclosure () -> String) {
        if _slowPath(!resolution.claimRequests(for: Platform.currentThread())) {
            Self.stopResolvingOnTwoThreads(label())
        }
    }

    @inline(never)
    static func stopResolvingOnTwoThreads(_ label: String) -> Never {
        stopOnTwoThreads("\(label) was resolved")
    }

    /// The stop for a plain hierarchy used from two threads at once, `event` saying what the
    /// second thread did ("`X` was resolved") and `other` what the first one was doing.
    @inline(never)
    static func stopOnTwoThreads(
        _ event: String, while other: String = "another thread's resolution was in flight"
    ) -> Never {
        stop(
            "Graft: \(event) while \(other) in the same plain Container hierarchy: a Container is used from two "
                + "threads at once. A plain Container (and every container of its hierarchy) resolves on one thread "
                + "at a time; resolve through container.synchronize(), whose view runs each call under the "
                + "hierarchy's mutex and may be shared by every thread. (If this thread uses a view already, another "
                + "thread is using a plain container of this hierarchy, or a factory handed work to another thread "
                + "that resolves while the factory waits.)")
    }

    // MARK: Requests

    @inline(__always)
    func beginRequest(resolving label: @autoclosure () -> String) -> ResolutionState.Request {
        claimRequests(resolving: label())
        assertUserCodeMayRun("a resolution")
        return resolution.startRequest(suspendingFailure: resolution.hasFailed && setFailureAsideForRequest())
    }

    /// ``setFailureAside()`` for a request about to start; a whole request's failure, which is not
    /// set aside, the request inherits (``ResolutionState/noteRequestStartsFailed()``).
    @inline(never)
    private func setFailureAsideForRequest() -> Bool {
        if setFailureAside() { return true }
        resolution.noteRequestStartsFailed()
        return false
    }

    /// Whether the request ending now is the application's, succeeded, and made nothing to keep
    /// or drop, with nothing for the general end to do: it ends through
    /// ``ResolutionState/endPlainRequest()``.
    @inline(__always)
    func endsAsPlainRequest(_ request: ResolutionState.Request) -> Bool {
        resolution.depth == 1 && !resolution.hasFailed && !request.suspendsFailure
            && resolution.graph.members.isEmpty && resolution.kept.list.isEmpty && !resolution.mayHaveLaterReleases
    }

    /// Ends a request: on failure drops everything it made; ends the graph when nothing holds it open.
    /// - Returns: Whether the request succeeded.
    @inline(__always)
    func endRequest(_ request: ResolutionState.Request) -> Bool {
        if endsAsPlainRequest(request) {
            resolution.endPlainRequest()
            return true
        }
        return endRequestInGeneral(request)
    }

    func endRequestInGeneral(_ request: ResolutionState.Request) -> Bool {
        // Whether it failed first: the path of a request that succeeded does not start with the
        // hint's test, which keeps the hint's load off it.
        if resolution.hasFailed || request.suspendsFailure { return endRequestChangingFailure(request) }
        if resolution.mayHaveLaterReleases && !handedFailures.isEmpty { logHandledFailures() }
        if _slowPath(diagnostics.isValidating) { noteKeptForValidation(from: request.keptMark) }
        var teardown = resolution.startTeardown()
        uncheckedSection { resolution.endSucceededRequest(request, into: &teardown) }
        finish(&teardown)
        forgetLastErrorUnlessRead(aCallMayRead: false)
        return true
    }

    /// Ends a request that failed, or set a failure aside. Out of line: the path of a request that
    /// succeeds carries none of it.
    @inline(never)
    func endRequestChangingFailure(_ request: ResolutionState.Request) -> Bool {
        if resolution.mayHaveLaterReleases && !handedFailures.isEmpty { logHandledFailures() }
        if _slowPath(diagnostics.isValidating) { noteKeptForValidation(from: request.keptMark) }
        if resolution.hasFailed { reportFailureOfEndingRequest() }
        var teardown = resolution.startTeardown()
        let end = uncheckedSection { resolution.endRequestChangingFailure(request, into: &teardown) }
        finish(&teardown, recordingAgain: end.failure)
        release(end.released)
        forgetLastErrorUnlessRead(aCallMayRead: end.failure != nil)
        return end.failure == nil
    }

    /// The request ending has failed: its failure is logged (unless a call logged it, or hands it
    /// to its caller), recorded for the `require` or `Lazy` that waits on it, and printed if it is
    /// the request the application started and its call returns `nil`. Out of line: the path of a
    /// request that succeeds carries none of it.
    @inline(never)
    func reportFailureOfEndingRequest() {
        guard let failure = resolution.failure else { return }
        logFailure()
        // A whole request's failure that this request hands on was recorded where it was met (and
        // is printed by the request that ends with it): recorded again, it would read as this
        // request's own to the wrapper that opened it, which was refused for it.
        if resolution.endingRequestHandsFailureOn { return }
        record(failure)
        if frameCount == 0 && !handsFailureToCaller && !diagnostics.isValidating { Container.printUnhandled(failure) }
    }

    /// What the validation's requests keep it drops at its end: noted before the request makes it
    /// final (a request that failed keeps nothing).
    @inline(never)
    func noteKeptForValidation(from mark: Int) {
        if !resolution.hasFailed { diagnostics.validation?.kept += resolution.kept.list.dropFirst(mark) }
    }

    /// Releases ``ResolutionState/lastError`` once no call is left to read it: the outermost resolution has ended
    /// and no call that hands its failure to its caller (`require`, a `Lazy`, `validate()`) is
    /// open, or one is but will not read it (`aCallMayRead` false: its request succeeded, or the
    /// `withObjectGraph` scope whose calls read theirs inside it has ended). The error may hold
    /// what owns this hierarchy (a factory's error holding its resolver, or a `Lazy`): kept past
    /// its call, it would keep the hierarchy alive for good. The calls that read it release it
    /// once read (``failure(since:)``).
    @inline(__always)
    func forgetLastErrorUnlessRead(aCallMayRead: Bool = true) {
        if resolution.depth == 0 && (resolution.quietLevel < 0 || !aCallMayRead) && resolution.lastError != nil
            && !diagnostics.isValidating
        {
            release(uncheckedSection { resolution.forgetLastError() })
        }
    }

    // MARK: Nested failures

    /// A construction nested in a running factory failed (a cycle, the depth limit, its factory
    /// threw): the failure is that nested resolution's, and the factory that asked gets `nil` (or
    /// the error `require` throws) and goes on. Drops what the construction made since `marks`,
    /// in every scope, leaving what the enclosing request had made before; the failure stays
    /// recorded for `require`, is logged once (now if its call logs, else when the request ends
    /// unless a factory throws it on), and the request in flight goes on unfailed.
    func confineFailure(of entry: AnyServiceEntry, from marks: ResolutionState.Marks) {
        guard var confined = uncheckedSection({ resolution.confineFailure(from: marks) }) else { return }
        if _slowPath(diagnostics.isValidating), let outer = resolution.innermostEntry {
            diagnostics.validation?.observeHandledFailure(confined.failure, of: entry, by: outer)
        }
        if !confined.failure.isLogged {
            // Its call hands it to its caller (a `require` in a factory): if the factory catches
            // it, it is logged when the request ends; if it throws it on, that failure is logged
            // where it ends.
            handedFailures.append((confined.failure, frameCount))
            resolution.expectGeneralEnd()
        }
        finish(&confined.teardown, recordingAgain: confined.failure)
        release(confined.failure)
    }

    /// Finishes the teardown of a request that ended with `failure`, if any: the teardown releases
    /// instances whose `deinit`s may resolve, and record failures of their own or (a request of
    /// theirs that succeeded) forget the last one, so that failure is recorded again after them,
    /// and the `require` (or `Lazy`) waiting on it reads its own failure, not one of theirs, nor none.
    private func finish(_ teardown: inout ResolutionState.Teardown, recordingAgain failure: ResolutionError?) {
        recordingAgain(failure) { finish(&teardown) }
    }

    /// Runs `body`, user code that may record failures of its own or forget the last one, then
    /// records `failure` again if it did: the call waiting on `failure` reads it, not one of theirs.
    /// With `keeping`, the record is not forgotten at the end of a call (``record(_:)`` would):
    /// that call reads it after this, and forgets it once read.
    func recordingAgain(_ failure: ResolutionError?, keeping: Bool = false, after body: () -> Void) {
        let errors = resolution.errorCount
        body()
        guard resolution.errorCount != errors || resolution.lastError == nil, let failure else { return }
        if keeping { release(uncheckedSection { resolution.record(failure) }) } else { record(failure) }
    }

    /// A factory threw `error`, a failure a nested call handed it: it is not handled, and is
    /// logged (or thrown) where the factory's own failure ends.
    func takeBackHandedFailure(_ error: ResolutionError) {
        guard let index = handedFailures.lastIndex(where: { Self.isSame($0.error, error) }) else { return }
        release(handedFailures.remove(at: index).error)  // released once the list is consistent
    }

    /// Logs the failures handed to factories that returned since (those whose call was deeper
    /// than the frames running now): each factory handled its failure and went on.
    func logHandledFailures() {
        var handled = handedFailures.filter { $0.level > frameCount }
        handedFailures.removeAll { $0.level > frameCount }
        // The logging function is user code, no part of the call at this frame count: a failure
        // of a resolution it makes is logged, not taken for that call's.
        outsideCall { for (error, _) in handled { log { error.description } } }
        while let (error, _) = handled.popLast() { release(error) }
    }

    static func isSame(_ one: ResolutionError, _ other: ResolutionError) -> Bool {
        one.message == other.message && one.path == other.path
    }

    /// Why a resolution of `label` started when ``ResolutionState/errorCount`` was `errors`
    /// returned `nil`: the failure recorded since (a failed request, a wrong type), else the
    /// refusal of a resolution whose request had failed already (that failure's reason, this
    /// resolution's path, and the failure under it); `nil` for a missing registration.
    func failure(since errors: Int, resolving label: @autoclosure () -> String) -> ResolutionError? {
        if resolution.errorCount != errors, let lastError = resolution.lastError {
            defer { forgetLastErrorUnlessRead() }
            return lastError
        }
        guard let failure = resolution.failure else { return nil }
        let earlier = failure.message.hasPrefix("Graft: ") ? String(failure.message.dropFirst(7)) : failure.message
        return ResolutionError(
            failure.reason, path: resolution.path + [label()],
            message: "Graft: \(label()) was not resolved: the resolution it is part of had failed (\(earlier)"
                + (failure.path.count > 1 ? " Path: \(failure.path.joined(separator: " -> ")))" : ")"))
    }

    /// Sets aside the failure of the request in flight, if it has failed, for a resolution that
    /// is not refused for it: a `Provider` (or a `Lazy` made outside any graph) read in a factory
    /// after its request failed resolves its service as it would have before. What that
    /// resolution keeps stays part of the request, which drops it when it ends. Pass what this
    /// returns to ``takeBackFailure(_:)``. Not inlined: a call to a mutating method of the state
    /// on the path of every request makes the optimizer keep the state's address in a register
    /// across the factory's call (spilled and reloaded).
    @inline(never)
    func setFailureAside() -> Bool {
        resolution.hasFailed && resolution.setFailureAside()
    }

    /// Gives back the failure ``setFailureAside()`` set aside, if it did; a failure of the
    /// resolution between them is recorded already (``record(_:)``) and is dropped here.
    func takeBackFailure(_ wasSetAside: Bool) {
        if wasSetAside { release(uncheckedSection { resolution.takeBackFailure() }) }
    }

    /// What a caller that gives its result to user code (a `Lazy`, a `Provider`, `@Injected`,
    /// `@MainInjected`, `~>`) returns for a resolution that failed with `error`: for an `Optional`
    /// service type, `nil` (an `Optional` asked for is a "maybe", as `resolve` makes it), with the
    /// failure logged under the mutex; for any other type no value, and the caller reports the
    /// failure itself.
    func absentAfterFailure<Service>(of _: Service.Type, _ error: ResolutionError) -> Service? {
        guard let absent = absentValue(of: Service.self) else { return nil }
        logFailureAnswered(error)
        return absent
    }

    /// Logs `error`, the failure of a call that answers user code without it (an optional's `nil`,
    /// a value a nested first access kept), as `resolve` logs it: unless it is the failure of the
    /// request in flight, whose end logs it.
    func logFailureAnswered(_ error: ResolutionError) {
        withLock {
            if let failure = resolution.failure, Self.isSame(failure, error) { return }
            takeBackHandedFailure(error)  // logged here, not again when the request ends
            log { error.description }
        }
    }

    /// Marks the resolution in flight as failed: a request returns `nil` and keeps nothing it
    /// made; a construction nested in a running factory confines the failure to itself
    /// (``confineFailure(of:from:)``).
    func fail(_ error: ResolutionError) {
        if uncheckedSection({ resolution.fail(error) }) { record(error) }
    }

    /// Notes why a resolution returned `nil` without failing the request (a forwarded type whose
    /// instance is of another type), for a `require` waiting on it.
    func record(_ error: ResolutionError) {
        // The error replaced may hold what a factory threw: released after the store, now or at
        // the end of the request or call (``release(_:)``).
        // A record made inside a request is forgotten when it ends (the transition sends its end
        // down the general path, where ``forgetLastErrorUnlessRead()`` runs).
        let replaced = uncheckedSection { resolution.record(error) }
        release(replaced)
        forgetLastErrorUnlessRead()
    }

    /// Releases `error`, which an unchecked section returned or a list gave up, through a call
    /// the optimizer cannot move the section's stores past. It may hold the last reference to what
    /// a factory threw, whose `deinit` is user code that may fail a resolution of its own: released
    /// now only where that resolution is a request of its own (``mayReleaseLater``) and no call in
    /// flight would take its failure for the call's own (a `require`, a `Lazy`, `validate()`);
    /// else at the end of the request or of that call (``releaseLater(_:)``).
    @inline(never)
    func release(_ error: __owned ResolutionError?) {
        guard let error else { return }
        if mayReleaseLater && !handsFailureToCaller { withExtendedLifetime(error) {} } else { releaseLater(error) }
    }

    /// Releases an entry a table no longer holds (replaced by a registration, or `removeAll`):
    /// now, or, while its factory runs, once no factory runs (``releaseLater(_:)``). The planned path runs
    /// a factory holding its entry unretained, at the top level and nested
    /// (``Container/resolveTopLevel(_:cell:as:)``), so an entry whose factory is running must
    /// outlive the request; any other entry goes at once (a resolution that replaces
    /// registrations again and again keeps none of them).
    @usableFromInline
    func dropEntry(_ entry: __owned AnyServiceEntry) {
        if entry.factoryFrame >= 0 { releaseLater(entry) }
    }

    /// ``dropEntry(_:)`` for every entry of `table`, which is about to drop them all (with no
    /// resolution in flight, no factory runs).
    func keepEntriesWhileResolving(_ table: RegistrationTable) {
        if resolution.depth > 0 { for (_, entry) in table.registrations { dropEntry(entry) } }
    }

    /// Keeps `value` until nothing in flight may borrow it (``mayReleaseLater``), then releases
    /// it: at the end of a request or of a call that hands its failure to its caller.
    func releaseLater(_ value: Any) {
        laterReleases.append(value)
        resolution.expectGeneralEnd()
    }
}
