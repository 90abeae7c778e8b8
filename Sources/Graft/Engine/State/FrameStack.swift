// Graft — MIT License.

/// The hierarchy's stack of running frames: a growable buffer of unretained references, so a push
/// or a pop is a store and a count (an array would check that its buffer is uniquely referenced
/// on every one). Only its hierarchy touches it, under the hierarchy's contract (one thread at a
/// time, or the mutex); no user code runs while it changes, and no pointer into it is kept across
/// a change (frames are named by index).
///
/// Invariants, checked in debug builds on every access: `count <= capacity`; `[0, count)` holds
/// the frames pushed and not popped; an index read is below `count`.
struct FrameStack {
    private var base: UnsafeMutablePointer<Unmanaged<AnyObject>>
    private var capacity = 32
    private(set) var count = 0

    init() { base = .allocate(capacity: capacity) }

    subscript(index: Int) -> Unmanaged<AnyObject> {
        assert(index >= 0 && index < count, "FrameStack: frame \(index) of \(count) read")
        return base[index]
    }

    @inline(__always)
    mutating func push(_ frame: Unmanaged<AnyObject>) {
        assert(count <= capacity, "FrameStack: \(count) frames in \(capacity)")
        if _slowPath(count == capacity) { grow() }
        (base + count).initialize(to: frame)  // trivial: no value witness, nothing to release
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        assert(count > 0, "FrameStack: pop of an empty stack")
        count -= 1
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Frees the buffer; only from the hierarchy's `deinit`.
    func deallocate() {
        base.deallocate()
    }
}
