// Graft — MIT License.

/// Frames and requests: how a resolution nests, and what a request undoes when it fails.
extension Hierarchy {
    // MARK: Frames

    @inline(__always)
    func pushFactory(_ entry: AnyServiceEntry) -> Int {
        #if DEBUG
            if isMovingOut {
                stopIfAnotherThreadResolves("\(Self.label(entry)) was resolved")
                assertionFailure("Hierarchy: a factory ran while instances were being moved out")
            }
        #endif
        assertUserCodeMayRun("a factory or initCompleted action")
        stack.push(Unmanaged.passUnretained(entry))
        return stack.count - 1
    }

    @inline(__always)
    func popFactory(_ entry: AnyServiceEntry) {
        #if DEBUG
            if stack.count == 0
                || stack[stack.count - 1].toOpaque() != Unmanaged.passUnretained(entry as AnyObject).toOpaque()
            {
                stopIfAnotherThreadResolves("\(Self.label(entry)) was resolved")
                assertionFailure("Hierarchy: frame popped by an entry that did not push it")
            }
        #endif
        stack.pop()
    }

    @inline(__always)
    func runCompletion(_ entry: AnyServiceEntry, _ body: () -> Void) {
        let outer = completionFrame
        completionFrame = pushFactory(entry)
        body()
        completionFrame = outer
        popFactory(entry)
    }

    /// Re-entering `entry` while its own factory runs, with no `initCompleted` in between, can only
    /// recurse forever: `A`'s factory needs `B`, whose factory needs `A`, and so on.
    /// `factoryFrame` is the entry's own (its running factory's frame, or -1).
    @inline(__always)
    func isConstructorCycle(factoryFrame: Int) -> Bool {
        factoryFrame >= 0 && completionFrame < factoryFrame
    }

