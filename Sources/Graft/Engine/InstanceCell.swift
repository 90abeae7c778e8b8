// Graft — MIT License.

/// The memory where an entry keeps its instances: a 24-byte header (seven state bytes, the
/// identity of the type stored at 8, the count of resolutions at 16), then two `Service` values,
/// [0] kept by `.container` and [1] the current graph's (or a finished graph's, waiting to be
/// released).
///
/// Raw memory rather than `Service?` properties: in unspecialized code every `Optional<Service>`
/// costs a runtime metadata lookup. And the registration table keeps a copy of this pointer, so a
/// `.container`-scoped hit reads the instance without touching (or retaining) the entry.
///
/// Invariants, checked by `assert` on every access in debug builds:
/// - a value is initialized exactly while its flag is set;
/// - every read and write is as the type the cell was made for (the header records it);
/// - a value is released only after its flag is cleared and it has been moved out of the cell, so
///   a `deinit` that runs during the release (and resolves, registers or removes) finds the cell
///   empty and consistent, never a value that is being destroyed;
/// - ending a graph first marks every graph value `finished` (``finishGraph(at:)``, no user code,
///   no generic call), then releases them one by one (``releaseFinishedReference(at:)``, or
///   through the entry). A finished value is
///   no graph instance: a resolution started by a `deinit` meanwhile makes a new one, and hands the
///   finished value it displaces to the hierarchy, which releases it once consistent (never inside
///   the store). Byte 1 is `graphEmpty`, `graphHeld` or `graphFinished`.
/// - byte 4 is set only when `Service` is a class type (a value is one strong reference), and
///   byte 5 while the entry has a custom storage; with byte 4 set and byte 5 clear, the hierarchy
///   releases a finished graph value without a call into the entry
///   (``releaseFinishedReference(at:)``). Debug builds check byte 4 against `Service` on every
///   store into the graph slot.
@usableFromInline
struct InstanceCell {
    @usableFromInline let base: UnsafeMutableRawPointer

    /// The header's fields, by byte offset (constants: inlined, no storage).
    @usableFromInline
    enum Header {
        /// `Bool`: the `.container` value, slot [0], is initialized.
        @inlinable static var hasInstance: Int { 0 }
        /// `UInt8`: `graphEmpty`, `graphHeld` or `graphFinished`, for slot [1].
        @inlinable static var graphState: Int { 1 }
        /// `UInt8`: which construction the inlinable path runs itself (``InstanceCell/plan``).
        @inlinable static var plan: Int { 2 }
        /// `Bool`: the entry is on the hierarchy's list for the current graph.
        @inlinable static var isListedInGraph: Int { 3 }
        /// `Bool`: `Service` is a class type (a value is one strong reference).
        @inlinable static var isReference: Int { 4 }
        /// `Bool`: the entry has a custom storage.
        @inlinable static var entryHasStorage: Int { 5 }
        /// `Bool`: the memory is inside the entry.
        @inlinable static var isInline: Int { 6 }
        /// `ObjectIdentifier`: the type the cell was made for.
        @inlinable static var storedType: Int { 8 }
        /// `Int`: resolutions counted.
        @inlinable static var resolutionCount: Int { 16 }
        /// The header's size: the values start at the first multiple of their alignment from here.
        @inlinable static var size: Int { 24 }
        /// Slot [1] of a class type, whose values are 8-byte references from `size`.
        @inlinable static var referenceGraphValue: Int { 32 }
    }

    @inlinable @inline(__always)
    static func valueOffset<Service>(_: Service.Type) -> Int {
        // An alignment is a power of two: rounding up is a mask. Unspecialized code reads the
        // alignment from the metadata at run time, where a division would cost tens of cycles on
        // every access to a value.
        let alignmentMask = MemoryLayout<Service>.alignment - 1
        return (Header.size + alignmentMask) & ~alignmentMask
    }

    /// The bytes a cell of `Service` takes.
    @inlinable @inline(__always)
    static func byteCount<Service>(_ type: Service.Type) -> Int {
        valueOffset(type) + 2 * MemoryLayout<Service>.stride
    }

