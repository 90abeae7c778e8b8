import Foundation
import Testing

@testable import Graft

// Found by the cold read of issue 13's performance changes.

private final class Model {}

private final class Flag: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

@Suite struct PerformanceColdReadTests {
    /// `registerMain` through a view returned an entry whose settings changed without the mutex,
    /// while the main actor resolved it under the mutex: a data race on its scope, its
    /// `initCompleted` actions and its lazily made extras (ThreadSanitizer reported three).
    @Test func aMainActorEntryRegisteredThroughAViewChangesItsSettingsUnderTheMutex() {
        let view = Container().synchronize()
        let entry = view.registerMain(Model.self) { _ in Model() }
        #expect(entry.settingsTakeTheMutex)
        #expect(view.register(Model.self, name: "plain") { _ in Model() }.settingsTakeTheMutex)
    }

    /// The race itself, bounded: a thread registers and rescopes main-actor entries through a view
    /// while the main actor resolves them. Under `scripts/tsan.sh` a missing lock is reported.
    @MainActor @Test func settingsChangedOnAThreadWhileTheMainActorResolves() async {
        let view = Container().synchronize()
        nonisolated(unsafe) let shared = view  // a synchronized view: every call takes the mutex
        let done = Flag()
        Thread {
            for round in 0..<500 {
                shared.registerMain(Model.self, name: "m\(round % 2)") { _ in Model() }
                    .inObjectScope(.weak)
                    .initCompleted { _, _ in }
            }
            done.set()
        }.start()
        var attempts = 0
        while !done.isSet && attempts < 1_000_000 {
            attempts += 1
            _ = view.resolveMain(Model.self, name: "m\(attempts % 2)")
        }
        while !done.isSet {}  // bounded by the thread's 500 rounds
        #expect(view.resolveMain(Model.self, name: "m1") != nil)
    }
}
