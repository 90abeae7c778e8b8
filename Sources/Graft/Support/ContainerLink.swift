// Graft — MIT License.

/// How objects that may outlive a container (`ServiceEntry`, `Lazy`, `Provider`, failure records)
/// reach it: the container owns one link for its life and marks it dead in its `deinit`.
///
/// Invariant: `object` is read only while `isAlive` is set, and `isAlive` is cleared by the
/// container's `deinit` under the hierarchy's mutex, before the container's memory is freed. So a
/// reader on the container's one thread, or under the mutex, never reads freed memory: a thread
/// that reads the link under the mutex while another drops the container's last reference holds
/// the mutex that `deinit` waits for, and the object it loads stays whole until it unlocks (a
/// retain and its release there balance; one kept past the unlock would be reported by the
/// runtime as an object retained during `deinit`, never a read of freed memory).
///
/// Not `weak`: a weak reference gives the container a side table, and every retain and release
/// of the container then takes the runtime's slow path (15% more instructions on a transient
/// resolve, 37% from a grandchild, measured). Not `unowned` (safe) either: its strong load traps
/// on an object whose `deinit` has begun, which is the window above. Debug builds keep a weak
/// shadow and check on every read that the object is alive, or that a synchronized call holds the
/// mutex (the window).
///
/// Reflection (`dump`, a debugger, the operands of a failing `#expect`) goes through
/// ``customMirror``, which shows the flag and never loads the container.
@usableFromInline
final class ContainerLink {
    private unowned(unsafe) let object: Container
    let hierarchy: Hierarchy
    private var isAlive = true
    #if DEBUG
        private weak var shadow: Container?
    #endif

    init(_ container: Container, hierarchy: Hierarchy) {
        self.object = container
        self.hierarchy = hierarchy
        #if DEBUG
            self.shadow = container
        #endif
    }

    /// The container, or `nil` once its `deinit` has started.
    var container: Container? {
        guard isAlive else { return nil }
        #if DEBUG
            assert(
                shadow != nil || hierarchy.isInSynchronizedCall,
                "ContainerLink: the container's deinit began with no synchronized call holding the mutex")
        #endif
        return object
    }

    /// Whether the container is alive; reads no reference to it. Under the hierarchy's mutex.
    var isLinked: Bool { isAlive }

    /// Marks the container gone, and its table with it, and forgets what the hierarchy recorded of
    /// a child container's registrations. Called by the container's `deinit`.
    /// `child` is the container's identifier if it has a parent.
    func containerIsGone(with table: RegistrationTable, asChild child: ObjectIdentifier?) {
        let registered = child == nil ? [] : table.serviceTypes
        hierarchy.mutex.withLock {
            isAlive = false
            if let child { hierarchy.forgetChildRegistrationsLocked(of: child, services: registered) }
        }
    }
}

extension ContainerLink: CustomReflectable {
    /// Whether the container is alive; never the container itself, which may be gone.
    @usableFromInline
    var customMirror: Mirror {
        Mirror(self, children: ["isAlive": hierarchy.mutex.withLock { isAlive }], displayStyle: .class)
    }
}
