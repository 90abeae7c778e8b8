import Graft
import GraftTesting
import Testing

private struct Down: Error {}
private final class Clock: Sendable {}

/// A container whose `Clock` under `name` fails: resolving it logs a failure naming `name`.
private func failingClock(named name: String) -> Container {
    let container = Container()
    container.register(Clock.self, name: name) { _ in throw Down() }
    return container
}

/// Hands each of two tasks the moment the other has logged.
private actor Rendezvous {
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    func arriveAndWait() async {
        arrived += 1
        if arrived == 2 {
            for continuation in waiting { continuation.resume() }
            waiting = []
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}

@Suite struct CapturedLogTests {
    /// Two tasks capture at the same time: each logs, waits until the other has logged, and finds
    /// only its own message in its capture.
    @Test func capturesRunningAtOnceSeeOnlyTheirOwnMessages() async {
        let rendezvous = Rendezvous()
        let captured = await withTaskGroup(of: (String, [String]).self) { group in
            for name in ["left", "right"] {
                group.addTask {
                    await withCapturedLog { log in
                        _ = failingClock(named: name).resolve(Clock.self, name: name)
                        await rendezvous.arriveAndWait()
                        return (name, log.messages)
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for (name, other) in [("left", "right"), ("right", "left")] {
            let messages = captured[name] ?? []
            #expect(messages.count == 1, "\(name): \(messages)")
            #expect(messages.allSatisfy { $0.contains("\"\(name)\"") && !$0.contains("\"\(other)\"") })
        }
    }

    /// The trait gives each test case a capture of its own, and a child task's messages are the
    /// test's too.
    @Test(.capturedLog, arguments: ["first", "second"])
    func theTraitCapturesEachCase(_ name: String) async {
        let container = failingClock(named: name)
        let resolver = container.synchronize()
        _ = await Task { resolver.resolve(Clock.self, name: name) }.value
        let messages = CapturedLog.current?.messages ?? []
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Graft: resolution failed: the factory of Clock (name: \"\(name)\")") == true)
    }

    /// Outside a capture, nothing is captured, and the process-wide logging function is left as it was.
    /// User code run while Graft logs into a capture reads and adds to it: a factory that reads
    /// the messages before it fails, a `deinit` (of an instance its failed request drops) that
    /// reads them and makes a resolution fail in turn. Nothing deadlocks, and every message lands.
    @Test func userCodeRunWhileLoggingReadsAndAddsToTheCapture() {
        final class Dropped {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let container = failingClock(named: "from deinit")
        container.register(Dropped.self) { r in
            _ = CapturedLog.current?.messages
            let dropped = Dropped {
                _ = CapturedLog.current?.messages
                _ = container.resolve(Clock.self, name: "from deinit")
            }
            _ = r.resolve(Clock.self, name: "in the factory")
            try withExtendedLifetime(dropped) { throw Down() }
            return dropped
        }
        container.register(Clock.self, name: "in the factory") { _ in throw Down() }
        let messages = withCapturedLog { log in
            _ = container.resolve(Dropped.self)
            return log.messages
        }
        #expect(messages.contains { $0.contains("from deinit") })
        #expect(messages.contains { $0.contains("in the factory") })
        #expect(messages.contains { $0.contains("Dropped") })
    }

    @Test func outsideACaptureNothingIsCurrent() {
        #expect(CapturedLog.current == nil)
        let before = Container.loggingFunction == nil
        withCapturedLog { log in
            #expect(CapturedLog.current === log)
        }
        #expect((Container.loggingFunction == nil) == before)
    }
}
