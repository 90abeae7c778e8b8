// Graft — MIT License.

/// The resolution in flight in a hierarchy: its frames, requests, graph and failure. A state
/// machine with no lock and no logging, and no call into user code. Its fields are `private(set)`
/// (the compiler keeps every write here, and `scripts/check-library-sources.sh` keeps them so):
/// they change only through its transitions, named for the events of a request (a request starts
/// or ends, a factory is entered or left, a dependency fails, a failure is confined or set aside,
/// a wrapper keeps a value, a graph scope opens or ends). The rules of a request are written once,
/// in those transitions; what a transition leaves for its caller to do (release values, tell
/// custom storages, log) it returns, for ``SharedState`` to do once every field here is
/// consistent. The graph in flight is a sub-state with transitions of its own (``GraphState``),
/// and so are the frame stack (``FrameStack``) and the instances kept beyond the graph
/// (``KeptEntries``).
///
/// Two nestings are tracked apart:
/// - *frames*: entries whose factory or `initCompleted` actions are running (``SharedState/frameCount``,
///   bounded by ``SharedState/maximumDepth``);
/// - *requests*: a resolution started where no factory of the current request is running (by the
///   application, by a `withObjectGraph` closure, or by a `Lazy`). A request succeeds or fails on
///   its own: on failure everything it made is dropped, and the failure does not leak into the
///   requests that follow. ``depth`` counts open requests and `withObjectGraph` scopes; the graph
///   ends when it returns to 0.
///
/// The queries on the path of every construction (``SharedState/frameCount``,
/// ``SharedState/isAtRequestBase``…) are the hierarchy's, reading the fields here: as computed
/// properties of this struct, a debug build would copy the whole state to the stack at each call,
/// and a deep chain of factories would not fit a small thread's stack. The transitions on that
/// path are inlined: a mutating method called out of line there makes the optimizer keep the
/// struct's address live across the factory's call (spilled and reloaded on every
/// request), so the one such step of a request's start, setting a failure aside, is reached
/// through ``SharedState/setFailureAside()``. A request the application started that made nothing
/// to keep or drop ends through its own transition, ``endPlainRequest()``, with no nesting
/// bookkeeping.
///
/// Every field is touched only by the resolution in flight: one thread at a time by the
/// container's contract, or under the hierarchy's mutex. One exception, on purpose: `depth` and
/// `requestThread` are read by a thread that may not own them (``stopIfAnotherThreadResolves(_:)``,
/// ``SharedState/checkNestedCall(resolving:)``, ``SharedState/claimRequests(resolving:)``) to detect
/// two threads in one plain container and stop with a message; a torn read there can only fail
/// to detect it. Hence no dynamic exclusivity checks on
/// them in release builds (the hierarchy's one field holding this state is unchecked there); no
/// access to them stays open across a call into user code.
@usableFromInline
struct ResolutionState {
    /// Open requests and `withObjectGraph` scopes; 0 between resolutions.
    @usableFromInline private(set) var depth = 0
    /// The depth at which no request is in flight: 0, or inside a `withObjectGraph` scope opened
    /// where none was, that scope's: each resolution its body starts is a request of its own.
    private(set) var idleDepth = 0
    /// Entries whose factory or `initCompleted` actions are running, outermost first. Unretained:
    /// each is kept alive by the call that pushed it until that call pops it (retained, or on the
    /// planned path under its unretained invariant, ``Container/resolveTopLevel(_:cell:as:)``).
    private(set) var stack = FrameStack()
    /// Stack index of the innermost running `initCompleted` action, or -1.
    private(set) var completionFrame = -1
    /// The thread whose requests are in flight: set by the first request or graph scope to open
    /// (``depth`` 0), compared by every call the path finds nested in them. Meaningless at depth 0.
    private(set) var requestThread: UInt = 0
    /// The frame count at which a resolution is a request of its own.
    private(set) var requestBase = 0
    /// The graph in flight, its members, and the escaped graphs remembered.
    private(set) var graph = GraphState()
    /// Entries that kept a new instance beyond the graph, undone if their request fails.
    private(set) var kept = KeptEntries()
    /// Why the current request failed, once it has.
    private(set) var failure: ResolutionError? {
        didSet {
            hasFailed = failure != nil
            failureEndsRequest = failure?.reason.failsTheWholeRequest ?? false
        }
    }
    /// `failure != nil`, as one byte: the path asks it on every construction, and reading the
    /// optional error would copy (and, in a debug build, give stack space to) the whole struct.
    private(set) var hasFailed = false
    /// Whether ``failure`` is the whole request's (a cycle, the depth limit), which no factory can
    /// handle: it is not confined to the construction that met it, not set aside for a wrapper
    /// read in a factory, and a request nested in a running factory hands it on to the request
    /// around it, so the outermost request fails and keeps nothing. Every factory still running
    /// gets `nil` at once for what it asks.
    private(set) var failureEndsRequest = false
    /// Failures of enclosing requests, set aside while a request of their own runs (a `Lazy`
    /// resolved inside a failing factory).
    private var suspendedFailures: [ResolutionError] = []
    /// The depths of the requests in flight that started inside a request that had failed as a
    /// whole (as where a `deinit` that request ran resolves): each starts failed and hands that
    /// failure back when it ends, whether or not a factory is running.
    private var requestsStartedFailed: [Int] = []
    /// The latest failure recorded (a request that failed, or a resolution that returned `nil`
    /// for a reason other than a missing registration), and a count of them: `require` compares
    /// the count before and after its resolution to know whether the failure is its own.
    private(set) var lastError: ResolutionError?
    private(set) var errorCount = 0
    /// Buffers kept between resolutions so a graph's end allocates nothing.
    private var spareEntries: [AnyServiceEntry] = []
    private var spareValues: [Any] = []
    /// Whether a request's end must take the general path: set when `laterReleases` or
    /// `handedFailures` (lists the hierarchy keeps with their dynamic checks) may be non-empty,
    /// and when a failure is recorded inside a request (``lastError``, which the request's end
    /// must forget once no call is left to read it). For the end of every request,
    /// and of every call that hands its failure to its caller, to test without a dynamic access
    /// check. Only a hint: a stale `true` sends a request down the general path, which reads the
    /// lists themselves; but never `false` while a list holds a value (a teardown reads them only
    /// when it is set).
    @usableFromInline private(set) var mayHaveLaterReleases = false
    /// The last type resolved without a registration that is no wrapper Graft makes (`Optional`,
    /// `Lazy`, `Provider`): whether a type conforms is a lookup in the runtime's cache of a few
    /// hundred instructions, and a missing registration is often asked for again. (A type's
    /// conformance to an internal protocol never changes.)
    private(set) var lastTypeNotWrapping: ObjectIdentifier?
    /// The frame count of the innermost call that hands its failure to its caller instead of
    /// logging it (`require` throws it, a `Lazy` or `Provider` stops with it, `validate()`
    /// reports it), or -1. A failure met by a call at another level, such as a factory's own
    /// `resolve` returning `nil`, is logged.
    @usableFromInline private(set) var quietLevel = -1
    /// Set while instances are being moved out of cells, when no user code may run (written in
    /// every build, asserted on in debug builds).
    private(set) var isMovingOut = false
    /// How many times a main-actor registration has resolved (``noteMainActorResult()``): a first
    /// access whose request resolved one, at any depth, keeps the value for the main actor only,
    /// as a resolution of the same request off the main actor would fail. A count, never reset, so
    /// user code nested in the request (another first access, another main-actor registration)
    /// cannot hide it. Only in a hierarchy with main-actor registrations.
    private(set) var mainActorResolutions = 0
    #if DEBUG
        /// Debug builds: the entries the graph's members hold, counted by
        /// ``holdGraphInstance(_:cell:)`` and ``countReleasedEntries(_:)``; never negative, and zero
        /// when the hierarchy ends.
        private(set) var retainedEntries = 0
    #endif

