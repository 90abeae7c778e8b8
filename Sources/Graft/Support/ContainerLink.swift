// Graft — MIT License.

/// How objects that may outlive a container (`ServiceEntry`, `AsyncServiceEntry`, `Lazy` and
/// `Provider` through `DeferredResolution`) reach it: the container owns one link for its life and marks it dead in its `deinit`.
///
/// Invariant: `object` is read only while `isAlive` is set, and `isAlive` is cleared by the
/// container's `deinit` under the hierarchy's mutex, before the container's memory is freed. On
/// the container's one thread that is enough. Under the mutex it is not: another thread may have
/// dropped the last reference, so the container's `deinit` has begun and waits for the mutex this
/// caller holds, with `isAlive` still set. A reference handed out then (to a factory, a behavior)
/// would outlive the container. So ``container``, called in a synchronized call, proves the
/// container's `deinit` has not begun before returning it: it takes a strong reference (which the
/// runtime grants even to an object whose `deinit` has begun) and then forms a weak reference to
/// it, which is `nil` exactly when that `deinit` has begun. Holding the strong reference first
/// means the answer cannot change before the caller lets it go.
///
/// Not `weak` for every read: a weak reference gives the container a side table, and every retain
/// and release of the container then takes the runtime's slow path, which every resolution that
/// retains it would pay (more so from a grandchild). Only a container reached through its link
/// in a synchronized call (a synchronized `Lazy` or `Provider`, `implements` through a view) gets
/// one, and such a container is used through its view, whose path does not retain the container.
/// Not `unowned` (safe) either: its strong load traps on an object whose `deinit` has begun, which
/// is the window above. Debug builds keep a weak shadow and check on every read that the object is
/// alive, or that a synchronized call holds the mutex (the window).
///
/// Reflection (`dump`, a debugger, the operands of a failing `#expect`) goes through
/// ``customMirror``, which shows the flag and never loads the container.
@usableFromInline
final class ContainerLink {
    private unowned(unsafe) let object: Container
    let hierarchy: SharedState
    private var isAlive = true
    #if DEBUG
        private weak var shadow: Container?
    #endif

    init(_ container: Container, hierarchy: SharedState) {
        self.object = container
        self.hierarchy = hierarchy
        #if DEBUG
            self.shadow = container
        #endif
    }

    /// The container, or `nil` once its `deinit` has begun: on this thread, or, in a synchronized
    /// call, on another thread that now waits for the mutex. Outside a synchronized call the
    /// caller is on the container's one thread (a plain container's contract), where no other
    /// thread holds the mutex, so `isInSynchronizedCall` (a count of the hierarchy's) is its own.
    var container: Container? {
        guard isAlive else { return nil }
        let container = object
        guard hierarchy.isInSynchronizedCall else {
            #if DEBUG
                assert(shadow != nil, "ContainerLink: the container's deinit began outside a synchronized call")
            #endif
            return container
        }
        // `container` is a strong reference, so whether its deinit has begun cannot change while
        // it is held; a weak reference formed now is `nil` exactly when it has.
        weak let probe = container
        return probe == nil ? nil : container
    }

    /// Whether this is the link of `candidate`; loads no reference, so it may be asked of a
    /// container whose `deinit` has begun. Under the hierarchy's mutex.
    func links(_ candidate: Container) -> Bool {
        isAlive && ObjectIdentifier(object) == ObjectIdentifier(candidate)
    }

    /// Marks the container gone (its table's service types read first), and forgets its table and
    /// what the hierarchy recorded of a child container's registrations. Called by the container's `deinit`.
    /// `child` is the container's identifier if it has a parent.
    func containerIsGone(with table: RegistrationTable, asChild child: ObjectIdentifier?) {
        let registered = child == nil ? [] : table.serviceTypes
        hierarchy.mutex.withLock {
            isAlive = false
            hierarchy.forgetContainerLocked(table, child: child, services: registered)
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
