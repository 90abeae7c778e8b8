// Graft — MIT License.

extension Container {
    /// A function that receives Graft's diagnostic messages.
    public typealias LoggingFunctionType = (String) -> Void

    /// Receives a message for each resolution that returns `nil` for a reason: what was asked
    /// for and what is registered nearby, a cycle, a factory that threw, with the path that asked.
    /// Set `nil` to silence it.
    ///
    /// What returns `nil` on purpose is not logged: an `Optional` asked for (`r.resolve(X?.self)`)
    /// whose type is not registered, or `GraphIdentifier` outside a resolution. Nor is a failure
    /// that is thrown (`require`) or that stops the program with its reason (a `Lazy`, a
    /// `Provider`, an `@Injected`): the error carries the message.
    ///
    /// By default messages go to standard error when the environment variable
    /// `GRAFT_LOGGING_ENABLED` is `1`, and nowhere otherwise (nor is any message built).
    /// Graft calls it holding no lock of the hierarchy that logs, and once the request that met
    /// the failure has ended (the outermost resolution, `require` or synchronized call of that
    /// hierarchy), so it may resolve: what it resolves is a request of its own, and changes no
    /// answer of the one that logged. Each message goes to the function current where its failure
    /// was met (see ``withLoggingFunction(_:operation:)``; a failure a factory caught, where its
    /// request ends), in the order the hierarchy met them. The default function
    /// (`GRAFT_LOGGING_ENABLED=1`), which only writes, is told at once, so a factory's `!` on the
    /// `nil` stops after its reason; a function you set is not told before such a stop (`require`
    /// throws the reason instead). Inside a ``withObjectGraph(_:closure:)`` body, each resolution's
    /// messages go out when it ends, and the function runs in the body's graph, as the body does.
    /// A failure of a resolution the function makes is logged to it in turn, once, before the
    /// messages still waiting: one met inside that nested call goes to standard error, so a
    /// function whose resolutions keep failing does not call itself without end. A
    /// message of another hierarchy (a copy `withOverrides` made, say) that a factory's resolution
    /// there met is delivered once that hierarchy is idle, which is inside the factory: what the
    /// function resolves from the factory's own hierarchy there is part of the factory's request.
    /// Calls from different hierarchies (or plain containers on different threads) may overlap, so
    /// a function that keeps state guards it itself. While ``validate()`` runs, each failure is
    /// delivered at once, also to standard error, even under the hierarchy's mutex: a factory that
    /// force-unwraps it (`r.resolve(X.self)!`) stops the process right after.
    ///
    /// ```swift
    /// Container.loggingFunction = { message in logger.warning("\(message)") }
    /// ```
    public static var loggingFunction: LoggingFunctionType? {
        get { logSink.function }
        set { logSink.function = newValue }
    }

    /// Whether a failure nobody handled is written to standard error when no ``loggingFunction``
    /// is set: a request the application started that failed because a factory threw, a cycle,
    /// or the depth limit, where the call does not hand the failure to its caller (`resolve`
    /// returns `nil`; `require` throws it instead, and a `Lazy` stops with it). A first `!` on
    /// that `nil` then comes with its reason. Never a missing registration: an optional
    /// dependency's absence is deliberate. `true` in debug builds of Graft, `false` in release
    /// builds; a ``loggingFunction``, once set, receives these failures instead.
    ///
    /// ```swift
    /// Container.printsUnhandledFailures = false   // quiet, as release builds are
    /// ```
    public static var printsUnhandledFailures: Bool {
        get { logSink.mutex.withLock { logSink.storedPrintsUnhandledFailures } }
        set { logSink.mutex.withLock { logSink.storedPrintsUnhandledFailures = newValue } }
    }