    /// Escaped graphs remembered now (for tests: bounded by the instances still alive).
    var rememberedGraphCount: Int { graph.records.count }

    // MARK: Graphs

    var currentGraph: GraphIdentifier {
        mutating get { graph.current }
    }

    /// The identifier of the graph in flight, handed out to user code (a `Lazy`, a factory
    /// resolving `GraphIdentifier`), so its instances are remembered when it ends; `nil` between
    /// resolutions.
    var escapedGraph: GraphIdentifier? {
        mutating get { depth > 0 ? graph.escape() : nil }
    }

    /// A construction holds an instance for the graph in flight.
    @inline(__always)
    mutating func holdGraphInstance(_ entry: AnyServiceEntry, cell: InstanceCell) {
        graph.hold(entry, cell: cell)
        #if DEBUG
            retainedEntries += 1
        #endif
    }

    /// A teardown's members are about to give back their entries (``GraphMember/releaseEntries(of:)``):
    /// debug builds count them. Runs no user code.
    @inline(__always)
    mutating func countReleasedEntries(_ count: Int) {
        #if DEBUG
            retainedEntries -= count
            assert(retainedEntries >= 0, "GraphState: a member's entry released twice")
        #endif
    }

    /// A construction kept a new instance beyond the graph.
    @inline(__always)
    mutating func keptNewInstance(_ entry: AnyServiceEntry, generation: Int) {
        kept.append(entry, generation: generation)
    }

