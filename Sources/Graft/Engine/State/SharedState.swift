// Graft — MIT License.

/// State shared by a root container and all its descendants: the one mutex their synchronized
/// views lock, and the resolution in flight (``resolution``: frames, the graph's instances, what
/// to undo on failure), with the effects of its transitions (releases, logging).
///
/// A resolution that starts in a child and reaches a parent's registration stays one resolution,
/// so graph-scoped instances are shared across the hierarchy while it runs.
///
/// Invariants, checked in debug builds: frames are popped in the order pushed, by the entry that
/// pushed them; instances are moved out of the cells (no user code runs) before any is released,
/// and released only once every list here is consistent, so a `deinit` run by the release may
/// start a resolution of its own. Lists that user code can reach are walked as local copies.
@usableFromInline
final class SharedState {
    /// The mutex the hierarchy's synchronized views lock.
    @usableFromInline let mutex = RecursiveMutex()
    // `calls`, `resolution` and `diagnostics` are touched one thread at a time (by the
    // container's contract, or under `mutex`: each type says what guards it), and no access to
    // them stays open across a call into user code (``ResolutionState``'s transitions call none).
    // Hence no dynamic exclusivity checks on them in release builds; debug builds keep them, the
    // invariant check on every access. (Swift cannot compile an attribute conditionally: hence
    // the `#if`.)
    #if DEBUG
        /// What `mutex` guards for the synchronized calls that hold it (``SynchronizedCalls``).
        var calls = SynchronizedCalls()
        /// The resolution in flight: frames, requests, the graph and the failure.
        @usableFromInline var resolution = ResolutionState()
        /// The validation running, whether entries need their general checks, and the
        /// registrations made in child containers (see ``HierarchyDiagnostics`` for what guards it).
        @usableFromInline var diagnostics = HierarchyDiagnostics()
        /// Unchecked sections open on this hierarchy (see ``uncheckedSection(_:)``).
        @usableFromInline var openUncheckedSections = 0
    #else
        @exclusivity(unchecked) var calls = SynchronizedCalls()
        @exclusivity(unchecked) @usableFromInline var resolution = ResolutionState()
        @exclusivity(unchecked) @usableFromInline var diagnostics = HierarchyDiagnostics()
    #endif
    /// Whether this is the hierarchy of the placeholder ``SynchronizedResolver/current`` gives
    /// where nothing is bound (set once, when the placeholder is made, before anyone reads it).
    private(set) var isUnboundPlaceholder = false
    /// Values held while a resolution runs and released once nothing in flight may borrow them
    /// (``releaseLater(_:)``): a value displaced from a cell (a finished graph's, replaced before
    /// its teardown released it), an entry whose factory runs when its table drops it, a failure a
    /// record replaced, an instance dropped past a call that hands its failure to its caller
    /// (``dropPastCall(_:)``).
    ///
    /// Not `@exclusivity(unchecked)`, unlike ``resolution``: `finish` empties it and then releases
    /// what it held, and a `deinit` run by that release may read it again (a resolution, a graph
    /// of its own). Unchecked, an optimized build may move the store of the empty array after the
    /// release: the nested `finish` would find the old list and release its values a second time
    /// (a double release, which `swift test -c release` shows). The dynamic access checks are calls
    /// the optimizer cannot move a store across; the list is touched only where a hint says it
    /// may hold values.
    var laterReleases: [Any] = []
    /// Failures of nested resolutions handed, unlogged, to a factory by a call that hands its
    /// failure to its caller (a `require` in a factory), with that call's frame count. A factory
    /// that throws one on takes it back (``takeBackHandedFailure(_:)``); the others were handled
    /// and are logged when the request ends (``logHandledFailures()``). Touched on failure paths
    /// only, so its accesses keep their dynamic checks.
    var handedFailures: [(error: ResolutionError, level: Int)] = []

    /// Marks this as the placeholder's hierarchy; see ``isUnboundPlaceholder``.
    func markAsUnboundPlaceholder() {
        isUnboundPlaceholder = true
        // It holds no entry: noted as one with main-actor registrations, a first access tests the
        // one byte for its checks (``FirstAccess/enter(wrapper:)``), and stops there.
        diagnostics.noteMainActorEntry()
    }

    /// Frames deeper than this fail the resolution (runaway recursion), as in Swinject.
    static let maximumDepth = 200