    /// Runs `operation` with `function` as the logging function of this task and of the child
    /// tasks it creates: what Graft logs from code running there (and a failure nobody handled,
    /// which ``printsUnhandledFailures`` would print) goes to `function`, not to
    /// ``loggingFunction``. Other tasks and threads keep theirs, so tests running in parallel each
    /// see their own messages (GraftTesting's `withCapturedLog` and `.capturedLog` trait use it).
    /// A message from work handed to another thread (a `DispatchQueue`, a detached task) goes to
    /// ``loggingFunction``.
    ///
    /// ```swift
    /// Container.withLoggingFunction({ message in logged.append(message) }) {
    ///     _ = container.resolve(Clock.self)
    /// }
    /// ```
    public static func withLoggingFunction<R>(
        _ function: @escaping @Sendable (String) -> Void,
        operation: () throws -> R
    ) rethrows -> R {
        logSink.countBindings(1)
        defer { logSink.countBindings(-1) }
        return try LogSink.$taskFunction.withValue(function, operation: operation)
    }

    /// ``withLoggingFunction(_:operation:)`` around asynchronous work.
    public static func withLoggingFunction<R>(
        _ function: @escaping @Sendable (String) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        logSink.countBindings(1)
        defer { logSink.countBindings(-1) }
        return try await LogSink.$taskFunction.withValue(function, operation: operation, isolation: isolation)
    }

    /// Writes `failure` to standard error if ``printsUnhandledFailures`` asks for it and no
    /// logging function received it.
    static func printUnhandled(_ failure: ResolutionError) {
        switch failure.reason {
        case .factoryFailed, .circularDependency, .tooDeep: break
        case .notRegistered, .notOnMainActor, .wrongType: return
        }
        let (prints, bindings) = logSink.mutex.withLock {
            (logSink.storedPrintsUnhandledFailures && logSink.storedFunction == nil, logSink.storedBindings)
        }
        // Not if a logging function is bound in this task (read only while a binding exists).
        guard prints, bindings == 0 || LogSink.taskFunction == nil else { return }
        Platform.writeToStandardError(
            failure.description
                + "\n(Graft prints a failure no caller handled in debug builds: set Container.loggingFunction to "
                + "receive it, or Container.printsUnhandledFailures = false.)")
    }

    private static let logSink = LogSink()

    /// Builds the message only when someone will read it. Given the `hierarchy` that raised it, a
    /// message waits there while that hierarchy is busy (``SharedState/holdsMessages``), for the
    /// function that reads it now, unless that is the default function, which only writes to
    /// standard error: it is told at once, so a factory's `!` on the `nil` stops after its reason.
    static func log(_ message: () -> String, from hierarchy: SharedState? = nil) {
        logSink.log(message, from: hierarchy)
    }

    /// Whether the logging function is the default one, writing to standard error
    /// (`GRAFT_LOGGING_ENABLED=1`).
    static var logsToStandardError: Bool { logSink.mutex.withLock { logSink.storedFunctionWritesToStandardError } }

    /// Delivers held messages, in the order they were raised, each to the function chosen when
    /// it was.
    static func deliver(_ messages: [HeldLogMessage]) {
        for held in messages { LogSink.call(held.function, with: held.text) }
    }

    /// How many registrations of the type asked for a miss's message lists.
    static let listedRegistrations = 20

