// Graft — MIT License.

// Deliberate data races, which ThreadSanitizer must report (scripts/tsan.sh proves it does).

import Glibc
import Graft
import Synchronization

/// A plain counter incremented by two threads with no synchronization: a data race that
/// ThreadSanitizer must report. Proves the sanitizer setup, not Graft.
final class UnguardedCounter: @unchecked Sendable {  // deliberately racy
    var value = 0
}

func plantedRaceOnSharedVariable() {
    say("graft-stress: planting a data race on a shared variable (ThreadSanitizer must report it)")
    let counter = UnguardedCounter()
    onThreads(2) { _ in
        for _ in 0..<1_000 { counter.value += 1 }
    }
    say("graft-stress: planted race ran, counter = \(counter.value)")
}

/// Two threads resolving a `.container`-scoped service through one plain `Container`, which is
/// documented as not thread-safe: ThreadSanitizer must report a race inside Graft.
func plantedRaceOnPlainContainer() {
    say("graft-stress: planting a data race on a plain Container (ThreadSanitizer must report it)")
    let container = Container()
    container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
    container.register(Clock.self) { _ in Clock() }.inObjectScope(.transient)
    let shared = Handoff(container)
    onThreads(2) { _ in
        for _ in 0..<200 {
            _ = shared.value.resolve(Settings.self)
            _ = shared.value.resolve(Clock.self)
        }
    }
    say("graft-stress: planted race ran")
}