    deinit {
        #if DEBUG
            assert(resolution.retainedEntries == 0, "SharedState: a graph member's entry was never released")
        #endif
        resolution.stack.deallocate()
    }

    // MARK: Containers

    /// Notes a registration made in a child container (one with a parent).
    func noteChildRegistration(_ registration: ChildRegistration) {
        mutex.withLock { diagnostics.childRegistrations.note(registration) }
    }

    /// A container whose table is `table` ends: its table is forgotten, and so are its
    /// registrations of the service types `services` if it is the child `child`. For a caller
    /// holding the mutex; what is released holds no reference to user code: no user code runs.
    func forgetContainerLocked(_ table: RegistrationTable, child: ObjectIdentifier?, services: Set<ObjectIdentifier>) {
        diagnostics.tables[ObjectIdentifier(table)] = nil
        guard let child else { return }
        diagnostics.childRegistrations.forget([child], services: services)
        diagnostics.validation?.endedChildren.insert(child)
    }

    /// How many child registrations are recorded (for tests: bounded by the live registrations).
    var childRegistrationRecordCount: Int {
        mutex.withLock { diagnostics.childRegistrations.count }
    }

    // MARK: Unchecked sections

    /// Runs `store`, a change to fields whose exclusivity is not checked in release builds, as a
    /// section in which no user code may run: a `deinit`, factory or logging function that ran
    /// here and reached this hierarchy again would access those fields while they change.
    ///
    /// The idiom: a section only moves values (it stores new ones and returns the ones it
    /// replaced, or takes them into a local); what it returns is released by the caller after the
    /// section, once every field is consistent. Debug builds count open sections, and every place
    /// user code enters or is called (``assertUserCodeMayRun()``) stops the program while one is
    /// open; release builds run `store` alone.
    @inline(__always)
    func uncheckedSection<T>(_ store: () -> T) -> T {
        #if DEBUG
            openUncheckedSections += 1
            defer { openUncheckedSections -= 1 }
        #endif
        return store()
    }

    /// Stops a debug build when user code runs (or Graft is entered) inside an unchecked section
    /// or while instances are moved out of their cells. Compiled out of release builds.
    @inlinable @inline(__always)
    func assertUserCodeMayRun(_ what: @autoclosure () -> String = "user code") {
        #if DEBUG
            if openUncheckedSections != 0 { userCodeRanInUncheckedSection(what()) }
        #endif
    }

    #if DEBUG
        @usableFromInline
        func userCodeRanInUncheckedSection(_ what: String) -> Never {
            // What it reports is the event, not the frames: they may be another thread's.
            stopIfAnotherThreadUses("\(what) ran")
            fatalError(
                "Graft: \(what) ran inside an unchecked section (a store to a field whose access is not checked)")
        }
    #endif

    // MARK: Locking and logging

    /// Runs `body` under the mutex, then delivers the log messages it produced once the mutex is
    /// released (``exitLocked()``).
    @inline(__always)
    func withLock<T>(_ body: () -> T) -> T {
        enterLocked()
        defer { exitLocked() }
        return body()
    }

    /// Whether a synchronized call holds the mutex (read by the mutex's holder, or on a plain
    /// container's one thread).
    var isInSynchronizedCall: Bool { calls.lockedCalls > 0 }

    /// Takes the mutex for a synchronized call; pair with ``exitLocked()``. (No closure: in a debug
    /// build each closure frame on a deep resolution chain costs stack.)
    @inline(__always)
    func enterLocked() {
        mutex.lock()
        enterLockedCall()
    }

    /// ``enterLocked()`` for a thread that took the mutex already, which ``exitLocked()`` releases.
    @inline(__always)
    func enterLockedCall() { calls.lockedCalls += 1 }

    /// Ends a synchronized call; the outermost delivers the held messages once the mutex is
    /// released, if the hierarchy is idle then (else the request or call in flight does, at its
    /// end): the logging function is user code, and may resolve in another hierarchy whose thread
    /// is logging into this one.
    @usableFromInline @inline(__always)
    func exitLocked() {
        calls.lockedCalls -= 1
        guard calls.lockedCalls == 0 && !calls.heldMessages.isEmpty && !holdsMessages else { return mutex.unlock() }
        let messages = exchange(&calls.heldMessages, [])
        mutex.unlock()
        Container.deliver(messages)
    }

