import MallocCounter
import RegistrationScenario

// The same scenario with the benchmark's counting `malloc` linked in, as in GraftBenchmarks: every
// library's allocations go through it.
try runRegistrationComparison(label: "with counter", allocationCount: graft_malloc_count)