    /// `A -> B -> A`, from the first frame of `entry` to the innermost.
    func chain(reentering entry: AnyServiceEntry) -> String {
        let start = entry.factoryFrame >= 0 ? min(entry.factoryFrame, stack.count) : 0
        let names =
            (start..<stack.count).map { Self.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
            + [Self.label(entry)]
        return names.joined(separator: " -> ")
    }

    /// The frames, and `entry` after them, as a cycle repeated until the depth limit: the cycle
    /// once (`P -> Q -> P`), whether it runs through `initCompleted` actions of transient services
    /// only (which make new instances on every pass), and a short account of the path.
    func repeatingCycle(
        reentering entry: AnyServiceEntry
    ) -> (chain: String, isTransientThroughInitCompleted: Bool, shownPath: String)? {
        let entries = (0..<stack.count).map { stack[$0].takeUnretainedValue() as! AnyServiceEntry } + [entry]
        let last = entries.count - 1
        guard let previous = entries[..<last].lastIndex(where: { $0 === entry }) else { return nil }
        let period = last - previous
        // Where the repetition starts: the first frame from which every frame repeats `period` later.
        var start = previous
        while start > 0 && entries[start - 1] === entries[start - 1 + period] { start -= 1 }
        let repeats = (entries.count - start - 1) / period
        guard repeats >= 2 else { return nil }
        let cycle = entries[previous...]
        let labels = cycle.map { Self.label($0) }
        let isTransient = cycle.allSatisfy { $0.scopeKind == .transient } && completionFrame >= previous
        let lead = entries[..<start].map { Self.label($0) }
        let shown =
            (lead + entries[start...(start + period)].map { Self.label($0) }).joined(separator: " -> ")
            + " -> ... (\(labels.dropLast().joined(separator: " -> ")) \(repeats) times)"
        return (labels.joined(separator: " -> "), isTransient, shown)
    }

    static func label(_ entry: AnyServiceEntry) -> String {
        serviceLabel(entry.keyType, name: entry.name)
    }

    /// The services whose factories (or `initCompleted` actions) are running, outermost first.
    var path: [String] {
        (0..<stack.count).map { Self.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
    }

    /// Whether a resolution starting now is a request of its own.
    @inline(__always)
    var isAtRequestBase: Bool { stack.count == requestBase }

    /// Where a request started, to undo exactly what it made. Trivial (no reference-counted
    /// field), so making and passing one costs no retain.
    @usableFromInline
    struct Request {
        let keptMark: Int
        let graphMark: Int
        /// Whether an enclosing request had failed (its message is on `suspendedFailures`).
        let suspendsFailure: Bool
    }

    // MARK: The thread of the requests in flight

    /// Claims the requests in flight for the calling thread, before one opens: the first (at
    /// ``depth`` 0) records the thread; a request opened inside others must be on their thread.
    /// A plain container is for one thread at a time: a second thread that finds another's
    /// requests in flight would take them for its own nesting (a cycle, a failure that is not its
    /// own, a `nil`), so the program stops instead, saying what to do. Not every overlap is seen:
    /// two calls that enter at the same instant both find depth 0.
    @inline(__always)
    func claimRequests(resolving label: @autoclosure () -> String) {
        let thread = Platform.currentThread()
        if depth == 0 {
            requestThread = thread
        } else if _slowPath(requestThread != thread) {
            Self.stopResolvingOnTwoThreads(label())
        }
    }

    /// Checks that a resolution the path found nested in the requests in flight (a factory's, or
    /// a cycle) is made on their thread; see ``claimRequests(resolving:)``.
    @inline(__always)
    func checkNestedCall(resolving label: @autoclosure () -> String) {
        if _slowPath(requestThread != Platform.currentThread()) { Self.stopResolvingOnTwoThreads(label()) }
    }

    /// In a check that found the path's state inconsistent: stops with the message for a plain
    /// container used from two threads at once when another thread's requests are in flight
    /// (the likely cause), rather than with the internal check's message.
    func stopIfAnotherThreadResolves(_ event: @autoclosure () -> String) {
        if depth > 0 && requestThread != Platform.currentThread() { Self.stopOnTwoThreads(event()) }
    }

    @inline(never)
    static func stopResolvingOnTwoThreads(_ label: String) -> Never {
        stopOnTwoThreads("\(label) was resolved")
    }

    /// The stop for a plain hierarchy used from two threads at once, `event` saying what the
    /// second thread did ("`X` was resolved").
    @inline(never)
    static func stopOnTwoThreads(_ event: String) -> Never {
        stop(
            "Graft: \(event) while another thread's resolution was in flight in the same plain Container "
                + "hierarchy: a Container is used from two threads at once. A plain Container (and every container "
                + "of its hierarchy) is for one thread at a time; resolve through container.synchronize(), whose "
                + "view runs each call under the hierarchy's mutex and may be shared by every thread. (If this "
                + "thread uses a view already, another thread is using a plain container of this hierarchy, or a "
                + "factory handed work to another thread that resolves while the factory waits.)")
    }

    // MARK: Requests

    @inline(__always)
    func beginRequest(resolving label: @autoclosure () -> String) -> Request {
        claimRequests(resolving: label())
        assertUserCodeMayRun("a resolution")
        let suspends = hasFailed
        if suspends, let failure {
            suspendedFailures.append(failure)
            self.failure = nil
        }
        depth += 1
        return Request(keptMark: keptEntries.count, graphMark: graphEntries.count, suspendsFailure: suspends)
    }

    /// Ends a request: on failure drops everything it made; ends the graph when nothing holds it open.
    /// - Returns: Whether the request succeeded.
    @inline(__always)
    func endRequest(_ request: Request) -> Bool {
        // The common case, inlined: an outermost request that succeeded and made nothing to drop.
        if depth == 1 && !hasFailed && !request.suspendsFailure && graphEntries.isEmpty && keptEntries.isEmpty
            && !mayHaveLaterReleases
        {
            depth = 0
            graph = nil
            graphEscaped = false
            recalled = nil
            return true
        }
        return endRequestInGeneral(request)
    }

    func endRequestInGeneral(_ request: Request) -> Bool {
        if mayHaveLaterReleases && !handedFailures.isEmpty { logHandledFailures() }
        let succeeded = !hasFailed
        if !succeeded, let failure {
            // A failure no call has logged yet (each handed it to its caller, and a factory caught
            // it): the request's own `resolve` returns `nil` for it now.
            logFailure()
            record(failure)
        }
        // A request that succeeded and set no failure aside leaves `failure` as it found it,
        // `nil`: most requests, which then copy no optional error.
        let changesFailure = !succeeded || request.suspendsFailure
        let ended =
            changesFailure
            ? uncheckedSection { () -> ResolutionError? in
                defer { failure = request.suspendsFailure ? suspendedFailures.removeLast() : nil }
                return failure
            } : nil
        depth -= 1
        var teardown = Teardown(values: takeSpareValues(), entries: takeSpareEntries())
        if succeeded {
            // What a request that succeeded kept is final: no enclosing request rolls it back (a
            // `Lazy` resolved inside a factory that later fails keeps its instance, and so does
            // the container).
            take(&keptEntries, from: request.keptMark, into: &teardown)
        } else {
            rollBack(request, into: &teardown)
        }
        if depth == 0 { detachGraph(into: &teardown) }
        let errors = errorCount
        finish(&teardown)
        if !succeeded { recordAgainAfterTeardown(ended, since: errors) }
        if changesFailure { Self.release(ended) }
        forgetLastErrorUnlessRead()
        return succeeded
    }

    /// Releases ``lastError`` once no call is left to read it: the outermost resolution has ended
    /// and no call that hands its failure to its caller (`require`, a `Lazy`, `validate()`) is
    /// open. The error may hold what owns this hierarchy (a factory's error holding its resolver,
    /// or a `Lazy`): kept past its call, it would keep the hierarchy alive for good. The calls
    /// that read it release it once read (``failure(since:)``).
    func forgetLastErrorUnlessRead() {
        guard depth == 0 && quietLevel == -1 && !isValidating && lastError != nil else { return }
        let forgotten = uncheckedSection { () -> ResolutionError? in
            defer { lastError = nil }
            return lastError
        }
        Self.release(forgotten)
    }

    // MARK: Nested failures

    /// Where a construction nested in a factory started: what it makes from there on is its own.
    struct Marks {
        let kept: Int
        let graph: Int
    }

    var marks: Marks { Marks(kept: keptEntries.count, graph: graphEntries.count) }

    /// A construction nested in a running factory failed (a cycle, the depth limit, its factory
    /// threw): the failure is that nested resolution's, and the factory that asked gets `nil` (or
    /// the error `require` throws) and goes on. Drops what the construction made since `marks`,
    /// in every scope, leaving what the enclosing request had made before; the failure stays
    /// recorded for `require`, is logged once (now if its call logs, else when the request ends
    /// unless a factory throws it on), and the request in flight goes on unfailed.
    func confineFailure(of entry: AnyServiceEntry, from marks: Marks) {
        guard let failure else { return }
        if _slowPath(isValidating), let outer = innermostEntry {
            validation?.observeHandledFailure(failure, of: entry, by: outer)
        }
        if !failure.isLogged {
            // Its call hands it to its caller (a `require` in a factory): if the factory catches
            // it, it is logged when the request ends; if it throws it on, that failure is logged
            // where it ends.
            handedFailures.append((failure, stack.count))
            mayHaveLaterReleases = true  // sends the request's end down the general path
        }
        var teardown = Teardown(values: takeSpareValues(), entries: takeSpareEntries())
        if marks.kept < keptEntries.count || marks.graph < graphEntries.count {
            rollBack(Request(keptMark: marks.kept, graphMark: marks.graph, suspendsFailure: false), into: &teardown)
        }
        let ended = uncheckedSection { () -> ResolutionError? in
            defer { self.failure = nil }
            return self.failure
        }
        let errors = errorCount
        finish(&teardown)
        recordAgainAfterTeardown(ended, since: errors)
        // `finish` recomputed the hint: the request's end must still take the general path,
        // where the error recorded here is forgotten once no call is left to read it.
        if lastError != nil { mayHaveLaterReleases = true }
        Self.release(ended)
    }

    /// A teardown releases instances whose `deinit`s may resolve, and record failures of their
    /// own: the failure of the request that ended is recorded again after them, so the `require`
    /// (or `Lazy`) waiting on it reads its own failure, not one of theirs.
    private func recordAgainAfterTeardown(_ failure: ResolutionError?, since errors: Int) {
        guard errorCount != errors, let failure else { return }
        record(failure)
    }

    /// A factory threw `error`, a failure a nested call handed it: it is not handled, and is
    /// logged (or thrown) where the factory's own failure ends.
    func takeBackHandedFailure(_ error: ResolutionError) {
        guard let index = handedFailures.lastIndex(where: { Self.isSame($0.error, error) }) else { return }
        let taken = handedFailures.remove(at: index)
        withExtendedLifetime(taken) {}  // released once the list is consistent
    }

    /// Logs the failures handed to factories that returned since (those whose call was deeper
    /// than the frames running now): each factory handled its failure and went on.
    func logHandledFailures() {
        let level = stack.count
        guard handedFailures.contains(where: { $0.level > level }) else { return }
        let handled = handedFailures.filter { $0.level > level }
        handedFailures.removeAll { $0.level > level }
        for (error, _) in handled { log { error.description } }
    }

    static func isSame(_ one: ResolutionError, _ other: ResolutionError) -> Bool {
        one.message == other.message && one.path == other.path
    }

    /// Why a resolution started when ``errorCount`` was `errors` returned `nil`: the failure
    /// recorded since (a failed request, a wrong type), else the failure of the request in flight
    /// (a resolution refused because its request had failed); `nil` for a missing registration.
    func failure(since errors: Int) -> ResolutionError? {
        if errorCount != errors, let lastError {
            defer { forgetLastErrorUnlessRead() }
            return lastError
        }
        return failure
    }

    /// Sets aside the failure of the request in flight, if it has failed, for a resolution that
    /// is not refused for it: a `Provider` (or a `Lazy` made outside any graph) read in a factory
    /// after its request failed resolves its service as it would have before. What that
    /// resolution keeps stays part of the request, which drops it when it ends. Pass what this
    /// returns to ``takeBackFailure(_:)``.
    func setFailureAside() -> Bool {
        guard hasFailed, let failure else { return false }
        suspendedFailures.append(failure)
        self.failure = nil  // a copy is on the list: releases nothing
        return true
    }

    /// Gives back the failure ``setFailureAside()`` set aside, if it did; a failure of the
    /// resolution between them is recorded already (``record(_:)``) and is dropped here.
    func takeBackFailure(_ wasSetAside: Bool) {
        guard wasSetAside else { return }
        let ended = uncheckedSection { () -> ResolutionError? in
            defer { failure = suspendedFailures.removeLast() }
            return failure
        }
        Self.release(ended)
    }

    /// What a caller that gives its result to user code (a `Lazy`, a `Provider`, `@Injected`,
    /// `@MainInjected`, `~>`) returns for a resolution that failed with `error`: for an `Optional`
    /// service type, `nil` (an `Optional` asked for is a "maybe", as `resolve` makes it), with the
    /// failure logged under the mutex; for any other type no value, and the caller reports the
    /// failure itself.
    func absentAfterFailure<Service>(of _: Service.Type, _ error: ResolutionError) -> Service? {
        guard let absent = absentValue(of: Service.self) else { return nil }
        locked { logFailureOfOptional(error) }
        return absent
    }

    /// An `Optional` read as `nil` because the service it wraps is registered and failed: logs
    /// `error`, unless it is the failure of the request in flight, whose end logs it.
    private func logFailureOfOptional(_ error: ResolutionError) {
        if let failure, Self.isSame(failure, error) { return }
        takeBackHandedFailure(error)  // logged here, not again when the request ends
        log { error.description }
    }

    /// Marks the resolution in flight as failed: a request returns `nil` and keeps nothing it
    /// made; a construction nested in a running factory confines the failure to itself
    /// (``confineFailure(of:from:)``).
    func fail(_ error: ResolutionError) {
        guard !hasFailed else { return }
        uncheckedSection { failure = error }  // replaces `nil`: releases nothing
        record(error)
    }

    /// Notes why a resolution returned `nil` without failing the request (a forwarded type whose
    /// instance is of another type), for a `require` waiting on it.
    func record(_ error: ResolutionError) {
        // The error replaced may hold the last reference to a factory's error, whose `deinit` is
        // user code that may fail a resolution of its own and come back here: released once the
        // outermost resolution is consistent, never inside this store. Outside any resolution (a
        // forwarded `.container` hit of the wrong type records with no request open), it is
        // released right after the store, through a call the optimizer cannot move the store past
        // (parked for a resolution that never comes, such errors would pile up).
        let replaced = uncheckedSection { () -> ResolutionError? in
            defer {
                lastError = error
                errorCount &+= 1
            }
            return lastError
        }
        // A record made inside a request is forgotten when it ends (the general path, which
        // ``forgetLastErrorUnlessRead()`` runs in, is taken while this hint is set).
        if depth > 0 { mayHaveLaterReleases = true }
        guard let replaced else { return forgetLastErrorUnlessRead() }
        if depth > 0 { releaseLater(replaced) } else { Self.release(replaced) }
        forgetLastErrorUnlessRead()
    }

    /// Releases what an unchecked section returned, through a call the optimizer cannot move the
    /// section's stores past.
    @inline(never)
    static func release(_ error: __owned ResolutionError?) {
        withExtendedLifetime(error) {}
    }

    /// Keeps `value` until the outermost resolution ends, then releases it.
    func releaseLater(_ value: Any) {
        laterReleases.append(value)
        mayHaveLaterReleases = true
    }

    @inline(__always)
    func holdsGraphInstance(_ entry: AnyServiceEntry, cell: InstanceCell) {
        graphEntries.append(GraphMember(entry: entry, cell: cell))
    }

    @inline(__always)
    func keptNewInstance(_ entry: AnyServiceEntry, generation: Int) {
        keptEntries.append(KeptMember(entry: entry, generation: generation))
    }
}
