// Graft — MIT License.

/// What a hierarchy keeps for diagnostics: the validation running, whether entries need their
/// general checks (validating, or a main-actor registration was made), and the registrations made
/// in child containers, for failure messages that name registrations a container cannot see.
///
/// ``SharedState`` stores it in one field, unchecked in release builds: the validation fields are
/// touched under the container's contract (one thread at a time, or the mutex), the child
/// registrations under the mutex only; no access to them stays open across a call into user code
/// (the path reads each byte once per entry).
@usableFromInline
struct HierarchyDiagnostics {
    /// The validation running (``Container/validate()``), which observes every resolution.
    var validation: ValidationRecorder? {
        didSet {
            isValidating = validation != nil
            entriesNeedChecks = isValidating || hasMainActorEntries
        }
    }
    /// `validation != nil`, as one byte for the path to test.
    @usableFromInline var isValidating = false
    /// `isValidating`, or a main-actor registration made in this hierarchy: one byte the general
    /// path of every entry tests (``ServiceEntry/mayResolve(in:arguments:)``), so a
    /// hierarchy with neither pays one predicted branch for both. Written under the same contract
    /// as `isValidating`; a factory may write it (by `registerMain`) while a resolution runs, but
    /// no access to it is open across user code: the path reads it once per entry.
    @usableFromInline private(set) var entriesNeedChecks = false
    /// Whether a main-actor registration was ever made in this hierarchy (never cleared: a copy
    /// or a forward of it may still be in a table).
    private var hasMainActorEntries = false
    /// Registrations made in child containers that are alive. Guarded by the hierarchy's mutex.
    var childRegistrations = ChildRegistrations()
    /// The registration tables of the hierarchy's containers that are alive, each noted when its
    /// container is made and forgotten when it ends: a validation restores what its factories
    /// change in any of them. Guarded by the hierarchy's mutex.
    var tables: [ObjectIdentifier: RegistrationTable] = [:]

    /// A main-actor registration enters this hierarchy: from now on every entry's general path
    /// asks whether its registration is one (and the thread is the main actor's).
    @usableFromInline
    mutating func noteMainActorEntry() {
        hasMainActorEntries = true
        entriesNeedChecks = true
    }
}