    /// A wrapper (`Lazy`, `@Injected`) kept a value while requests are in flight: what they made
    /// so far is final. The value may be one of those instances or hold them, and taking them
    /// back would leave the wrapper with an instance its scope no longer has (a second
    /// singleton, a second instance in one graph); what the requests make afterwards is taken
    /// back as usual.
    mutating func fixWhatRequestsMade() {
        guard depth > 0 else { return }
        kept.fix()
        graph.fixMembers()
    }

    /// A main-actor registration resolves, on the main actor.
    mutating func noteMainActorResult() {
        mainActorResolutions &+= 1
    }

    /// A `withObjectGraph` scope opens in `identifier`'s graph: each resolution its body starts is
    /// a request of its own. Returns what ``leaveGraphScope(_:into:)`` restores; `setsAside` is
    /// `nil` when `identifier`'s graph is the one in flight already (the scope resolves in it).
    /// Without an identifier, a new graph opens, not escaped (the elements of a collection).
    mutating func enterGraphScope(_ identifier: GraphIdentifier?) -> GraphScope {
        defer { requestBase = stack.count }
        guard depth == 0 || graph.identifier != identifier else {
            return GraphScope(requestBase: requestBase, setsAside: nil)
        }
        assert(!isMovingOut, "ResolutionState: graph set aside while moving instances out")
        let scope = GraphScope(requestBase: requestBase, setsAside: graph.enter(identifier), idleDepth: idleDepth)
        // A collection's graph (no identifier) is one call: its messages go out at its end.
        if identifier != nil && depth == idleDepth && stack.count == 0 && quietLevel == -1 { idleDepth = depth + 1 }
        depth += 1
        return scope
    }

    /// The `withObjectGraph` scope `scope` opened ends: its graph ends into `teardown`, the graph
    /// set aside resumes (its instances are the caller's to put back), and when no request is
    /// left, what they kept is final. The caller ends the scope with ``leaveGraphScope(_:)`` once
    /// the teardown is finished.
    mutating func leaveGraphScope(_ scope: GraphScope, into teardown: inout Teardown) {
        guard let outer = scope.setsAside else { return }
        depth -= 1
        idleDepth = scope.idleDepth
        endGraph(into: &teardown)
        graph.resume(outer)
        if depth == 0 { kept.take(from: 0, into: &teardown) }
    }

    /// A `withObjectGraph` scope ends: the request base it found comes back. Last, after any
    /// teardown: a `deinit` it runs resolves as a request of its own, as at any graph's end.
    mutating func leaveGraphScope(_ scope: GraphScope) {
        requestBase = scope.requestBase
    }