    /// What a cell of a class type takes (header and two references): the size of the memory a
    /// `ServiceEntry` holds for its cell inline.
    @usableFromInline static let inlineByteCount = 40

    /// Memory for a cell of `Service` of its own (not inside its entry), to make it in.
    @inlinable
    static func allocateMemory<Service>(for type: Service.Type) -> UnsafeMutableRawPointer {
        usesMalloc(type)
            ? Platform.allocate(byteCount: byteCount(type))
            : .allocate(byteCount: byteCount(type), alignment: MemoryLayout<Service>.alignment)
    }

    /// The cell at `base`, made earlier.
    @inlinable @inline(__always)
    init(existingAt base: UnsafeMutableRawPointer) {
        self.base = base
    }

    /// Makes a cell of `Service` in `memory`: `byteCount(Service.self)` bytes aligned for `Service`,
    /// either from ``allocateMemory(for:)`` or, for a class type, inside the entry (`isInline`,
    /// byte 6: the cell's memory is freed with the entry, not by ``deallocate(_:)``).
    /// Inlinable: made by the inlinable `ServiceEntry.init`, specialized where `register` is
    /// called, so the sizes, offsets and byte 4 are constants there.
    @inlinable
    init<Service>(for type: Service.Type, in memory: UnsafeMutableRawPointer, isInline: Bool) {
        assert(
            !isInline || (Self.isReference(type) && Self.byteCount(type) == Self.inlineByteCount),
            "InstanceCell: \(type) made inline")
        base = memory
        // Bytes 0 to 7 zeroed at once: every flag clear, the graph slot empty (`graphEmpty` is 0) and
        // the plan general (`planGeneral` is 0); then bytes 4 and 6.
        base.storeBytes(of: 0, toByteOffset: Header.hasInstance, as: UInt64.self)
        base.storeBytes(of: Self.isReference(type), toByteOffset: Header.isReference, as: Bool.self)
        base.storeBytes(of: isInline, toByteOffset: Header.isInline, as: Bool.self)
        base.storeBytes(of: ObjectIdentifier(Service.self), toByteOffset: Header.storedType, as: ObjectIdentifier.self)
        base.storeBytes(of: 0, toByteOffset: Header.resolutionCount, as: Int.self)
        (base + Self.valueOffset(type)).bindMemory(to: Service.self, capacity: 2)
    }

    /// The type this cell was made for.
    @inlinable
    var storedType: ObjectIdentifier { base.load(fromByteOffset: Header.storedType, as: ObjectIdentifier.self) }

    @inline(__always)
    private func values<Service>(_: Service.Type) -> UnsafeMutablePointer<Service> {
        assert(storedType == ObjectIdentifier(Service.self), "InstanceCell: accessed as \(Service.self)")
        return (base + Self.valueOffset(Service.self)).assumingMemoryBound(to: Service.self)
    }

    @inlinable @inline(__always)
    var hasInstance: Bool { base.load(fromByteOffset: Header.hasInstance, as: Bool.self) }

    /// How many times the entry was resolved (for `Container.registrations`). Counted on every
    /// path, the inlined `.container` hit included: one add to memory the hit reads anyway.
    @inlinable
    var resolutionCount: Int {
        get { base.load(fromByteOffset: Header.resolutionCount, as: Int.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: Header.resolutionCount, as: Int.self) }
    }

    @inlinable @inline(__always)
    func countResolution() {
        resolutionCount &+= 1
    }

    @inlinable @inline(__always)
    var hasGraphInstance: Bool { graphState == Self.graphHeld }

    /// Whether the planned path returns the current graph's instance: a graph-scoped plan that
    /// holds one.
    @inlinable @inline(__always)
    var hasPlannedGraphInstance: Bool { plan == Self.planGraph && hasGraphInstance }

    @usableFromInline static let graphEmpty: UInt8 = 0
    @usableFromInline static let graphHeld: UInt8 = 1
    @usableFromInline static let graphFinished: UInt8 = 2

