// Graft — MIT License.

/// State shared by a root container and all its descendants: the one mutex their synchronized
/// views lock, and the resolution in flight (frames, the graph's instances, what to undo on failure).
///
/// A resolution that starts in a child and reaches a parent's registration stays one resolution,
/// so graph-scoped instances are shared across the hierarchy while it runs.
///
/// Two nestings are tracked apart:
/// - *frames*: entries whose factory or `initCompleted` actions are running (``frameCount``,
///   bounded by ``maximumDepth``);
/// - *requests*: a resolution started where no factory of the current request is running (by the
///   application, by a `withObjectGraph` closure, or by a `Lazy`). A request succeeds or fails on
///   its own: on failure everything it made is dropped, and the failure does not leak into the
///   requests that follow. ``depth`` counts open requests and `withObjectGraph` scopes; the graph
///   ends when it returns to 0.
///
/// Invariants, checked in debug builds: frames are popped in the order pushed, by the entry that
/// pushed them; instances are moved out of the cells (no user code runs) before any is released,
/// and released only once every list here is consistent, so a `deinit` run by the release may
/// start a resolution of its own. Lists that user code can reach are walked as local copies.
@usableFromInline
final class Hierarchy {
    let mutex = RecursiveMutex()

    // Every field is touched only by the resolution in flight: one thread at a time by the
    // container's contract, or under `mutex`. Hence no dynamic exclusivity checks on them; no
    // access to them stays open across a call into user code.

    /// Open requests and `withObjectGraph` scopes; 0 between resolutions.
    @exclusivity(unchecked) private(set) var depth = 0
    /// Entries whose factory or `initCompleted` actions are running, outermost first. Unretained:
    /// each is held by the call that pushed it until that call pops it.
    @exclusivity(unchecked) private var stack = FrameStack()
    /// Stack index of the innermost running `initCompleted` action, or -1.
    @exclusivity(unchecked) private var completionFrame = -1
    /// The frame count at which a resolution is a request of its own.
    @exclusivity(unchecked) private var requestBase = 0
    /// Entries holding an instance for the current graph, with their cells.
    @exclusivity(unchecked) private var graphEntries: [GraphMember] = []
    /// Entries that kept a new instance beyond the graph (undone if their request fails).
    @exclusivity(unchecked) private var keptEntries: [KeptMember] = []
    /// Why the current request failed, once it has.
    @exclusivity(unchecked) private(set) var failure: ResolutionError? {
        didSet { hasFailed = failure != nil }
    }
    /// `failure != nil`, as one byte: the path asks it on every construction, and reading the
    /// optional error would copy (and, in a debug build, give stack space to) the whole struct.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        private(set) var hasFailed = false
    #else
        @exclusivity(unchecked) private(set) var hasFailed = false
    #endif
    /// The latest failure recorded (a request that failed, or a resolution that returned `nil`
    /// for a reason other than a missing registration), and a count of them: `require` compares
    /// the count before and after its resolution to know whether the failure is its own.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        private(set) var lastError: ResolutionError?
    #else
        @exclusivity(unchecked) private(set) var lastError: ResolutionError?
    #endif
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        private(set) var errorCount = 0
    #else
        @exclusivity(unchecked) private(set) var errorCount = 0
    #endif
    /// The current graph's identifier, made only when someone asks for it.
    @exclusivity(unchecked) private var graph: GraphIdentifier?
    /// Whether the current graph's identifier was handed out, so the graph may be resolved again.
    @exclusivity(unchecked) private var graphEscaped = false
    /// What an earlier resolution of the current graph left alive, when it is resolved again.
    @exclusivity(unchecked) private(set) var recalled: GraphRecord?
    /// Escaped graphs whose instances may still be alive, with weak references to them.
    @exclusivity(unchecked) private var records: [GraphIdentifier: GraphRecord] = [:]
    @exclusivity(unchecked) private var sweepThreshold = 64
    /// Buffers kept between resolutions so a graph's end allocates nothing.
    @exclusivity(unchecked) private var spareEntries: [AnyServiceEntry] = []
    @exclusivity(unchecked) private var spareValues: [Any] = []
    @exclusivity(unchecked) private var spareMembers: [GraphMember] = []
    /// Values displaced from a cell while a resolution runs (a finished graph's value, replaced
    /// before its teardown released it), released when the outermost resolution ends.
    ///
    /// Not `@exclusivity(unchecked)`, unlike its neighbours: `finish` empties it and then releases
    /// what it held, and a `deinit` run by that release may read it again (a resolution, a graph
    /// of its own). Unchecked, the release build moved the store of the empty array after the
    /// release: the nested `finish` found the old list and released its values a second time (a
    /// double release, found in `swift test -c release`). The dynamic access checks are calls the
    /// optimizer cannot move a store across; this list is touched once per graph's end.
    private var laterReleases: [Any] = []
    /// `!laterReleases.isEmpty`, for the end of every request to test without a dynamic access
    /// check. Only a hint: a stale `true` sends a request down the general path, which reads the
    /// list itself.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        private var mayHaveLaterReleases = false
    #else
        @exclusivity(unchecked) private var mayHaveLaterReleases = false
    #endif
    /// Synchronized calls now holding `mutex` on this thread (it is recursive).
    @exclusivity(unchecked) private var lockedCalls = 0
    /// Messages held back until the outermost synchronized call has released `mutex`.
    @exclusivity(unchecked) private var heldMessages: [String] = []
    /// The frame count of the innermost call that hands its failure to its caller instead of
    /// logging it (`require` throws it, a `Lazy` or `Provider` stops with it, `validate()`
    /// reports it), or -1. A failure met by a call at another level, such as a factory's own
    /// `resolve` returning `nil`, is logged.
    @exclusivity(unchecked) private var quietLevel = -1
    /// The validation running (``Container/validate()``), which observes every resolution.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        private(set) var validation: ValidationRecorder?
    #else
        @exclusivity(unchecked) private(set) var validation: ValidationRecorder?
    #endif
    /// `validation != nil`, as one byte for the path to test.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        @usableFromInline private(set) var isValidating = false
    #else
        @exclusivity(unchecked) @usableFromInline private(set) var isValidating = false
    #endif