    /// Ends the graph in flight into `teardown` (see ``GraphState/end(into:)``).
    mutating func endGraph(into teardown: inout Teardown) {
        assert(!isMovingOut, "ResolutionState: teardown re-entered while moving instances out")
        isMovingOut = true
        graph.end(into: &teardown.members)
        isMovingOut = false
    }

    // MARK: Frames

    /// A factory or `initCompleted` action of `entry` is entered; returns its frame.
    @inline(__always)
    mutating func enterFrame(_ entry: AnyServiceEntry) -> Int {
        stack.push(Unmanaged.passUnretained(entry))
        return stack.count - 1
    }

    /// The factory or `initCompleted` action of `entry` that entered last is left.
    @inline(__always)
    mutating func leaveFrame(_ entry: AnyServiceEntry) {
        #if DEBUG
            if stack.count == 0
                || stack[stack.count - 1].toOpaque() != Unmanaged.passUnretained(entry as AnyObject).toOpaque()
            {
                stopIfAnotherThreadResolves("\(SharedState.label(entry)) was resolved")
                assertionFailure("ResolutionState: frame popped by an entry that did not push it")
            }
        #endif
        stack.pop()
    }

    /// The frame `frame` runs `initCompleted` actions; returns the frame that did before.
    @inline(__always)
    mutating func enterCompletion(at frame: Int) -> Int {
        exchange(&completionFrame, frame)
    }

    @inline(__always)
    mutating func leaveCompletion(_ outer: Int) {
        completionFrame = outer
    }

    // MARK: The thread of the requests in flight

    /// Claims the requests in flight for `thread`, before one opens: the first (at ``depth`` 0)
    /// records the thread. Returns `false` when another thread's requests are in flight.
    @inline(__always)
    mutating func claimRequests(for thread: UInt) -> Bool {
        if depth == 0 { requestThread = thread }
        return requestThread == thread
    }

    // MARK: Requests

    /// A request starts, with the failure of a request around it set aside (``setFailureAside()``)
    /// or not: a whole request's failure is not, and the new request starts failed, handing that
    /// failure back when it ends.
    @inline(__always)
    mutating func startRequest(suspendingFailure suspends: Bool) -> Request {
        depth += 1
        return Request(keptMark: kept.list.count, graphMark: graph.members.count, suspendsFailure: suspends)
    }

    /// A request the application starts with no other in flight: there is no failure to set
    /// aside, nothing made before it to mark, and no frame it could repeat or deepen. It ends
    /// through ``endPlainRequest()`` when it made nothing to keep or drop, else as any request
    /// started at these marks (``plainRequest``) does.
    @inline(__always)
    mutating func startPlainRequest() {
        assert(
            depth == 0 && stack.count == 0 && kept.list.isEmpty && graph.members.isEmpty && failure == nil
                && requestsStartedFailed.isEmpty,
            "ResolutionState: a plain request started inside another")
        depth = 1
    }

    /// What ``startPlainRequest()`` started, for the general end.
    static var plainRequest: Request { Request(keptMark: 0, graphMark: 0, suspendsFailure: false) }

    /// A request the application started ends having made nothing to keep or drop, and with no
    /// failure or later release: the top-level request that needs no nesting bookkeeping (the
    /// caller checks ``SharedState/endsAsPlainRequest``).
    @inline(__always)
    mutating func endPlainRequest() {
        depth = 0
        graph.forget()
    }

    /// ``endPlainRequest()`` of a request ``startPlainRequest()`` began, which is never in a
    /// recalled graph: there is no record to release.
    @inline(__always)
    mutating func endStartedPlainRequest() {
        depth = 0
        graph.forgetUnrecalled()
    }

