import Graft
import Testing

// Graft — MIT License.

/// The messages Graft logged while one test (or one ``withCapturedLog(_:)-(CapturedLog)->R`` call)
/// ran: each test sees its own, also when tests run in parallel, where ``Graft/Container/loggingFunction``
/// is shared by the whole process. Built on ``Graft/Container/withLoggingFunction(_:operation:)``:
/// it receives what the logging function would (failed resolutions, in the text `resolve` logs),
/// and the failures nobody handled that debug builds print. Messages from work the test hands to
/// another thread (a `DispatchQueue`, a detached task) are not its own and are not captured.
///
/// ```swift
/// @Test(.capturedLog) func aMissingClockIsLogged() {
///     _ = container.resolve(Clock.self)
///     #expect(CapturedLog.current?.messages.contains { $0.contains("Clock") } == true)
/// }
/// ```
public final class CapturedLog: Sendable {
    private let stored = Locked<[String]>([])

    /// The capture of the running test (or ``withCapturedLog(_:)-(CapturedLog)->R`` call), if any.
    @TaskLocal public static var current: CapturedLog?

    /// An empty capture.
    public init() {}

    /// What was logged so far, oldest first.
    public var messages: [String] { stored.withLock { $0 } }

    /// Adds a message; the logging function the capture binds.
    public func append(_ message: String) { stored.withLock { $0.append(message) } }
}

/// Runs `operation` with a new ``CapturedLog``, passed to it and ``CapturedLog/current`` while it
/// runs, bound as the logging function of this task and the child tasks it creates.
///
/// ```swift
/// let logged = withCapturedLog { log in
///     _ = container.resolve(Clock.self)
///     return log.messages
/// }
/// ```
public func withCapturedLog<R>(_ operation: (CapturedLog) throws -> R) rethrows -> R {
    let log = CapturedLog()
    return try CapturedLog.$current.withValue(log) {
        try Container.withLoggingFunction(log.append) { try operation(log) }
    }
}

/// ``withCapturedLog(_:)-(CapturedLog)->R`` around asynchronous work.
public func withCapturedLog<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ operation: (CapturedLog) async throws -> R
) async rethrows -> R {
    let log = CapturedLog()
    return try await CapturedLog.$current.withValue(log) {
        try await Container.withLoggingFunction(log.append, isolation: isolation) { try await operation(log) }
    }
}

/// Runs each test case with a ``CapturedLog`` of its own, read through ``CapturedLog/current``.
/// Apply it to a test or a suite (then to each of its tests).
public struct CapturedLogTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applied to every test of a suite, so each test case gets its own capture.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test case only: a suite's scope would share one capture among its tests.
        guard testCase != nil else { return try await function() }
        try await withCapturedLog { _ in try await function() }
    }
}

extension Trait where Self == CapturedLogTrait {
    /// Each test case's Graft log messages, captured apart from other tests': see ``CapturedLog``.
    public static var capturedLog: Self { CapturedLogTrait() }
}