    /// Registrations made in child containers, by service type, for failure messages that name
    /// registrations a container cannot see. Guarded by `mutex`: a child is filled on any thread,
    /// so its own table is never read from here; what a message needs is copied when registering.
    private var childRegistrations: [ObjectIdentifier: [ChildRegistration]] = [:]
    private var childRegistrationCount = 0
    private var childSweepThreshold = 256
    /// Set while instances are being moved out of cells, when no user code may run (debug check).
    @exclusivity(unchecked) private var isMovingOut = false

    /// Frames deeper than this fail the resolution (runaway recursion), as in Swinject.
    static let maximumDepth = 200

    var currentGraph: GraphIdentifier {
        if let graph { return graph }
        let made = GraphIdentifier()
        graph = made
        return made
    }

    /// The identifier of the graph in flight, handed out to user code (a `Lazy`, a factory
    /// resolving `GraphIdentifier`), so its instances are remembered when it ends; `nil` between
    /// resolutions.
    var escapedGraph: GraphIdentifier? {
        guard depth > 0 else { return nil }
        graphEscaped = true
        return currentGraph
    }

    var frameCount: Int { stack.count }

    deinit {
        stack.deallocate()
    }

    /// Escaped graphs remembered now (for tests: bounded by the instances still alive).
    var rememberedGraphCount: Int { records.count }

    // MARK: Validation

    func beginValidation(_ recorder: ValidationRecorder) {
        stopUnless(validation == nil, "Graft: validate() called while a validation of this hierarchy runs")
        validation = recorder
        isValidating = true
    }

