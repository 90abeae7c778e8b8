// Graft — MIT License.

// What graft-stress counts while it runs, checked after the threads are joined.

import Glibc
import Graft
import Synchronization

/// Instances made (and, for the weak-scoped kinds, freed), counted from any thread.
final class Census: Sendable {
    let settings = Atomic<Int>(0)
    let session = Atomic<Int>(0)
    let feature = Atomic<Int>(0)
    let pinned = Atomic<Int>(0)
    let churnMade = Atomic<Int>(0)
    let churnFreed = Atomic<Int>(0)
    let childWeakMade = Atomic<Int>(0)
    let childWeakFreed = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
}

let census = Census()

/// Counts factory calls with a plain `var`: Graft documents that factories run under the
/// hierarchy's mutex, so they may touch captured state without a lock of their own. Were a
/// factory ever run outside the mutex, ThreadSanitizer would report this counter.
final class FactoryLog: @unchecked Sendable {  // touched only by factories, i.e. under Graft's mutex
    var calls = 0
}

let factoryLog = FactoryLog()

/// Prints a line and flushes it: a ThreadSanitizer report ends the process with `_exit`, which
/// would drop buffered lines such as "stress OK" that scripts/tsan.sh looks for.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// Records a wrong result (printed for the first few) to fail the run.
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    guard !condition else { return }
    let count = census.failures.add(1, ordering: .relaxed).newValue
    if count <= 20 { say("graft-stress: WRONG: \(what())") }
}