    // MARK: Changes

    /// The key of the thread-specific mark of a hierarchy whose changes a thread holds
    /// (``Platform/heldChangesKey``, copied).
    ///
    /// Invariant of the mark (an unretained address, compared and never loaded): a thread's mark is
    /// this hierarchy's address only while a batch of this hierarchy runs on it, holding the
    /// mutex, set by ``withChange(_:call:batch:_:)`` and put back on every exit (a `defer`). So the hierarchy is alive while marked (the batch's container holds it),
    /// and a change that finds the mark may skip the mutex. Debug builds check, wherever a change
    /// trusts the mark, that this thread holds the mutex for a change
    /// (``assertMarkedThreadHoldsChanges()``).
    @usableFromInline let heldChangesKey = Platform.heldChangesKey

    /// Debug builds: stops unless this thread holds the mutex for a change, as a mark naming this
    /// hierarchy says it does. Read by the thread the mark names, which holds the mutex.
    @usableFromInline
    func assertMarkedThreadHoldsChanges() {
        assert(
            calls.changingThread == Platform.currentThread(),
            "SharedState: a thread's changes mark names a hierarchy whose mutex it does not hold for a change")
    }

    /// Runs `body` as a change to the hierarchy's registrations, scopes or behaviors: every change
    /// takes the mutex, on a plain container as on a view, so changes from any threads are safe
    /// against each other and against resolutions through a view.
    ///
    /// A `batch` of changes (an assembler applying its assemblies, or
    /// ``Container/registerAtomically(_:)``) marks the hierarchy as this thread's in a
    /// thread-specific value while it runs: a registration inside finds the mark and takes nothing
    /// more, cheaper than locking the recursive mutex again. Marking costs more than it saves for a
    /// single change, which takes the mutex only.
    ///
    /// - Parameters:
    ///   - service: The type a registration or forward is for, named by the stop for a plain
    ///     container's resolution in flight on another thread; `nil` for others.
    ///   - call: The call making the change, named by that stop.
    ///   - batch: Whether to mark the hierarchy's changes as held while the change runs.
    func withChange<T>(
        _ service: Any.Type? = nil, call: StaticString = "register", batch: Bool = false, _ body: () throws -> T
    ) rethrows -> T {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let outerMark = Platform.threadValue(heldChangesKey)
        if outerMark == me {
            assertMarkedThreadHoldsChanges()
            return try body()
        }
        let outerThread = lockForChange(service, call: call)
        if batch { Platform.setThreadValue(heldChangesKey, me) }
        defer {
            if batch { Platform.setThreadValue(heldChangesKey, outerMark) }
            unlockAfterChange(outerThread)
        }
        return try body()
    }

    /// Takes the mutex for a change by a thread that does not hold the hierarchy's changes, and
    /// records it as the changing thread; returns the one recorded before, for
    /// ``unlockAfterChange(_:)``. A plain container's resolution in flight on another thread is
    /// the misuse of a plain container from two threads: the program stops, saying what to do.
    /// Split from its end, not a closure: the inlined `register` path calls it with none.
    @usableFromInline
    func lockForChange(_ service: Any.Type?, call: StaticString = "register") -> UInt {
        enterLocked()
        let outerThread = calls.changingThread
        calls.changingThread = Platform.currentThread()
        resolution.stopIfAnotherThreadResolves(service.map { "\(call)(\($0).self) was called" } ?? "\(call) was called")
        return outerThread
    }

    /// Ends what ``lockForChange(_:call:)`` began.
    @usableFromInline
    func unlockAfterChange(_ outerThread: UInt) {
        if resolution.depth > 0 { resolution.stopIfAnotherThreadResolves("a change to a container was made") }
        calls.changingThread = outerThread
        exitLocked()
    }

    /// In a check that found the hierarchy in a state only another thread explains: stops with
    /// the message for a plain container used from two threads at once when another thread
    /// resolves or changes it, rather than with the check's own message.
    func stopIfAnotherThreadUses(_ event: @autoclosure () -> String) {
        resolution.stopIfAnotherThreadResolves(event())
        let changing = calls.changingThread
        if changing != 0 && changing != Platform.currentThread() {
            Self.stopOnTwoThreads(event(), while: "another thread's change to it was in progress")
        }
    }

