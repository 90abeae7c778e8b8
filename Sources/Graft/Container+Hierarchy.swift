// Graft — MIT License.

// The parent/child relation: a lookup walks from a container to its ancestors, and the nearest
// registration of a key answers. (What a root and its descendants share, the mutex and the
// resolution in flight, is `SharedState`.)

extension Container {
    /// The slot of `key` in this container or the nearest ancestor that has one; valid until a
    /// registration changes. Inlined: the hash of a key without a name folds to a few
    /// instructions, and a hit in this container's own table takes no call.
    @inlinable @inline(__always)
    func slot(for key: ServiceKey) -> UnsafeMutablePointer<RegistrationTable.Slot>? {
        let hash = RegistrationTable.hash(key)
        if let slot = services.slot(for: key, hash: hash) { return slot }
        return parent == nil ? nil : slotInAncestors(for: key, hash: hash)
    }

    @usableFromInline
    func slotInAncestors(for key: ServiceKey, hash: Int) -> UnsafeMutablePointer<RegistrationTable.Slot>? {
        // Unretained: `parent` (never `nil` here: `slot(for:)` calls this only with one) is a
        // constant strong reference, so while this container is alive (its caller holds it) every
        // ancestor is too, and the walk runs no user code that could change that. Retaining each
        // level for the walk was most of a miss's cost.
        var level = Unmanaged.passUnretained(parent!)
        #if DEBUG
            var held = parent  // the same walk by strong references, which ARC keeps alive
        #endif
        while true {
            #if DEBUG
                assert(held === level.takeUnretainedValue(), "Graft: the ancestor walk left the hierarchy")
                held = held?.parent
            #endif
            let (slot, next) = level._withUnsafeGuaranteedRef { container in
                (container.services.slot(for: key, hash: hash), container.parent.map(Unmanaged.passUnretained))
            }
            if let slot { return slot }
            guard let next else { return nil }
            level = next
        }
    }

    /// This container, then its parent, and so on (views count as their container).
    /// (A parent is never a view: `init` takes the container a view stands for.)
    var selfAndAncestors: [Container] {
        Array(sequence(first: viewed ?? self) { $0.parent })
    }
}
