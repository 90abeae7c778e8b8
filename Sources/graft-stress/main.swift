// Graft — MIT License.
//
// graft-stress: a bounded concurrency stress of Graft's synchronized views, meant to run under
// ThreadSanitizer (scripts/tsan.sh). Eight pthreads, released together by a barrier, each run a
// fixed number of iterations against the synchronized views of a parent container and of its
// child, touching every scope (transient, graph, container, weak, a custom one), `Lazy` and
// `Provider` (resolved on one thread, accessed on others), and weak-scoped instances that
// threads release while others resolve them. Then four threads change a plain container
// (registrations, forwards, assemblies, `registerAtomically`, scopes, resets, a child's removal)
// while four resolve through its view and read a registration's settings (Changes.swift). After
// joining every thread it checks what was built, and exits 1 on a wrong result.
//
//     graft-stress [--iterations N]     the stress (default 2,000 iterations per thread)
//     graft-stress --planted-race       the stress, then a deliberate data race on a shared
//                                       variable, which ThreadSanitizer must report
//     graft-stress --planted-race-container
//                                       the stress, then two threads resolving through one plain
//                                       (unsynchronized) `Container`, which TSan must report
//
// No Foundation: threads and locks are pthreads, counters are `Synchronization.Atomic` (only
// read after the threads are joined).
import Glibc
import Graft
import Synchronization

var iterations = 2_000
var plantRace = false
var plantContainerRace = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--planted-race": plantRace = true
    case "--planted-race-container": plantContainerRace = true
    case "--iterations":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
            say("graft-stress: --iterations needs a positive number")
            exit(2)
        }
        iterations = value
    default:
        say("usage: graft-stress [--iterations N] [--planted-race] [--planted-race-container]")
        exit(2)
    }
}

stress(threads: 8, iterations: iterations)
stressChanges(threads: 8, iterations: max(iterations / 4, 1))
let failures = census.failures.load(ordering: .relaxed)
guard failures == 0 else {
    say("graft-stress: FAIL: \(failures) wrong results")
    exit(1)
}
say("graft-stress: stress OK")

if plantRace { plantedRaceOnSharedVariable() }
if plantContainerRace { plantedRaceOnPlainContainer() }