    func endValidation() {
        validation = nil
        isValidating = false
    }

    /// The entry whose factory or `initCompleted` runs innermost, if any.
    var innermostEntry: AnyServiceEntry? {
        stack.count == 0 ? nil : stack[stack.count - 1].takeUnretainedValue() as? AnyServiceEntry
    }

    // MARK: Containers

    /// Notes a registration made in a child container (one with a parent).
    func noteChildRegistration(_ registration: ChildRegistration) {
        mutex.withLock {
            if childRegistrationCount >= childSweepThreshold {
                for (service, records) in childRegistrations {
                    let alive = records.filter { $0.link.isLinked }
                    childRegistrations[service] = alive.isEmpty ? nil : alive
                }
                childRegistrationCount = childRegistrations.values.reduce(0) { $0 + $1.count }
                childSweepThreshold = max(256, childRegistrationCount * 2)
            }
            // Registering the same key again in the same child replaces its record: records are
            // bounded by the live registrations, not by how often they were made.
            let sameRegistration = { (other: ChildRegistration) in
                other.link === registration.link && other.key.service == registration.key.service
                    && other.key.arguments == registration.key.arguments && other.key.name == registration.key.name
            }
            if let index = childRegistrations[registration.key.service]?.firstIndex(where: sameRegistration) {
                childRegistrations[registration.key.service]![index] = registration
            } else {
                childRegistrations[registration.key.service, default: []].append(registration)
                childRegistrationCount += 1
            }
        }
    }

    /// Forgets the records of `link`'s container (its `removeAll()`).
    func forgetChildRegistrations(of link: ContainerLink) {
        mutex.withLock {
            for (service, records) in childRegistrations {
                let kept = records.filter { $0.link !== link }
                childRegistrations[service] = kept.isEmpty ? nil : kept
            }
            childRegistrationCount = childRegistrations.values.reduce(0) { $0 + $1.count }
        }
    }

    /// How many child registrations are recorded (for tests: bounded by the live registrations).
    var childRegistrationRecordCount: Int {
        mutex.withLock { childRegistrations.values.reduce(0) { $0 + $1.count } }
    }

    /// The registrations of `service` made in child containers still alive.
    func childRegistrations(of service: ObjectIdentifier) -> [ChildRegistration] {
        mutex.withLock { (childRegistrations[service] ?? []).filter { $0.link.isLinked } }
    }

    // MARK: Locking and logging

    /// Runs `body` under the mutex, then delivers the log messages it produced once the mutex is
    /// released: the logging function is user code, and may resolve in another hierarchy whose
    /// thread is logging into this one.
    @inline(__always)
    func locked<T>(_ body: () -> T) -> T {
        enterLocked()
        defer { exitLocked() }
        return body()
    }

    /// Takes the mutex for a synchronized call; pair with ``exitLocked()``. (No closure: in a debug
    /// build each closure frame on a deep resolution chain costs stack.)
    @inline(__always)
    func enterLocked() {
        mutex.lock()
        lockedCalls += 1
    }

    @inline(__always)
    func exitLocked() {
        lockedCalls -= 1
        guard lockedCalls == 0 && !heldMessages.isEmpty else { return mutex.unlock() }
        var messages: [String] = []
        swap(&messages, &heldMessages)
        mutex.unlock()
        Container.deliver(messages)
    }

    /// Logs now, or once the mutex is released if a synchronized call holds it. While a
    /// validation runs, writes at once to standard error too (see ``explain(_:)``).
    func log(_ message: () -> String) {
        if _slowPath(isValidating) { return explain(message()) }
        guard lockedCalls > 0 else { return Container.log(message) }
        if Container.isLogging { heldMessages.append(message()) }
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
        let outer = quietLevel
        quietLevel = stack.count
        return outer
    }

    @usableFromInline
    func endCallHandingFailureToCaller(_ outer: Int) {
        quietLevel = outer
    }