    /// The failure of a request for which nothing is registered, at the path in flight: its message
    /// says why, with what is registered nearby. `arguments` is the request's key component of its
    /// argument types (``argumentsKey(_:)``). A `Lazy` or `Provider` needs no registration of its
    /// own: the message is about the service it wraps.
    func notRegisteredFailure(
        _ requested: Any.Type, name: String?, arguments: UInt, argumentTypeNames: [String]
    ) -> ResolutionError {
        var serviceType = requested
        var through = ""
        while let deferred = serviceType as? any DeferredWrapper.Type {
            through = " (asked for as \(requested))"
            serviceType = deferred.wrappedType
        }
        let given = argumentsPhrase(argumentTypeNames)
        let request = "\(serviceType)" + (name.map { " named \"\($0)\"" } ?? "") + " taking \(given)"

        let typeName = "\(serviceType)"
        // Registrations of the type, nearest container first and in registration order, described
        // only if listed: a type registered under thousands of names would otherwise make every
        // miss describe, sort and log them all.
        var sameType: [() -> String] = []
        var sameName: [String] = []
        // Names of the type registered with the request's argument types, which a near name is
        // suggested from, and the argument lists of the names registered only with others.
        var namesTakingTheArguments: Set<String> = []
        var otherArgumentLists: [String: Set<String>] = [:]
        var otherTypes: Set<String> = []
        let containers = selfAndAncestors  // this container first
        for (depth, current) in containers.enumerated() {
            let level = depth == 0 ? "this container" : depth == 1 ? "its parent" : "an ancestor"
            for (key, entry) in current.services.registrations {
                if key.service == ObjectIdentifier(serviceType) {
                    sameType.append { "    { \(entry.entryDescription(for: key)) } in \(level)" }
                    if let registered = key.name, key.arguments == arguments {
                        namesTakingTheArguments.insert(registered)
                    } else if let registered = key.name {
                        otherArgumentLists[registered, default: []].insert(argumentsPhrase(entry.argumentTypeNames()))
                    }
                } else if "\(key.serviceType)" == typeName {
                    sameName.append(
                        "    { \(entry.entryDescription(for: key)) } in \(level) (a different type of the same name)")
                    otherTypes.insert(String(reflecting: key.serviceType))
                }
            }
        }
        let ancestors = containers.map(ObjectIdentifier.init)
        let others = hierarchy.mutex.withLock {
            hierarchy.diagnostics.childRegistrations.byService[ObjectIdentifier(serviceType)] ?? []
        }
        .filter { !ancestors.contains($0.lineage[0]) }
        .map { (registration: $0, place: Self.place(of: $0.lineage, from: ancestors)) }
        let elsewhere = Set(
            others.map { "    { \($0.registration.description) } in \($0.place.text), not visible from here" })
        var lines = ["Graft: resolution failed: no registration of \(request)\(through)."]
        if hierarchy.isUnboundPlaceholder { lines.append(ResolverBinding.howToBind) }
        if let name {
            let near = namesTakingTheArguments.filter { $0 != name && isNear($0, name) }.sorted()
            if !near.isEmpty { lines.append("Did you mean \(near.map { "`\($0)`" }.joined(separator: " or "))?") }
            // A near name that only other argument types are registered under would fail too:
            // say what it takes instead of suggesting it.
            for (other, lists) in otherArgumentLists.sorted(by: { $0.key < $1.key })
            where other != name && !namesTakingTheArguments.contains(other) && isNear(other, name) {
                lines.append(
                    "`\(other)` is registered with \(lists.sorted().joined(separator: " or ")); "
                        + "this request passes \(given).")
            }
        }
        if !otherTypes.isEmpty {
            lines.append(
                "Did you mean \(otherTypes.sorted().map { "`\($0)`" }.joined(separator: " or "))? The type asked for is "
                    + "`\(String(reflecting: serviceType))`, a different type of the same name.")
        }
        if sameType.isEmpty && sameName.isEmpty && elsewhere.isEmpty {
            lines.append("No registration of \(typeName) exists in this container or its ancestors. Likely causes:")
            lines.append("    the Assembly that registers it was not applied to this container or an ancestor;")
            // A protocol type (`any P`, a composition, `Any`, `AnyObject`), read from its mangled
            // name, whose last letters say what kind of type it is.
            let mangled = _mangledTypeName(serviceType) ?? ""
            if mangled.hasSuffix("p") || mangled.hasSuffix("Xl") || mangled.hasSuffix("Xc") {
                lines.append(
                    "    its implementation is registered as its concrete type (`register(Concrete.self)`): "
                        + "register it as `\(typeName).self`, or add `.implements(\(typeName).self)` to that registration;"
                )
            }
            // Every live container of this hierarchy that registers the type is listed below
            // instead, so what is left is a container outside it, or one released.
            lines.append(
                "    it is registered in a container this one does not see: one made on its own (`Container()`), "
                    + "not a child of this container's hierarchy, or a child container since released.")
        } else {
            lines.append("Registrations of \(typeName) that exist:")
            let listed = sameType.prefix(Self.listedRegistrations)
            lines += listed.map { $0() }.sorted() + sameName.sorted() + elsewhere.sorted()
            if listed.count < sameType.count {
                lines.append(
                    "    and \(sameType.count - listed.count) more of \(typeName) (`registrations` lists every one).")
            }
            if sameType.isEmpty && sameName.isEmpty {
                if others.contains(where: { $0.place.isDescendant }) {
                    lines.append(
                        "A parent never sees the registrations of its children: resolve through the container "
                            + "that holds it, or register it here.")
                }
                if others.contains(where: { !$0.place.isDescendant }) {
                    lines.append(
                        "A container sees its own registrations and its ancestors' only, never those of a sibling "
                            + "or of another branch of the hierarchy: resolve through the container that holds it, "
                            + "or register it in an ancestor both containers share, or here.")
                }
            }
        }
        return ResolutionError(
            .notRegistered, path: hierarchy.resolution.path + [serviceLabel(requested, name: name)],
            message: lines.joined(separator: "\n"))
    }