    @inlinable @inline(__always)
    var graphState: UInt8 { base.load(fromByteOffset: Header.graphState, as: UInt8.self) }

    /// Which construction the inlinable resolution path runs itself for this cell's entry (byte 2),
    /// kept by the entry (``ServiceEntry/updatePlan()``) as its settings change: a plain factory
    /// or a throwing one without arguments, no `initCompleted` action, and the scope. Anything
    /// else takes the general path.
    @inlinable
    var plan: UInt8 {
        get { base.load(fromByteOffset: Header.plan, as: UInt8.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: Header.plan, as: UInt8.self) }
    }

    @usableFromInline static let planGeneral: UInt8 = 0
    @usableFromInline static let planTransient: UInt8 = 1
    @usableFromInline static let planGraph: UInt8 = 2

    /// Marks a held graph value finished (the graph it belongs to has ended), and the entry as no
    /// longer on a graph's list. Non-generic: the hierarchy calls it for every graph entry before
    /// any value is released.
    static func finishGraph(at base: UnsafeMutableRawPointer) {
        if base.load(fromByteOffset: Header.graphState, as: UInt8.self) == graphHeld {
            base.storeBytes(of: graphFinished, toByteOffset: Header.graphState, as: UInt8.self)
        }
        base.storeBytes(of: false, toByteOffset: Header.isListedInGraph, as: Bool.self)
    }

    /// Whether the entry is on the hierarchy's list for the current graph (byte 3). Custom scopes,
    /// which keep nothing in the cell, use it to be listed once per graph.
    var isListedInGraph: Bool {
        get { base.load(fromByteOffset: Header.isListedInGraph, as: Bool.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: Header.isListedInGraph, as: Bool.self) }
    }

    /// Whether a value of `Service` is exactly one strong reference to a class instance.
    @inlinable
    static func isReference<Service>(_: Service.Type) -> Bool {
        Service.self is AnyObject.Type && MemoryLayout<Service>.size == MemoryLayout<UnsafeRawPointer>.size
    }

    /// Debug check of byte 4: set exactly for a class type, whose graph value is then at 32.
    private func isReferenceFlagCorrect<Service>(for type: Service.Type) -> Bool {
        let isReference = Self.isReference(type)
        return base.load(fromByteOffset: Header.isReference, as: Bool.self) == isReference
            && (!isReference || Self.valueOffset(type) + MemoryLayout<Service>.stride == Header.referenceGraphValue)
    }

    /// Byte 5: the entry has a custom storage, which the end of a graph must tell (so its values
    /// are released through the entry).
    var entryHasStorage: Bool {
        get { base.load(fromByteOffset: Header.entryHasStorage, as: Bool.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: Header.entryHasStorage, as: Bool.self) }
    }

    /// Releases a finished graph's value, if any, after emptying its slot, without knowing its
    /// type: only for a cell of a class type whose entry has no custom storage (bytes 4 and 5).
    /// - Returns: Whether the cell is such a cell (`false`: nothing was done, release through the
    ///   entry).
    static func releaseFinishedReference(at base: UnsafeMutableRawPointer) -> Bool {
        guard base.load(fromByteOffset: Header.isReference, as: Bool.self),
            !base.load(fromByteOffset: Header.entryHasStorage, as: Bool.self)
        else { return false }
        guard base.load(fromByteOffset: Header.graphState, as: UInt8.self) == graphFinished else { return true }
        base.storeBytes(of: graphEmpty, toByteOffset: Header.graphState, as: UInt8.self)
        // A class type's alignment is 8, so its values start at 24, and slot [1] at 32. The
        // reference is moved out (the slot is empty) before the release runs any `deinit`.
        let reference = base.load(fromByteOffset: Header.referenceGraphValue, as: UnsafeRawPointer.self)
        release(reference)
        return true
    }

    /// A call the optimizer cannot look past: the store that empties the slot stays before the
    /// release, whose `deinit` may read this cell (see `SharedState.laterReleases`).
    @inline(never)
    private static func release(_ reference: UnsafeRawPointer) {
        Unmanaged<AnyObject>.fromOpaque(reference).release()
    }

