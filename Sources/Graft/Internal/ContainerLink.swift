// Graft — MIT License.

/// How objects that may outlive a container (`ServiceEntry`, `Lazy`, `Provider`) reach it: the
/// container owns one link for its life and marks it dead in its `deinit`.
///
/// Not a `weak` reference: a weak reference gives the container a side table, and every retain and
/// release of it then takes the runtime's slow path (a third more instructions on a transient
/// resolve, measured). Here the container is `unowned` (safe): the link keeps only its memory, not
/// the object.
///
/// Invariants: `isAlive` is set from the container's `init` until its `deinit` starts, and only
/// while it is set is `container` read. `isAlive` is written in the `deinit` under the hierarchy's
/// mutex, and read under it by synchronized `Lazy`/`Provider` accesses; other readers run on the
/// one thread a plain container is used from. If a `deinit` races a synchronized access despite
/// that (the last reference dropped on one thread while another still uses a `Lazy`), the
/// `unowned` load traps with a message rather than reading freed memory.
@usableFromInline
final class ContainerLink {
    private unowned let object: Container
    /// The same container's address, for ``withTableAndParent(_:)`` only (see its invariant).
    private let address: UnsafeMutableRawPointer
    let hierarchy: Hierarchy
    private var isAlive = true

    init(_ container: Container, hierarchy: Hierarchy) {
        self.object = container
        self.address = Unmanaged.passUnretained(container).toOpaque()
        self.hierarchy = hierarchy
    }

    /// The container, or `nil` once its `deinit` has started.
    var container: Container? {
        isAlive ? object : nil
    }

    /// Whether the container is alive; reads no reference to it. Under the hierarchy's mutex.
    var isLinked: Bool { isAlive }

    /// Called by the container's `deinit`.
    func containerIsGone() {
        hierarchy.mutex.withLock { isAlive = false }
    }

    /// The container's registration table, its parent, and its identity, read without retaining
    /// the container: for listing a hierarchy's containers from any thread; `nil` once it is gone.
    ///
    /// Invariant: while the mutex is held and `isAlive` is set, the container's memory and stored
    /// properties are valid even if its last reference was just dropped on another thread: its
    /// `deinit` begins by clearing `isAlive` under this mutex, so it cannot get past that point.
    /// Converting the `unowned` reference to a strong one there would trap (the object is
    /// deiniting); reading through the unretained address does not, and the table and parent it
    /// returns are retained by the container until its `deinit` ends, so they outlive the read.
    func tableAndParent() -> (table: RegistrationTable, parent: Container?, identity: ObjectIdentifier)? {
        hierarchy.mutex.withLock {
            guard isAlive else { return nil }
            return Unmanaged<Container>.fromOpaque(address)._withUnsafeGuaranteedRef { container in
                assert(container.link === self, "ContainerLink: address does not hold its container")
                return (container.services, container.parent, ObjectIdentifier(container))
            }
        }
    }

}