    /// Where a container of the hierarchy is, seen from this one: `lineage` is that container and
    /// its ancestors, `ancestors` this container and its own, each nearest first.
    static func place(
        of lineage: [ObjectIdentifier], from ancestors: [ObjectIdentifier]
    ) -> (text: String, isDescendant: Bool) {
        if let depth = lineage.firstIndex(of: ancestors[0]) {
            return (depth == 1 ? "a child container" : "a descendant container (below a child of this one)", true)
        }
        let parent = ancestors.count > 1 ? ancestors[1] : nil
        if lineage.count > 1, lineage[1] == parent {
            return ("a sibling container (another child of this container's parent)", false)
        }
        if lineage.count > 1, ancestors.dropFirst(2).contains(lineage[1]) {
            return ("a child of an ancestor of this container (not of its parent)", false)
        }
        if let shared = lineage.first(where: { ancestors.contains($0) }), shared == parent {
            return ("a descendant of a sibling container (below another child of this container's parent)", false)
        }
        return ("another container of this hierarchy (below another child of an ancestor)", false)
    }
}

/// `no arguments`, or `arguments (Int, String)`: what a registration takes, or a request passes.
func argumentsPhrase(_ typeNames: [String]) -> String {
    typeNames.isEmpty ? "no arguments" : "arguments (\(typeNames.joined(separator: ", ")))"
}

/// Whether two registration names are near enough to suggest one for the other: equal but for
/// case, or an edit distance (insertions, deletions, substitutions, adjacent transpositions) of
/// 1, or 2 for names of 6 characters or more.
func isNear(_ candidate: String, _ asked: String) -> Bool {
    if candidate.lowercased() == asked.lowercased() { return true }
    let (a, b) = (Array(candidate), Array(asked))
    let limit = min(a.count, b.count) >= 6 ? 2 : 1
    guard abs(a.count - b.count) <= limit else { return false }
    guard !a.isEmpty && !b.isEmpty else { return true }  // the other is at most `limit` long
    // Optimal string alignment distance, row by row: `previous` and `beforePrevious` are rows
    // i - 1 and i - 2 of the table.
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count] <= limit
}

/// A log message held until the hierarchy that raised it is idle, with the function chosen when
/// it was raised.
struct HeldLogMessage {
    let function: Container.LoggingFunctionType
    let text: String
}