    /// Logs now if the hierarchy is idle, else holds the message, for the function that reads it
    /// now, until it is (``holdsMessages``). While a validation runs, writes at once to standard
    /// error too (see ``explain(_:)``).
    @inline(__always)
    func log(_ message: () -> String) {
        assertUserCodeMayRun("the logging function")
        if _slowPath(diagnostics.isValidating) { return explain(message()) }
        Container.log(message, from: self)
    }

    /// Whether a message raised now waits for the hierarchy to be idle: a request is in flight, a
    /// call that hands its failure to its caller or user code the library runs (a `deinit` a
    /// teardown releases) encloses this point, or a synchronized call holds the mutex. The
    /// logging function is user code that may resolve: inside a request, what it resolved would
    /// be part of that request (a service in flight a cycle that fails it, a singleton made there
    /// dropped if it fails), and its failures taken for the enclosing call's.
    var holdsMessages: Bool {
        resolution.depth > resolution.idleDepth || resolution.quietLevel != -1 || calls.lockedCalls > 0
    }

    /// Holds `message` until the hierarchy is idle (``holdsMessages``).
    @inline(never)
    func hold(_ message: __owned HeldLogMessage) {
        calls.heldMessages.append(message)
        resolution.expectGeneralEnd()  // the end that makes the hierarchy idle delivers it
    }

    /// Delivers the held messages if the hierarchy is idle: at the end of a request or call that
    /// leaves it idle, after what its end released. What the functions resolve are requests of
    /// their own, which record their failures and forget them: the call that ended reads its own
    /// failure after this (a `require` throws it), so it is recorded again if they did, and kept
    /// for that call, which forgets it once read.
    func deliverHeldMessages() {
        guard !calls.heldMessages.isEmpty && !holdsMessages else { return }
        recordingAgain(resolution.lastError, keeping: true) { Container.deliver(exchange(&calls.heldMessages, [])) }
    }

    /// While ``Container/validate()`` runs, a failed resolution is written at once, to standard
    /// error and to the logging function, even under the mutex: a factory that force-unwraps the
    /// `nil` (`r.resolve(X.self)!`) stops the process right after, and the message is all that
    /// says why.
    private func explain(_ message: String) {
        if !Container.logsToStandardError { Platform.writeToStandardError(message) }
        Container.log { message }
    }

    /// Marks the call starting now (at the current frame count) as one that hands its failure to
    /// its caller; pair with ``endCallHandingFailureToCaller(_:)``, passing what this returned.
    @usableFromInline
    func beginCallHandingFailureToCaller() -> Int {
        resolution.beginQuietCall()
    }

    /// Inlined into each caller, as the end of every `require`: a call there costs more than the
    /// hint it tests.
    @inlinable
    func endCallHandingFailureToCaller(_ outer: Int) {
        resolution.endQuietCall(outer)
        if _slowPath(resolution.mayHaveLaterReleases) { releasePastCall() }
    }

    /// Logs a resolution that returns `nil` without failing the request (nothing registered, a
    /// forwarded instance of another type), unless its call hands its failure to its caller.
    func logMiss(_ message: () -> String) {
        if !handsFailureToCaller { log(message) }
    }

    /// Logs the failure of the request in flight, once, unless the call at `level` (a frame
    /// count; the current one by default) hands its failure to its caller: then the next call out
    /// that does not (a factory's `resolve`, the request's own) logs it, if any.
    func logFailure(level: Int? = nil) {
        guard (level ?? frameCount) != resolution.quietLevel, let failure = resolution.failure, !failure.isLogged
        else { return }
        uncheckedSection { resolution.markFailureLogged() }
        log { failure.description }
    }

    /// While validating: `entry` is not made because the request it belongs to failed already
    /// (its `resolve` returns `nil`, and a force unwrap would stop the process here).
    @inline(never)
    func explainRefusal(of entry: AnyServiceEntry) {
        guard !handsFailureToCaller, let failure = resolution.failure else { return }
        let reason = failure.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        explain(
            "Graft: \(Self.label(entry)) was not made: the resolution it is part of failed already (\(reason))"
                + (frameCount > 0 ? "\nPath: " + (resolution.path + [Self.label(entry)]).joined(separator: " -> ") : "")
        )
    }
}
