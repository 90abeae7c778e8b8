import RegistrationScenario

// The registration scenario with no allocation counter in the process: every library's `malloc`
// is glibc's own, as in an application.
try runRegistrationComparison(label: "without counter", allocationCount: nil)