    /// Logs a resolution that returns `nil` without failing the request (nothing registered, a
    /// forwarded instance of another type), unless its call hands its failure to its caller.
    func logMiss(_ message: () -> String) {
        guard stack.count != quietLevel else { return }
        log(message)
    }

    /// Logs the failure of the request in flight, once, unless the call at `level` (a frame
    /// count; the current one by default) hands its failure to its caller: then the next call out
    /// that does not (a factory's `resolve`, the request's own) logs it, if any.
    func logFailure(level: Int? = nil) {
        guard (level ?? stack.count) != quietLevel, let failure, !failure.isLogged else { return }
        self.failure?.isLogged = true
        log { failure.description }
    }

    /// While validating: `entry` is not made because the request it belongs to failed already
    /// (its `resolve` returns `nil`, and a force unwrap would stop the process here).
    @inline(never)
    func explainRefusal(of entry: AnyServiceEntry) {
        guard stack.count != quietLevel, let failure else { return }
        let reason = failure.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        explain(
            "Graft: \(Self.label(entry)) was not made: the resolution it is part of failed already (\(reason))"
                + (stack.count > 0 ? "\nPath: " + (path + [Self.label(entry)]).joined(separator: " -> ") : ""))
    }

    // MARK: Frames

    @inline(__always)
    func pushFactory(_ entry: AnyServiceEntry) -> Int {
        assert(!isMovingOut, "Hierarchy: a factory ran while instances were being moved out")
        stack.push(Unmanaged.passUnretained(entry))
        return stack.count - 1
    }

    @inline(__always)
    func popFactory(_ entry: AnyServiceEntry) {
        assert(
            stack.count > 0
                && stack[stack.count - 1].toOpaque() == Unmanaged.passUnretained(entry as AnyObject).toOpaque(),
            "Hierarchy: frame popped by an entry that did not push it")
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
        serviceLabel(entry.serviceType, name: entry.name)
    }

