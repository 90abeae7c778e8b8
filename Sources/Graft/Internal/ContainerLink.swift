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
    let hierarchy: Hierarchy
    private var isAlive = true

    init(_ container: Container, hierarchy: Hierarchy) {
        self.object = container
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
}
