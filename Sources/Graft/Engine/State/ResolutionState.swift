// Graft — MIT License.

/// The resolution in flight in a hierarchy: its frames, requests, graph and failure. A state
/// machine with no lock and no logging, and no call into user code: its mutating methods are the
/// transitions that leave work behind (start a teardown, take the kept entries, finish the graph's
/// entries, set a failure aside, replace the last error, forget or keep a graph), and what a
/// transition leaves for its caller to do (release values, tell custom storages, log) it returns,
/// for ``SharedState`` to do once every field here is consistent.
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
/// The transitions and queries on the path of every construction (push and pop a frame, open and
/// close a request, ``SharedState/frameCount``, ``SharedState/isAtRequestBase``…) are the
/// hierarchy's, over the stored fields here. As mutating methods of this struct, the optimizer
/// keeps the struct's address live across the factory's call (9 instructions more on a graph of
/// ten whose factories use `require`); as computed properties of it, a debug build copies the
/// whole state to the stack at each call, and a deep chain of factories would not fit a small
/// thread's stack.
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
    var depth = 0
    /// Entries whose factory or `initCompleted` actions are running, outermost first. Unretained:
    /// each is held by the call that pushed it until that call pops it.
    var stack = FrameStack()
    /// Stack index of the innermost running `initCompleted` action, or -1.
    var completionFrame = -1
    /// The thread whose requests are in flight: set by the first request or graph scope to open
    /// (``depth`` 0), compared by every call the path finds nested in them
    /// (``SharedState/claimRequests(resolving:)``, ``SharedState/checkNestedCall(resolving:)``). Meaningless at depth 0.
    var requestThread: UInt = 0
    /// The frame count at which a resolution is a request of its own.
    var requestBase = 0
    /// Entries holding an instance for the current graph, with their cells.
    var graphEntries: [GraphMember] = []
    /// Entries that kept a new instance beyond the graph (undone if their request fails).
    var keptEntries: [KeptMember] = []
    /// How many of ``keptEntries`` and ``graphEntries`` no failure takes back: a wrapper (`Lazy`,
    /// `@Injected`) kept a value while they were in flight, and that value may be one of them or
    /// hold them. Taking them back would leave the wrapper with an instance its scope no longer
    /// has (a second singleton, a second instance in one graph). A rollback starts at or above
    /// these; what the requests make afterwards is taken back as usual.
    var fixedKept = 0
    var fixedGraph = 0
    /// Why the current request failed, once it has.
    var failure: ResolutionError? {
        didSet {
            hasFailed = failure != nil
            failureEndsRequest = failure?.reason.failsTheWholeRequest ?? false
        }
    }
    /// `failure != nil`, as one byte: the path asks it on every construction, and reading the
    /// optional error would copy (and, in a debug build, give stack space to) the whole struct.
    var hasFailed = false
    /// Whether ``failure`` is the whole request's (a cycle, the depth limit), which no factory can
    /// handle: it is not confined to the construction that met it, not set aside for a wrapper
    /// read in a factory, and a request nested in a running factory hands it on to the request
    /// around it, so the outermost request fails and keeps nothing. Every factory still running
    /// gets `nil` at once for what it asks.
    var failureEndsRequest = false
    /// Failures of enclosing requests, set aside while a request of their own runs (a `Lazy`
    /// resolved inside a failing factory).
    var suspendedFailures: [ResolutionError] = []
    /// The latest failure recorded (a request that failed, or a resolution that returned `nil`
    /// for a reason other than a missing registration), and a count of them: `require` compares
    /// the count before and after its resolution to know whether the failure is its own.
    var lastError: ResolutionError?
    var errorCount = 0
    /// The current graph's identifier, made only when someone asks for it.
    var graph: GraphIdentifier?
    /// Whether the current graph's identifier was handed out, so the graph may be resolved again.
    var graphEscaped = false
    /// What an earlier resolution of the current graph left alive, when it is resolved again.
    var recalled: GraphRecord?
    /// Escaped graphs whose instances may still be alive, with weak references to them.
    var records: [GraphIdentifier: GraphRecord] = [:]
    var sweepThreshold = 64
    /// Buffers kept between resolutions so a graph's end allocates nothing.
    var spareEntries: [AnyServiceEntry] = []
    var spareValues: [Any] = []
    var spareMembers: [GraphMember] = []
    /// Whether a request's end must take the general path: set when `laterReleases` or
    /// `handedFailures` (two lists the hierarchy keeps with their dynamic checks) may be
    /// non-empty, and when a failure is recorded inside a request (`lastError`, which the
    /// request's end must forget once no call is left to read it). For the end of every request
    /// to test without a dynamic access check. Only a hint: a stale
    /// `true` sends a request down the general path, which reads the lists themselves.
    var mayHaveLaterReleases = false
    /// The frame count of the innermost call that hands its failure to its caller instead of
    /// logging it (`require` throws it, a `Lazy` or `Provider` stops with it, `validate()`
    /// reports it), or -1. A failure met by a call at another level, such as a factory's own
    /// `resolve` returning `nil`, is logged.
    var quietLevel = -1
    /// Set while instances are being moved out of cells, when no user code may run (written in
    /// every build, asserted on in debug builds).
    var isMovingOut = false

    /// Frees the frame stack's buffer; only from the hierarchy's `deinit`.
    func deallocate() {
        stack.deallocate()
    }

    /// Escaped graphs remembered now (for tests: bounded by the instances still alive).
    var rememberedGraphCount: Int { records.count }

    /// The entry whose factory or `initCompleted` runs innermost, if any.
    var innermostEntry: AnyServiceEntry? {
        stack.count == 0 ? nil : stack[stack.count - 1].takeUnretainedValue() as? AnyServiceEntry
    }

    // MARK: Graphs

    var currentGraph: GraphIdentifier {
        mutating get {
            if let graph { return graph }
            let made = GraphIdentifier()
            graph = made
            return made
        }
    }

    /// The identifier of the graph in flight, handed out to user code (a `Lazy`, a factory
    /// resolving `GraphIdentifier`), so its instances are remembered when it ends; `nil` between
    /// resolutions.
    var escapedGraph: GraphIdentifier? {
        mutating get {
            guard depth > 0 else { return nil }
            graphEscaped = true
            return currentGraph
        }
    }

    /// Leaves the graph in flight with no identifier, no record recalled, and not escaped.
    @inline(__always)
    mutating func forgetGraph() {
        graph = nil
        graphEscaped = false
        recalled = nil
    }

    mutating func keep(_ record: GraphRecord, for identifier: GraphIdentifier) {
        if records[identifier] == nil && records.count >= sweepThreshold {
            records = records.filter { $0.value.hasLiveInstances }
            sweepThreshold = max(64, records.count * 2)
        }
        records[identifier] = record
    }

    // MARK: Frames

    /// `A -> B -> A`, from the innermost frame of `entry` (its `factoryFrame`) to the innermost
    /// frame of all.
    func chain(reentering entry: AnyServiceEntry) -> String {
        let start = entry.factoryFrame >= 0 ? min(entry.factoryFrame, stack.count) : 0
        let names =
            (start..<stack.count).map { SharedState.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
            + [SharedState.label(entry)]
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
        let labels = cycle.map { SharedState.label($0) }
        let isTransient = cycle.allSatisfy { $0.scopeKind == .transient } && completionFrame >= previous
        let lead = entries[..<start].map { SharedState.label($0) }
        let shown =
            (lead + entries[start...(start + period)].map { SharedState.label($0) }).joined(separator: " -> ")
            + " -> ... (\(labels.dropLast().joined(separator: " -> ")) \(repeats) times)"
        return (labels.joined(separator: " -> "), isTransient, shown)
    }

    /// The services whose factories (or `initCompleted` actions) are running, outermost first.
    var path: [String] {
        (0..<stack.count).map { SharedState.label(stack[$0].takeUnretainedValue() as! AnyServiceEntry) }
    }

    // MARK: The thread of the requests in flight

    /// In a check that found the path's state inconsistent: stops with the message for a plain
    /// container used from two threads at once when another thread's requests are in flight
    /// (the likely cause), rather than with the internal check's message.
    func stopIfAnotherThreadResolves(_ event: @autoclosure () -> String) {
        if depth > 0 && requestThread != Platform.currentThread() { SharedState.stopOnTwoThreads(event()) }
    }

    // MARK: Requests

    /// Where a request started, to undo exactly what it made. Trivial (no reference-counted
    /// field), so making and passing one costs no retain.
    @usableFromInline
    struct Request {
        let keptMark: Int
        let graphMark: Int
        /// Whether an enclosing request had failed (its message is on `suspendedFailures`).
        let suspendsFailure: Bool
    }

    /// Where a construction nested in a factory started: what it makes from there on is its own.
    struct Marks {
        let kept: Int
        let graph: Int
    }

    // MARK: Failures

    /// Sets aside the failure of the request in flight, if it has failed; see
    /// ``SharedState/setFailureAside()``.
    mutating func setFailureAside() -> Bool {
        guard hasFailed, !failureEndsRequest, let failure else { return false }
        suspendedFailures.append(failure)
        self.failure = nil  // a copy is on the list: releases nothing
        return true
    }

    /// Records `error` as the latest failure and returns the one it replaces, for the caller to
    /// release once every field is consistent.
    @inline(__always)
    mutating func replaceLastError(with error: ResolutionError) -> ResolutionError? {
        defer {
            lastError = error
            errorCount &+= 1
        }
        return lastError
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

    /// An empty teardown, with the buffers kept from the last one.
    mutating func startTeardown() -> Teardown {
        var values: [Any] = []
        swap(&values, &spareValues)
        var entries: [AnyServiceEntry] = []
        swap(&entries, &spareEntries)
        return Teardown(values: values, entries: entries)
    }

    /// Moves `keptEntries[start...]` into the teardown, which releases them later: removing them
    /// in place could release an entry's last reference, and its `deinit` (user code, through the
    /// instances it releases) could then change the list while it is being changed.
    mutating func takeKeptEntries(from start: Int, into teardown: inout Teardown) {
        guard start < keptEntries.count else { return }
        for kept in keptEntries[start...] { teardown.entries.append(kept.entry) }
        keptEntries.removeSubrange(start...)  // releases nothing: the teardown holds each entry
        fixedKept = min(fixedKept, start)
    }

    /// A wrapper kept a value while requests are in flight: what they made so far is final.
    mutating func fixWhatRequestsMade() {
        fixedKept = keptEntries.count
        fixedGraph = graphEntries.count
    }

    /// Marks the values of `graphEntries[start...]` finished (a flag in each cell: no call, no
    /// user code) and moves those members into the teardown, which releases the values.
    mutating func finishGraphEntries(from start: Int, into teardown: inout Teardown) {
        guard start < graphEntries.count else { return }
        fixedGraph = min(fixedGraph, start)
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

    /// Keeps the emptied buffers of a teardown that has released everything, for the next one.
    mutating func keepBuffers(of teardown: inout Teardown) {
        if spareValues.capacity == 0 { swap(&spareValues, &teardown.values) }
        if spareEntries.capacity == 0 { swap(&spareEntries, &teardown.entries) }
        if spareMembers.capacity == 0 { swap(&spareMembers, &teardown.members) }
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