    /// The services whose factories (or `initCompleted` actions) are running, outermost first.
    var path: [String] {
        (0..<stack.count).map { Self.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
    }

    // MARK: Requests

    /// Whether a resolution starting now is a request of its own.
    @inline(__always)
    var isAtRequestBase: Bool { stack.count == requestBase }

    /// Where a request started, to undo exactly what it made. Trivial (no reference-counted
    /// field), so making and passing one costs no retain.
    @usableFromInline
    struct Request {
        fileprivate let keptMark: Int
        fileprivate let graphMark: Int
        /// Whether an enclosing request had failed (its message is on `suspendedFailures`).
        fileprivate let suspendsFailure: Bool
    }

    /// Failures of enclosing requests, set aside while a request of their own runs (a `Lazy`
    /// resolved inside a failing factory).
    @exclusivity(unchecked) private var suspendedFailures: [ResolutionError] = []

    @inline(__always)
    func beginRequest() -> Request {
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

    private func endRequestInGeneral(_ request: Request) -> Bool {
        let succeeded = !hasFailed
        if !succeeded, let failure {
            // A failure no call has logged yet (each handed it to its caller, and a factory caught
            // it): the request's own `resolve` returns `nil` for it now.
            logFailure()
            record(failure)
        }
        failure = request.suspendsFailure ? suspendedFailures.removeLast() : nil
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
        finish(&teardown)
        return succeeded
    }

    /// Why a resolution started when ``errorCount`` was `errors` returned `nil`: the failure
    /// recorded since (a failed request, a wrong type), else the failure of the request in flight
    /// (a resolution refused because its request had failed); `nil` for a missing registration.
    func failure(since errors: Int) -> ResolutionError? {
        if errorCount != errors, let lastError { return lastError }
        return failure
    }

    /// Marks the request in flight as failed: it returns `nil` and keeps nothing it made.
    func fail(_ error: ResolutionError) {
        guard !hasFailed else { return }
        failure = error
        record(error)
    }

    /// Notes why a resolution returned `nil` without failing the request (a forwarded type whose
    /// instance is of another type), for a `require` waiting on it.
    func record(_ error: ResolutionError) {
        // The error replaced may hold the last reference to a factory's error, whose `deinit` is
        // user code that may fail a resolution of its own and come back here: released once the
        // outermost resolution is consistent, never inside this store (found by a cold read).
        // Outside any resolution (a forwarded `.container` hit of the wrong type records with no
        // request open), it is released right after the store, through a call the optimizer
        // cannot move the store past (found by a cold read: parked there, errors piled up).
        let replaced = lastError
        lastError = error
        errorCount &+= 1
        guard let replaced else { return }
        if depth > 0 { releaseLater(replaced) } else { Self.release(replaced) }
    }

    @inline(never)
    private static func release(_ error: __owned ResolutionError) {
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

    // MARK: Teardown

    /// What leaving a graph or undoing a request hands back: instances moved out of their cells
    /// and custom storages to tell, released and told only when the hierarchy is consistent.
    struct Teardown {
        var values: [Any]
        /// Entries taken off the lists, released last (one may hold the last reference).
        var entries: [AnyServiceEntry]
        /// Graph members whose values are marked finished, to release.
        var members: [GraphMember] = []
        var storages: [(InstanceStorage, rollBackIn: GraphIdentifier?)] = []
    }

    private func takeSpareValues() -> [Any] {
        var values: [Any] = []
        swap(&values, &spareValues)
        return values
    }

    private func takeSpareEntries() -> [AnyServiceEntry] {
        var entries: [AnyServiceEntry] = []
        swap(&entries, &spareEntries)
        return entries
    }

    /// Moves `list[start...]` into the teardown, which releases them later: removing them in place
    /// could release an entry's last reference, and its `deinit` (user code, through the
    /// instances it releases) could then change `list` while it is being changed.
    private func take(_ list: inout [KeptMember], from start: Int, into teardown: inout Teardown) {
        guard start < list.count else { return }
        for kept in list[start...] { teardown.entries.append(kept.entry) }
        list.removeSubrange(start...)  // releases nothing: the teardown holds each entry
    }

    /// Marks the values of `graphEntries[start...]` finished (a flag in each cell: no call, no
    /// user code) and moves those members into the teardown, which releases the values.
    private func finishGraphEntries(from start: Int, into teardown: inout Teardown) {
        guard start < graphEntries.count else { return }
        graphEntries.withUnsafeBufferPointer { members in
            for index in start..<members.count { InstanceCell.finishGraph(at: members[index].cell.base) }
        }
        if start == 0 && teardown.members.isEmpty {
            swap(&teardown.members, &graphEntries)
            if graphEntries.capacity == 0 { swap(&graphEntries, &spareMembers) }
        } else {
            teardown.members.append(contentsOf: graphEntries[start...])
            graphEntries.removeSubrange(start...)  // releases nothing: the teardown holds each entry
        }
    }

    /// Undoes what `request` made: its graph instances and the instances it kept in other scopes.
    private func rollBack(_ request: Request, into teardown: inout Teardown) {
        assert(!isMovingOut, "Hierarchy: teardown re-entered while moving instances out")
        isMovingOut = true
        let rolledBackGraph = graph
        finishGraphEntries(from: request.graphMark, into: &teardown)
        for kept in keptEntries[request.keptMark...] {
            if let storage = kept.entry.moveKeptInstance(into: &teardown.values, generation: kept.generation) {
                teardown.storages.append((storage, rolledBackGraph))
            }
        }
        take(&keptEntries, from: request.keptMark, into: &teardown)
        isMovingOut = false
    }

    /// Ends the current graph: its instances are marked finished (and will be remembered weakly
    /// if its identifier escaped), and the hierarchy is left with no graph.
    private func detachGraph() -> Teardown {
        var teardown = Teardown(values: takeSpareValues(), entries: takeSpareEntries())
        detachGraph(into: &teardown)
        return teardown
    }

    private func detachGraph(into teardown: inout Teardown) {
        let identifier = graph
        let record: GraphRecord? =
            if graphEscaped, let identifier { recalled ?? records[identifier] ?? GraphRecord() } else { nil }
        graph = nil
        graphEscaped = false
        recalled = nil
        if graphEntries.isEmpty { return }
        assert(!isMovingOut, "Hierarchy: teardown re-entered while moving instances out")
        isMovingOut = true
        // Remembered before anything is released or can be displaced, and the record stored
        // before any user code runs: a `deinit` that resolves in this graph again finds them.
        if let record, let identifier {
            for member in graphEntries { member.entry.rememberGraphInstance(in: record) }
            if record.hasLiveInstances { keep(record, for: identifier) }
        }
        finishGraphEntries(from: 0, into: &teardown)
        isMovingOut = false
    }

    /// Releases the finished graph's values (remembering them first if the graph escaped), tells
    /// custom storages, then releases what else was moved out: user code runs here, with the
    /// hierarchy consistent, and may resolve, register or remove.
    /// (`inout`: a copy would share the arrays, and emptying a shared array allocates a new one.)
    private func finish(_ teardown: inout Teardown) {
        for index in teardown.members.indices {
            // A class instance in a cell whose entry has no custom storage: released here, with no
            // call into the entry (the common case); otherwise through the entry.
            if InstanceCell.releaseFinishedReference(at: teardown.members[index].cell.base) { continue }
            if let storage = teardown.members[index].entry.releaseFinishedGraphInstance() {
                teardown.storages.append((storage, nil))
            }
        }
        for (storage, graph) in teardown.storages {
            if let graph { storage.setInstance(nil, inGraph: graph) } else { storage.graphResolutionCompleted() }
        }
        teardown.values.removeAll(keepingCapacity: true)
        teardown.members.removeAll(keepingCapacity: true)
        teardown.entries.removeAll(keepingCapacity: true)
        if spareValues.capacity == 0 { swap(&spareValues, &teardown.values) }
        if spareEntries.capacity == 0 { swap(&spareEntries, &teardown.entries) }
        if spareMembers.capacity == 0 { swap(&spareMembers, &teardown.members) }
        // Released by the outermost resolution only: by then nothing of this one is in flight.
        while depth == 0 && !laterReleases.isEmpty {
            let displaced = laterReleases
            laterReleases = []
            withExtendedLifetime(displaced) {}  // released once the list is empty
        }
        mayHaveLaterReleases = !laterReleases.isEmpty  // from the list itself, after every release
    }

    private func keep(_ record: GraphRecord, for identifier: GraphIdentifier) {
        if records[identifier] == nil && records.count >= sweepThreshold {
            records = records.filter { $0.value.hasLiveInstances }
            sweepThreshold = max(64, records.count * 2)
        }
        records[identifier] = record
    }

    // MARK: Graphs

    /// Resolves inside `identifier`'s graph, setting aside the graph in flight (if another)
    /// meanwhile. Each resolution `body` starts is a request of its own.
    func withGraph<T>(_ identifier: GraphIdentifier, _ body: () throws -> T) rethrows -> T {
        let outerBase = requestBase
        requestBase = stack.count
        defer { requestBase = outerBase }
        if depth > 0 && graph == identifier {
            return try body()
        }

        assert(!isMovingOut, "Hierarchy: graph set aside while moving instances out")
        let outerGraph = graph
        let outerEscaped = graphEscaped
        let outerRecalled = recalled
        var outerEntries: [GraphMember] = []
        swap(&outerEntries, &graphEntries)  // the inner graph starts with an empty list
        let outerInstances = outerEntries.map { $0.entry.takeGraphInstance() }
        graph = identifier
        graphEscaped = true
        recalled = records[identifier]
        depth += 1
        defer {
            depth -= 1
            var teardown = detachGraph()
            graph = outerGraph
            graphEscaped = outerEscaped
            recalled = outerRecalled
            graphEntries = outerEntries
            for (member, instance) in zip(graphEntries, outerInstances) {
                member.entry.restoreGraphInstance(instance, in: self)
            }
            if depth == 0 { take(&keptEntries, from: 0, into: &teardown) }
            finish(&teardown)
        }
        return try body()
    }
}

/// What a finished graph whose identifier escaped left alive: weak references to its instances,
/// by entry, so resolving in that graph again (`Lazy.instance`, `withObjectGraph`) finds them.
/// Kept while any of them lives; dead records are swept as new ones arrive.
@usableFromInline
final class GraphRecord {
    private struct Remembered {
        weak var entry: AnyObject?
        weak var object: AnyObject?
    }

    private var remembered: [Remembered] = []

    func remember(_ entry: AnyServiceEntry, _ object: AnyObject) {
        if let index = remembered.firstIndex(where: { $0.entry === entry }) {
            remembered[index].object = object
        } else {
            remembered.append(Remembered(entry: entry, object: object))
        }
    }

    func object(for entry: AnyServiceEntry) -> AnyObject? {
        remembered.first { $0.entry === entry }?.object
    }

    var hasLiveInstances: Bool {
        remembered.contains { $0.object != nil && $0.entry != nil }
    }
}

/// An entry that kept a new instance during a request, with the generation it kept it in.
struct KeptMember {
    let entry: AnyServiceEntry
    let generation: Int
}

/// An entry on the current graph's list, with its cell, so ending the graph can mark every value
/// finished without a call into the entry.
struct GraphMember {
    let entry: AnyServiceEntry
    let cell: InstanceCell
}

/// A registration in a child container, as a failure message elsewhere describes it: its key, its
/// argument types, and the containers it belongs to (its own first, then its ancestors).
struct ChildRegistration {
    let link: ContainerLink
    let key: ServiceKey
    let argumentTypeNames: () -> [String]
    let lineage: [ObjectIdentifier]

    var description: String {
        var text = "Service: \(key.serviceType)"
        if let name = key.name { text += ", Name: \"\(name)\"" }
        let arguments = argumentTypeNames()
        let parameters = arguments.isEmpty ? "Resolver" : "(Resolver, \(arguments.joined(separator: ", ")))"
        return text + ", Factory: \(parameters) -> \(key.serviceType)"
    }
}

/// The hierarchy's stack of running frames: a growable buffer of unretained references, so a push
/// or a pop is a store and a count (an array would check that its buffer is uniquely referenced
/// on every one). Only its hierarchy touches it, under the hierarchy's contract (one thread at a
/// time, or the mutex); no user code runs while it changes, and no pointer into it is kept across
/// a change (frames are named by index).
///
/// Invariants, checked in debug builds on every access: `count <= capacity`; `[0, count)` holds
/// the frames pushed and not popped; an index read is below `count`.
struct FrameStack {
    private var base: UnsafeMutablePointer<Unmanaged<AnyObject>>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 32
        base = .allocate(capacity: capacity)
    }

    subscript(index: Int) -> Unmanaged<AnyObject> {
        assert(index >= 0 && index < count, "FrameStack: frame \(index) of \(count) read")
        return base[index]
    }

    @inline(__always)
    mutating func push(_ frame: Unmanaged<AnyObject>) {
        assert(count <= capacity, "FrameStack: \(count) frames in \(capacity)")
        if _slowPath(count == capacity) { grow() }
        (base + count).initialize(to: frame)  // trivial: no value witness, nothing to release
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        assert(count > 0, "FrameStack: pop of an empty stack")
        count -= 1
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Frees the buffer; only from the hierarchy's `deinit`.
    func deallocate() {
        base.deallocate()
    }
}