/// Holds the logging function. The function is read under `mutex` and called outside it: a
/// logging function may resolve (or log), and calling user code while holding a lock of our own
/// would order that lock against the hierarchy's mutex in two ways at once (a deadlock).
final class LogSink: @unchecked Sendable {  // the `stored` fields are only touched under `mutex`
    fileprivate let mutex = RecursiveMutex()
    fileprivate var storedFunction: Container.LoggingFunctionType?
    /// Whether `storedFunction` is the default one, which writes to standard error
    /// (`GRAFT_LOGGING_ENABLED=1`).
    fileprivate var storedFunctionWritesToStandardError = Platform.environmentValue("GRAFT_LOGGING_ENABLED") == "1"
    /// How many tasks run inside ``Container/withLoggingFunction(_:operation:)`` now: while any
    /// does, messages are built, and each goes to its task's function if it has one.
    fileprivate var storedBindings = 0
    /// The logging function of the task running, bound by ``Container/withLoggingFunction(_:operation:)``.
    @TaskLocal static var taskFunction: (@Sendable (String) -> Void)?
    #if DEBUG
        fileprivate var storedPrintsUnhandledFailures = true
    #else
        fileprivate var storedPrintsUnhandledFailures = false
    #endif

    init() {
        if storedFunctionWritesToStandardError { storedFunction = { Platform.writeToStandardError($0) } }
    }

    var function: Container.LoggingFunctionType? {
        get { mutex.withLock { storedFunction } }
        set {
            // The old function is released after unlocking: it may hold the last reference to a
            // container, whose `deinit` takes its hierarchy's mutex, while a synchronized call
            // holding that mutex waits here to read the function (a lock-order inversion).
            let old = mutex.withLock {
                storedFunctionWritesToStandardError = false
                return exchange(&storedFunction, newValue)
            }
            withExtendedLifetime(old) {}
        }
    }

    /// See ``Container/log(_:from:)``. A held message keeps its copy of the function, released
    /// after its delivery, where no lock of a hierarchy is held.
    @inline(__always)
    func log(_ message: () -> String, from hierarchy: SharedState? = nil) {
        // Built only if there is a function.
        let (function, isDefault) = mutex.withLock {
            storedBindings > 0
                ? (Self.function(whileBound: storedFunction), false)
                : (storedFunction, storedFunctionWritesToStandardError)
        }
        guard let function else { return }
        if !isDefault, let hierarchy, hierarchy.holdsMessages {
            hierarchy.hold(HeldLogMessage(function: function, text: message()))
        } else {
            Self.call(function, with: message())
        }
    }

    /// Calls `function` with `message`, unless this thread runs a logging function inside another
    /// already: a message raised there (a resolution the function makes, failing as it is told of
    /// its own failure) is written to standard error instead. A function whose resolutions keep
    /// failing would otherwise call itself until the stack overflows.
    @inline(never)
    static func call(_ function: Container.LoggingFunctionType, with message: String) {
        // The thread's value is a count stored as a pointer's bits, never a pointer: it is not
        // dereferenced, and each call puts back the count it found (0 to 2).
        let depth = Int(bitPattern: Platform.threadValue(depthKey))
        assert((0...2).contains(depth), "LogSink: a logging depth of \(depth) was left on this thread")
        guard depth < 2 else {
            return Platform.writeToStandardError(
                message + "\n(Graft wrote this here, not to the logging function: it was raised inside the logging "
                    + "function while that ran for a failure of its own resolution, and Graft does not nest it deeper.)"
            )
        }
        Platform.setThreadValue(depthKey, UnsafeMutableRawPointer(bitPattern: depth + 1))
        defer { Platform.setThreadValue(depthKey, UnsafeMutableRawPointer(bitPattern: depth)) }
        function(message)
    }

    /// How many logging functions run on the calling thread, one inside another.
    private static let depthKey = Platform.makeThreadKey()

    /// The function of the running task while any task binds one, else `stored`. Out of line: the
    /// path of a failed resolution inlines ``log(_:)``.
    @inline(never)
    private static func function(whileBound stored: Container.LoggingFunctionType?) -> Container.LoggingFunctionType? {
        taskFunction.map { function in { function($0) } } ?? stored
    }

    fileprivate func countBindings(_ change: Int) { mutex.withLock { storedBindings += change } }
}
