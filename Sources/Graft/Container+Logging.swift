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
    /// Graft calls it holding no lock of its own, so it may resolve; calls from different
    /// hierarchies (or plain containers on different threads) may overlap, so a function that
    /// keeps state guards it itself. While ``validate()`` runs, each failure is delivered at once,
    /// also to standard error, even under the hierarchy's mutex: a factory that force-unwraps
    /// it (`r.resolve(X.self)!`) stops the process right after.
    ///
    /// ```swift
    /// Container.loggingFunction = { message in logger.warning("\(message)") }
    /// ```
    public static var loggingFunction: LoggingFunctionType? {
        get { logSink.function }
        set { logSink.function = newValue }
    }

    private static let logSink = LogSink()

    /// Builds the message only when someone will read it.
    static func log(_ message: () -> String) {
        logSink.log(message)
    }

    /// Whether anyone reads messages (so they are worth building).
    static var isLogging: Bool { logSink.hasFunction }

    /// Whether the logging function is the default one, writing to standard error
    /// (`GRAFT_LOGGING_ENABLED=1`).
    static var logsToStandardError: Bool { logSink.writesToStandardError }

    /// Delivers messages held back while a synchronized call held the hierarchy's mutex.
    static func deliver(_ messages: [String]) {
        for message in messages { log { message } }
    }

    func resolutionFailureMessage(_ serviceType: Any.Type, name: String?, argumentTypeNames: [String]) -> String {
        var request = "\(serviceType)"
        if let name { request += " named \"\(name)\"" }
        request +=
            argumentTypeNames.isEmpty
            ? " taking no arguments"
            : " taking arguments (\(argumentTypeNames.joined(separator: ", ")))"

        let typeName = "\(serviceType)"
        var sameType: [String] = []
        var sameName: [String] = []
        var container: Container? = self
        var level = "this container"
        while let current = container {
            for (key, entry) in current.services.registrations {
                if key.service == ObjectIdentifier(serviceType) {
                    sameType.append("    { \(entry.entryDescription(for: key)) } in \(level)")
                } else if "\(key.serviceType)" == typeName {
                    sameName.append(
                        "    { \(entry.entryDescription(for: key)) } in \(level) (a different type of the same name)")
                }
            }
            container = current.parent
            level = level == "this container" ? "its parent" : "an ancestor"
        }
        var elsewhere: [String] = []
        let lineage = Set(selfAndAncestors.map(ObjectIdentifier.init))
        let me = ObjectIdentifier(viewed ?? self)
        for other in hierarchy.childRegistrations(of: ObjectIdentifier(serviceType))
        where !lineage.contains(other.lineage[0]) {
            let place =
                other.lineage.dropFirst().contains(me) ? "a child container" : "another container of this hierarchy"
            elsewhere.append("    { \(other.description) } in \(place), not visible from here")
        }
        elsewhere = Array(Set(elsewhere))
        var lines = ["Graft: resolution failed: no registration of \(request)."]
        if (viewed ?? self) === ResolverBinding.unbound.viewed { lines.append(ResolverBinding.howToBind) }
        if sameType.isEmpty && sameName.isEmpty && elsewhere.isEmpty {
            lines.append("No registration of \(typeName) exists in this container or its ancestors.")
        } else {
            lines.append("Registrations of \(typeName) that exist:")
            lines += sameType.sorted() + sameName.sorted() + elsewhere.sorted()
        }
        return lines.joined(separator: "\n")
    }
}

/// Holds the logging function. The function is read under `mutex` and called outside it: a
/// logging function may resolve (or log), and calling user code while holding a lock of our own
/// would order that lock against the hierarchy's mutex in two ways at once (a deadlock).
final class LogSink: @unchecked Sendable {  // `storedFunction` is only touched under `mutex`
    private let mutex = RecursiveMutex()
    private var storedFunction: Container.LoggingFunctionType?
    /// Whether `storedFunction` is the default one, which writes to standard error.
    private var storedFunctionWritesToStandardError = false

    init() {
        if Platform.environmentValue("GRAFT_LOGGING_ENABLED") == "1" {
            storedFunction = { Platform.writeToStandardError($0) }
            storedFunctionWritesToStandardError = true
        }
    }

    var writesToStandardError: Bool { mutex.withLock { storedFunctionWritesToStandardError } }

    var function: Container.LoggingFunctionType? {
        get { mutex.withLock { storedFunction } }
        set {
            // The old function is released after unlocking: it may hold the last reference to a
            // container, whose `deinit` takes its hierarchy's mutex, while a synchronized call
            // holding that mutex waits here to read the function (a lock-order inversion).
            let old = mutex.withLock { () -> Container.LoggingFunctionType? in
                defer {
                    storedFunction = newValue
                    storedFunctionWritesToStandardError = false
                }
                return storedFunction
            }
            withExtendedLifetime(old) {}
        }
    }

    /// Whether a function is set; copies no reference to it (a copy released here, under a
    /// hierarchy's mutex, could be the last one).
    var hasFunction: Bool { mutex.withLock { storedFunction != nil } }

    func log(_ message: () -> String) {
        guard let function = mutex.withLock({ storedFunction }) else { return }
        function(message())
    }
}