    /// A request that succeeded and set no failure aside ends: what it kept is final (no
    /// enclosing request rolls it back: a `Lazy` resolved inside a factory that later fails keeps
    /// its instance), and the graph ends with the last request. Its failure stays as it found it,
    /// `nil`: most requests, which then copy no optional error.
    @inline(__always)
    mutating func endSucceededRequest(_ request: Request, into teardown: inout Teardown) {
        assert(requestsStartedFailed.last ?? 0 < depth, "ResolutionState: a request that started failed succeeded")
        depth -= 1
        kept.take(from: request.keptMark, into: &teardown)
        if depth == 0 { endGraph(into: &teardown) }
    }

    /// A request that failed, or set a failure aside, ends (its failure reported by the caller
    /// already). One that failed takes back what it made, in every scope, and its failure ends
    /// with it, unless it is the whole request's and the request is nested in a running factory or
    /// started with it (``noteRequestStartsFailed()``): then the request around it fails too, up to
    /// the one the application started. A failure set
    /// aside when it started comes back (or, handing on a whole request's failure, is dropped).
    /// Then it ends as one that succeeded: after a rollback, with nothing left to keep.
    mutating func endRequestChangingFailure(_ request: Request, into teardown: inout Teardown) -> RequestEnd {
        let handsOn = endingRequestHandsFailureOn
        if requestsStartedFailed.last == depth { requestsStartedFailed.removeLast() }
        let setAside = request.suspendsFailure ? suspendedFailures.removeLast() : nil
        let end: RequestEnd = (failure, handsOn ? setAside : failure)
        if !handsOn { failure = setAside }
        if end.failure != nil { rollBack(request, into: &teardown) }
        endSucceededRequest(request, into: &teardown)
        return end
    }

    // MARK: Failures

    /// The resolution in flight fails with `error`, unless it has failed already. Replaces `nil`:
    /// releases nothing.
    mutating func fail(_ error: ResolutionError) -> Bool {
        guard !hasFailed else { return false }
        failure = error
        return true
    }

    /// The failure of the request in flight is logged (a flag changed in place: releases nothing).
    mutating func markFailureLogged() {
        failure?.isLogged = true
    }

    /// Sets aside the failure of the request in flight, if it has failed and a factory may handle
    /// it (not the whole request's), for a request of its own or a resolution that is not refused
    /// for it; pair with ``takeBackFailure()``.
    mutating func setFailureAside() -> Bool {
        guard hasFailed, !failureEndsRequest, let failure else { return false }
        suspendedFailures.append(failure)
        self.failure = nil  // a copy is on the list: releases nothing
        return true
    }

    /// Whether the request ending now hands its failure on to the request around it: a whole
    /// request's failure, in a request nested in a running factory or started with that failure
    /// (``noteRequestStartsFailed()``).
    var endingRequestHandsFailureOn: Bool {
        hasFailed && failureEndsRequest && (stack.count > 0 || requestsStartedFailed.last == depth)
    }

    /// A request about to start inherits the failure in flight, a whole request's, which
    /// ``setFailureAside()`` does not set aside: it ends handing that failure back.
    mutating func noteRequestStartsFailed() {
        assert(hasFailed && failureEndsRequest, "ResolutionState: a request inherits no failure")
        requestsStartedFailed.append(depth + 1)
    }

    /// Gives back the failure ``setFailureAside()`` set aside; returns the one it replaces, for
    /// the caller to release.
    mutating func takeBackFailure() -> ResolutionError? {
        exchange(&failure, suspendedFailures.removeLast())
    }

    /// A construction nested in a running factory failed with a failure a factory may handle: the
    /// request in flight goes on unfailed, and what the construction made since `marks` is taken
    /// back, in every scope. Returns the failure, for the caller to record again after the
    /// teardown and release, and that teardown; `nil` if there is none to confine (a whole
    /// request's failure never is: the request ends with it).
    mutating func confineFailure(from marks: Marks) -> (failure: ResolutionError, teardown: Teardown)? {
        guard !failureEndsRequest, let failure = exchange(&failure, nil) else { return nil }
        var teardown = startTeardown()
        if marks.kept < kept.list.count || marks.graph < graph.members.count {
            rollBack(Request(keptMark: marks.kept, graphMark: marks.graph, suspendsFailure: false), into: &teardown)
        }
        return (failure, teardown)
    }

