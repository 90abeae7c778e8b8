// Graft — MIT License.

/// How objects that may outlive a container (`ServiceEntry`, `Lazy`, `Provider`, failure records)
/// reach it: the container owns one link for its life and marks it dead in its `deinit`.
///
/// The container is held `weak`: loading it is a conditional retain that yields `nil` once the
/// container's release has begun, so a thread that reads the link under the mutex while another
/// thread drops the container's last reference gets `nil`, never a dying object. (`unowned` would
/// trap there: its strong load fails on an object being deinitialized.)
///
/// `isAlive` is also cleared by the container's `deinit`, under the hierarchy's mutex, so readers
/// that only need to know whether the container is there (``isLinked``) read a flag, no reference.
///
/// Reflection (`dump`, a debugger, the operands of a failing `#expect`) goes through
/// ``customMirror``, which shows the flag and never loads the container.
@usableFromInline
final class ContainerLink {
    private weak var object: Container?
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

extension ContainerLink: CustomReflectable {
    /// Whether the container is alive; never the container itself, which may be gone.
    @usableFromInline
    var customMirror: Mirror {
        Mirror(self, children: ["isAlive": hierarchy.mutex.withLock { isAlive }], displayStyle: .class)
    }
}