    /// The `.container` instance; only while ``hasInstance``.
    @inlinable @inline(__always)
    func instance<Service>(as type: Service.Type) -> Service {
        assert(hasInstance, "InstanceCell: read of an empty container slot")
        assert(storedType == ObjectIdentifier(Service.self), "InstanceCell: container slot read as \(Service.self)")
        return (base + Self.valueOffset(type)).assumingMemoryBound(to: Service.self).pointee
    }

    /// The current graph's instance; only while ``hasGraphInstance``.
    @inlinable @inline(__always)
    func graphInstance<Service>(as type: Service.Type) -> Service {
        assert(hasGraphInstance, "InstanceCell: read of an empty graph slot")
        assert(storedType == ObjectIdentifier(Service.self), "InstanceCell: graph slot read as \(Service.self)")
        return (base + Self.valueOffset(type)).assumingMemoryBound(to: Service.self)[1]
    }

    /// Stores the `.container` value; only while the slot is empty (the scope keeps one instance,
    /// and storing over it would release the old one inside the store, running user code there).
    func setInstance<Service>(_ value: Service) {
        assert(!hasInstance, "InstanceCell: container value overwritten")
        values(Service.self).initialize(to: value)
        base.storeBytes(of: true, toByteOffset: Header.hasInstance, as: Bool.self)
    }

    /// Stores the current graph's value; only while slot [1] is empty (a value it held, held or
    /// finished, has been taken out with ``takeGraphSlot(_:)`` first, for the caller to release
    /// when the container is consistent).
    @inline(__always)
    func setGraphInstance<Service>(_ value: Service) {
        assert(graphState == Self.graphEmpty, "InstanceCell: graph value overwritten")
        assert(isReferenceFlagCorrect(for: Service.self), "InstanceCell: byte 4 does not describe \(Service.self)")
        (values(Service.self) + 1).initialize(to: value)
        base.storeBytes(of: Self.graphHeld, toByteOffset: Header.graphState, as: UInt8.self)
    }

    /// Whether slot [1] holds anything (the current graph's value, or a finished one).
    var graphSlotIsOccupied: Bool { graphState != Self.graphEmpty }

    /// Empties slot [1] and hands its value (held or finished) to the caller.
    func takeGraphSlot<Service>(_ type: Service.Type) -> Service {
        assert(graphSlotIsOccupied, "InstanceCell: take from an empty graph slot")
        base.storeBytes(of: Self.graphEmpty, toByteOffset: Header.graphState, as: UInt8.self)
        return (values(type) + 1).move()
    }

    /// Empties the container slot and hands its value to the caller, who releases it once nothing
    /// else needs doing; only while ``hasInstance``.
    func moveInstance<Service>(_ type: Service.Type) -> Service {
        assert(hasInstance, "InstanceCell: move out of an empty container slot")
        base.storeBytes(of: false, toByteOffset: Header.hasInstance, as: Bool.self)
        return values(type).move()
    }

    /// Empties the cell and frees its memory if it has memory of its own (an inline cell's goes
    /// with its entry); the values it still held are released after that.
    func deallocate<Service>(_ type: Service.Type) {
        var held: [Any] = []
        if hasInstance { held.append(moveInstance(type)) }
        if graphSlotIsOccupied { held.append(takeGraphSlot(type)) }
        freeMemory(type)
        withExtendedLifetime(held) {}
    }

    private func freeMemory<Service>(_ type: Service.Type) {
        if base.load(fromByteOffset: Header.isInline, as: Bool.self) { return }  // freed with the entry
        if Self.usesMalloc(type) { Platform.deallocate(base) } else { base.deallocate() }
    }

    /// `malloc` aligns to 16 bytes, enough for nearly every type.
    @inlinable
    static func usesMalloc<Service>(_: Service.Type) -> Bool {
        MemoryLayout<Service>.alignment <= 16
    }
}