    /// Records `error` as the latest failure and returns the one it replaces, for the caller to
    /// release once every field is consistent. Inside a request, its end must forget the record
    /// once no call is left to read it.
    @inline(__always)
    mutating func record(_ error: ResolutionError) -> ResolutionError? {
        errorCount &+= 1
        if depth > 0 { mayHaveLaterReleases = true }
        return exchange(&lastError, error)
    }

    /// Forgets ``lastError``; returns it, for the caller to release.
    mutating func forgetLastError() -> ResolutionError? {
        exchange(&lastError, nil)
    }

    /// The hierarchy put something on a list it keeps (`laterReleases`, `handedFailures`): the
    /// request's end must take the general path.
    mutating func expectGeneralEnd() {
        mayHaveLaterReleases = true
    }

    /// Whether `type` may be a wrapper Graft makes: not the last type found not to be one.
    @inline(__always)
    func mayBeWrapper(_ type: Any.Type) -> Bool {
        ObjectIdentifier(type) != lastTypeNotWrapping
    }

    /// `type` was found not to be a wrapper Graft makes.
    mutating func noteNotWrapper(_ type: Any.Type) {
        lastTypeNotWrapping = ObjectIdentifier(type)
    }

    /// A teardown finished: the hint is recomputed from the lists themselves.
    mutating func settleGeneralEnd(listsMayHoldValues: Bool) {
        mayHaveLaterReleases = listsMayHoldValues || lastError != nil && depth > 0
    }

    /// A call that hands its failure to its caller starts at the current frame count; returns the
    /// level of the one around it, for ``endQuietCall(_:)``.
    mutating func beginQuietCall() -> Int {
        exchange(&quietLevel, stack.count)
    }

    @inlinable
    mutating func endQuietCall(_ outer: Int) {
        quietLevel = outer
    }

    /// User code starts that is no part of the call at the current frame count (a `deinit` a
    /// teardown runs, a custom storage told): a resolution it makes is a call of its own, which
    /// logs its failure, even at the level of a call that hands its failure to its caller.
    /// Returns that call's level, for ``endQuietCall(_:)``. Until then the level is
    /// ``suspendedLevel``: a call made by that user code leaves to the call around it what that
    /// call holds back, and may still borrow (``SharedState/releasePastCall()``).
    mutating func suspendQuietCall() -> Int {
        exchange(&quietLevel, Self.suspendedLevel)
    }

    /// ``quietLevel`` while user code runs that is no part of the call in flight.
    static let suspendedLevel = -2

    // MARK: Teardown

    /// An empty teardown, with the buffers kept from the last one.
    mutating func startTeardown() -> Teardown {
        Teardown(values: exchange(&spareValues, []), entries: exchange(&spareEntries, []))
    }

    /// Undoes what `request` made, above what no failure takes back: its graph instances (a custom
    /// scope's member stays listed: its storage is told the graph ended once, at its end) and the
    /// instances it kept in other scopes, moved out into `teardown`.
    private mutating func rollBack(_ request: Request, into teardown: inout Teardown) {
        assert(!isMovingOut, "ResolutionState: teardown re-entered while moving instances out")
        isMovingOut = true
        graph.finishMembers(from: max(request.graphMark, graph.fixed), into: &teardown.members)
        for member in teardown.members where member.cell.entryHasStorage { graph.relist(member) }
        teardown.members.removeAll { $0.cell.entryHasStorage }
        kept.moveInstances(from: request.keptMark, into: &teardown, rolledBackIn: graph.identifier)
        kept.take(from: request.keptMark, into: &teardown)
        isMovingOut = false
    }

    /// Keeps the emptied buffers of a teardown that has released everything, for the next one.
    mutating func keepBuffers(of teardown: inout Teardown) {
        if spareValues.capacity == 0 { swap(&spareValues, &teardown.values) }
        if spareEntries.capacity == 0 { swap(&spareEntries, &teardown.entries) }
        graph.keepBuffer(&teardown.members)
    }
}
