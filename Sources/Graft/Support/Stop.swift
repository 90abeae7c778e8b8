// Graft — MIT License.

/// Stops the program with `message` when a caller breaks a documented rule. Unlike
/// `precondition`, whose message an optimized build leaves out, `fatalError` prints it in every
/// build: an application in production says what went wrong.
func stopUnless(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line)
{
    if _slowPath(!condition) { fatalError(message(), file: file, line: line) }
}

/// Stops the program with `message` (see ``stopUnless(_:_:file:line:)``).
func stop(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}
