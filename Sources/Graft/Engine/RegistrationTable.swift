// Graft — MIT License.

/// The registrations of one container: an open-addressing hash table keyed by ``ServiceKey``.
///
/// `Dictionary` would hash every key with SipHash; here a key without a name hashes with two
/// multiplications, the hash is computed once per resolution for every level of the hierarchy,
/// and a probe compares stored hashes and type addresses before touching anything
/// reference-counted. Two raw buffers owned by this object: `hashes` (trivial, 0 for an empty
/// slot, so it is cleared and grown without value witnesses) and `slots`, initialized only where
/// `hashes` says a slot is occupied. A lookup retains nothing.
///
/// Invariants, checked in debug builds (`checkInvariants`): `capacity` is a power of two; `count`
/// equals the number of nonzero `hashes`, and is at most three quarters of the capacity (half, as
/// before, cost twice the memory per registration); a slot is initialized
/// exactly where its hash is nonzero. No user code runs while the buffers are being changed: an
/// entry or instance that a change releases is moved out first and released after the table is
/// consistent again, so a `deinit` may register or remove at that point. A slot pointer is valid
/// until the next change.
@usableFromInline
final class RegistrationTable {
    @usableFromInline
    struct Slot {
        @usableFromInline var key: ServiceKey
        @usableFromInline var entry: AnyServiceEntry?
        /// The entry's instances, when it is a `ServiceEntry` of the key's own service type (not a
        /// forward): a `.container`-scoped hit reads them here without touching the entry.
        @usableFromInline var directCell: InstanceCell?
    }

    /// The table's buffers and their bookkeeping, in one field so the choice between dynamic
    /// exclusivity checks and none is made once (below).
    @usableFromInline
    struct Buffers {
        /// Each slot's hash with the lowest bit set, or 0 when the slot is empty; then, past
        /// `capacity`, each occupied slot's ``RegistrationTable/orders``.
        @usableFromInline var hashes: UnsafeMutablePointer<Int>
        @usableFromInline var slots: UnsafeMutablePointer<Slot>
        @usableFromInline var capacity: Int
        var count = 0
        /// The ``Slot/order`` of the next key registered.
        var nextOrder = 0
        /// The names of each collection asked of this table since it last changed, in
        /// registration order (see ``appendNames(of:arguments:to:)``).
        var collections: [CollectionKey: [String?]] = [:]
        /// Set while the buffers are being changed, in debug builds; no user code may run then (see
        /// `beginChange`).
        var isChanging = false
    }
    // Read on every resolution at every level of the hierarchy, where a dynamic exclusivity check
    // per access would cost more than the probe. Touched by one thread at a time (a container's
    // contract; a view's calls hold the hierarchy's mutex), and no access is open while user code
    // runs (see the type's comment): unchecked in release builds, checked in debug builds.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        @usableFromInline private(set) var buffers: Buffers
    #else
        @exclusivity(unchecked) @usableFromInline private(set) var buffers: Buffers
    #endif
    @inlinable var hashes: UnsafeMutablePointer<Int> { buffers.hashes }
    @inlinable var slots: UnsafeMutablePointer<Slot> { buffers.slots }
    @inlinable var capacity: Int { buffers.capacity }
    /// When each occupied slot's key was first registered here: collections list a container's
    /// registrations in this order, and a replacement keeps the place of the key it replaced. Apart
    /// from the slots, whose size a lookup's address arithmetic depends on.
    var orders: UnsafeMutablePointer<Int> { hashes + capacity }
    var count: Int { buffers.count }

    /// The hierarchy of the container holding this table, which keeps an entry dropped while a
    /// resolution runs (``SharedState/dropEntry(_:)``). Strong: the hierarchy's list of live
    /// tables holds this one only until its container ends.
    let hierarchy: SharedState

    init(in hierarchy: SharedState) {
        self.hierarchy = hierarchy
        buffers = Self.allocate(16)
    }

    deinit {
        // Nothing can reach this table any more, so the slots are released where they are (a
        // copy of them all would be one large allocation per container destroyed).
        Self.release(hashes, slots, capacity)
    }

    /// New buffers of `capacity` slots, all empty, that will hold `count` registrations.
    private static func allocate(
        _ capacity: Int, count: Int = 0, nextOrder: Int = 0, isChanging: Bool = false
    ) -> Buffers {
        // The orders after the hashes, each written when its slot is occupied (a trivial type).
        let hashes = UnsafeMutablePointer<Int>.allocate(capacity: 2 * capacity)
        hashes.initialize(repeating: 0, count: capacity)
        #if DEBUG  // an order never written reads as -1, which `checkInvariants` refuses
            (hashes + capacity).initialize(repeating: -1, count: capacity)
        #endif
        return Buffers(
            hashes: hashes, slots: .allocate(capacity: capacity), capacity: capacity, count: count,
            nextOrder: nextOrder, isChanging: isChanging)
    }

    /// A key's hash, never 0 (that marks an empty slot).
    @inlinable @inline(__always)
    static func hash(_ key: ServiceKey) -> Int {
        // Type metadata addresses, mixed by multiplication: `ObjectIdentifier.hashValue` would run SipHash.
        var mixed =
            UInt(bitPattern: key.service) &* 0x9E37_79B9_7F4A_7C15
            ^ (key.arguments &* 0xC2B2_AE3D_27D4_EB4F)
        if let name = key.name { mixed ^= NameHash.of(name) }
        // A finalizer that spreads every input bit over the low bits the table indexes by: type
        // metadata addresses are aligned and close together, and a weaker one left probe lengths
        // to the luck of each build's layout (from 1 to 6 probes for the same key).
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        return Int(bitPattern: mixed | 1)
    }

    /// The slot holding `key`, valid until the next change to this table.
    @inlinable @inline(__always)
    func slot(for key: ServiceKey, hash: Int) -> UnsafeMutablePointer<Slot>? {
        let found = probe(for: key, hash: hash)
        return found.isOccupied ? slots + found.index : nil
    }

    /// The slot holding `key`, or the empty slot where it would go, in one probe from its home
    /// slot: nothing is removed alone, so no key lies past an empty slot.
    @inlinable @inline(__always)
    func probe(for key: ServiceKey, hash: Int) -> (index: Int, isOccupied: Bool) {
        let mask = capacity &- 1
        var index = (hash &>> 1) & mask  // bit 0 is always set (it marks an occupied slot): not a home bit
        while true {
            let stored = hashes[index]
            if stored == 0 { return (index, false) }
            if stored == hash, slots[index].key.service == key.service,
                slots[index].key.arguments == key.arguments, slots[index].key.name == key.name
            {
                return (index, true)
            }
            index = (index &+ 1) & mask
        }
    }

    /// Registers `entry` under `key`, replacing what was there. `directCell` is the entry's cell
    /// when `key` is of the entry's own service type, `nil` for a forward. Generic over the entry's
    /// type, so an inlined `register` passes the entry with its type and calls the optimized body
    /// directly: an existential parameter would go through a thunk that opens it. The entry
    /// replaced goes to the hierarchy (``SharedState/dropEntry(_:)``) once the table is consistent:
    /// its `deinit` (or its instances') may register enough to grow the table and free this slot.
    @usableFromInline
    func insert<Entry: AnyServiceEntry>(_ entry: Entry, for key: ServiceKey, directCell: InstanceCell?) {
        let hash = Self.hash(key)
        beginChange()
        // Grown first (a replacement may grow a table it did not need to), so one probe finds
        // either the key or the empty slot where it goes.
        // At most 3/4 full: see `checkInvariants`. Wrapping arithmetic: the counts are far from overflow.
        if (count &+ 1) &* 4 > capacity &* 3 { grow() }
        if !buffers.collections.isEmpty { buffers.collections = [:] }
        let (index, isOccupied) = probe(for: key, hash: hash)
        if isOccupied { return replace(at: index, with: entry, directCell: directCell) }
        hashes[index] = hash
        (slots + index).initialize(to: Slot(key: key, entry: entry, directCell: directCell))
        orders[index] = buffers.nextOrder
        buffers.count &+= 1
        buffers.nextOrder &+= 1
        endChange()
    }

    /// ``insert(_:for:directCell:)`` of a key the table holds. Out of line: a registration of a new
    /// key, the usual one, keeps its registers.
    @inline(never)
    private func replace(at index: Int, with entry: AnyServiceEntry, directCell: InstanceCell?) {
        let replaced = exchange(&slots[index].entry, entry)
        slots[index].directCell = directCell
        endChange()
        hierarchy.dropEntry(replaced.unsafelyUnwrapped)
    }

    /// Marks the first free slot from `hash`'s home slot as holding `hash`, and returns its index
    /// for the caller to initialize (the key is known not to be in the table).
    private func claimFreeSlot(for hash: Int) -> Int {
        let mask = capacity &- 1
        var index = (hash &>> 1) & mask  // bit 0 is always set (it marks an occupied slot): not a home bit
        while hashes[index] != 0 { index = (index &+ 1) & mask }
        hashes[index] = hash
        return index
    }

    /// Doubles the capacity (quadruples it below 1,024 slots: a container filled at start-up
    /// moves its slots fewer times), moving (not copying) every slot to its place in the new buffers.
    private func grow() {
        let old = buffers
        buffers = Self.allocate(
            capacity * (capacity < 1_024 ? 4 : 2), count: count, nextOrder: old.nextOrder, isChanging: true)
        for position in 0..<old.capacity where old.hashes[position] != 0 {
            let index = claimFreeSlot(for: old.hashes[position])
            (slots + index).moveInitialize(from: old.slots + position, count: 1)
            orders[index] = old.hashes[old.capacity &+ position]
        }
        old.hashes.deallocate()
        old.slots.deallocate()  // every occupied slot was moved out
    }

    /// Makes the table hold exactly `registrations` (each key once; none empties it), in their
    /// order: new buffers filled with them, then the old ones released. The table is consistent before any entry is
    /// released, so a `deinit` run by a release finds the new contents, and may register again
    /// (into the new buffers, never the old ones).
    func replaceAll(with registrations: [(key: ServiceKey, entry: AnyServiceEntry)]) {
        beginChange()
        let old = buffers
        var capacity = 16
        while registrations.count * 4 > capacity * 3 { capacity *= 2 }  // at most 3/4 full
        buffers = Self.allocate(capacity, count: registrations.count, nextOrder: registrations.count, isChanging: true)
        for (order, (key, entry)) in registrations.enumerated() {
            let index = claimFreeSlot(for: Self.hash(key))
            (slots + index).initialize(
                to: Slot(key: key, entry: entry, directCell: entry.directCell(forKeyWith: key.service)))
            orders[index] = order
        }
        endChange()
        Self.release(old.hashes, old.slots, old.capacity)
    }

    /// Releases every occupied slot of buffers no table uses any more, one at a time (each moved
    /// out first, so user code run by its release sees no half-destroyed slot), then frees them.
    /// Not inlined: the table's new buffers are stored before this call, which the optimizer
    /// cannot move a release above (a `deinit` may register into the new buffers).
    @inline(never)
    private static func release(
        _ hashes: UnsafeMutablePointer<Int>, _ slots: UnsafeMutablePointer<Slot>, _ capacity: Int
    ) {
        for index in 0..<capacity where hashes[index] != 0 {
            hashes[index] = 0
            _ = (slots + index).move()
        }
        hashes.deallocate()
        slots.deallocate()
    }

    @inline(__always)
    private func beginChange() {
        // Every change to a container holds the hierarchy's mutex and runs no user code while the
        // buffers change, so no change starts inside another, on any thread: checked in debug builds.
        #if DEBUG
            precondition(!buffers.isChanging, "RegistrationTable: a change began while another was in progress")
            buffers.isChanging = true
        #endif
    }

    @inline(__always)
    private func endChange() {
        #if DEBUG
            buffers.isChanging = false
        #endif
        assert(checkInvariants())
    }

    /// Debug builds only: the full check for small tables, the cheap part for large ones.
    private func checkInvariants() -> Bool {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "RegistrationTable: capacity \(capacity)")
        precondition(count * 4 <= capacity * 3, "RegistrationTable: \(count) entries in \(capacity) slots")
        if capacity <= 4096 {
            let occupied = (0..<capacity).filter { hashes[$0] != 0 }
            precondition(occupied.count == count, "RegistrationTable: count \(count), \(occupied.count) slots occupied")
            // Every occupied slot has its own order, given before the next one.
            let ordered = Set(occupied.map { orders[$0] })
            precondition(
                ordered.count == count && ordered.allSatisfy { (0..<buffers.nextOrder).contains($0) },
                "RegistrationTable: the orders of occupied slots are not distinct numbers below \(buffers.nextOrder)")
        }
        return true
    }

    /// The service types of every key, retaining no entry.
    var serviceTypes: Set<ObjectIdentifier> {
        Set((0..<capacity).lazy.filter { self.hashes[$0] != 0 }.map { self.slots[$0].key.service })
    }

    /// Makes the table hold `registrations` again (taken from ``registrations`` earlier), if it
    /// changed since: what was registered since is removed and what was replaced is back, at once
    /// (what goes is released once the table holds them all). A table left alone lists its
    /// registrations in the same order, so comparing the two lists tells.
    func restore(_ registrations: [(key: ServiceKey, entry: AnyServiceEntry)]) {
        let unchanged = self.registrations.elementsEqual(registrations) { now, then in
            now.entry === then.entry && now.key.service == then.key.service
                && now.key.arguments == then.key.arguments && now.key.name == then.key.name
        }
        if !unchanged { replaceAll(with: registrations) }
    }

    /// Whether a registration's key satisfies `matches`, read in place: no list is built.
    func containsKey(where matches: (ServiceKey) -> Bool) -> Bool {
        (0..<capacity).contains { hashes[$0] != 0 && slots[$0].entry != nil && matches(slots[$0].key) }
    }

    /// Every registration, in registration order.
    var registrations: [(key: ServiceKey, entry: AnyServiceEntry)] {
        (0..<capacity).filter { hashes[$0] != 0 }.sorted { orders[$0] < orders[$1] }.compactMap { index in
            slots[index].entry.map { (slots[index].key, $0) }
        }
    }

    /// A collection's part of a key: the service type and the argument types.
    struct CollectionKey: Hashable {
        let service: ObjectIdentifier
        let arguments: UInt
    }

    /// Appends the names `service` is registered under with `arguments` that `names` does not
    /// hold yet, in registration order. Found by reading the whole table, once until it changes.
    func appendNames(of service: ObjectIdentifier, arguments: UInt, to names: inout [String?]) {
        let key = CollectionKey(service: service, arguments: arguments)
        let own =
            buffers.collections[key]
            ?? {
                let ordered = (0..<capacity).filter {
                    hashes[$0] != 0 && slots[$0].key.service == service && slots[$0].key.arguments == arguments
                }.sorted { orders[$0] < orders[$1] }.map { slots[$0].key.name }
                buffers.collections[key] = ordered
                return ordered
            }()
        if names.isEmpty {  // the root's: no name met before
            names = own
        } else if names.count * own.count <= 1_024 {
            for name in own where !names.contains(name) { names.append(name) }
        } else {
            var met = Set(names)  // many names at two levels: no quadratic search
            for name in own where met.insert(name).inserted { names.append(name) }
        }
    }
}

extension RegistrationTable {
    /// The name's part of a key's hash (``RegistrationTable/hash(_:)``). An enum, not static
    /// methods of the table: a class's static method takes the class's metadata, which an
    /// inlined caller then asks the runtime for on every hash, named or not.
    @usableFromInline
    enum NameHash {
        /// A hash of the name that agrees with `String ==`, which compares by canonical equivalence:
        /// `"caf\u{E9}"` and `"cafe\u{301}"` are one name.
        ///
        /// An ASCII name (nearly every name) hashes its bytes eight at a time (``asciiHash(_:)``):
        /// names come from the program, not from an adversary, so SipHash's flooding resistance buys
        /// nothing here and costs several times as much. Only three non-ASCII scalars are canonically
        /// equivalent to ASCII (U+037E `;`, U+1FEF `` ` ``, U+212A `K`), and combining marks never
        /// compose into ASCII, so a non-ASCII name equal to an ASCII one maps to it scalar by scalar
        /// and hashes as that ASCII name; any other non-ASCII name uses the standard library's hash,
        /// which normalizes.
        @usableFromInline
        static func of(_ name: String) -> UInt {
            // Read in place when the bytes are contiguous (a native or small string): `withUTF8` on a
            // copy would retain the string to read it.
            if let hash = name.utf8.withContiguousStorageIfAvailable({ asciiHash(UnsafeRawBufferPointer($0)) }) {
                return hash ?? nonASCIINameHash(name)
            }
            var name = name
            return name.withUTF8 { asciiHash(UnsafeRawBufferPointer($0)) } ?? nonASCIINameHash(name)
        }

        /// The hash of ASCII bytes, or `nil` if a byte is not ASCII: each 8-byte word (the last one
        /// zero-padded) is mixed in by xor and a multiplication, then the length; `hash(_:)` spreads
        /// the result over the low bits. The 1 to 7 bytes after the last whole word are read in at
        /// most three loads inside them: one 8-byte load ending at the last byte would span the two
        /// stores that put a small string's bytes on the stack, which the processor cannot forward
        /// to a load (fewer instructions, and a registration slower in time).
        private static func asciiHash(_ bytes: UnsafeRawBufferPointer) -> UInt? {
            let multiplier: UInt = 0x9E37_79B9_7F4A_7C15
            var hash: UInt = 0xCBF2_9CE4_8422_2325
            var high: UInt = 0
            var offset = 0
            let count = bytes.count
            while offset + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt.self)
                high |= word
                hash = (hash ^ word) &* multiplier
                offset += 8
            }
            if offset < count {  // 1 to 7 bytes left: at most three loads, none past the end
                var word: UInt = 0
                var shift: UInt = 0
                if count - offset >= 4 {
                    word = UInt(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    shift = 32
                    offset += 4
                }
                if count - offset >= 2 {
                    word |= UInt(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) &<< shift
                    shift += 16
                    offset += 2
                }
                if offset < count { word |= UInt(bytes[offset]) &<< shift }
                high |= word
                hash = (hash ^ word) &* multiplier
            }
            guard high & 0x8080_8080_8080_8080 == 0 else { return nil }
            return (hash ^ UInt(count)) &* multiplier
        }

        private static func nonASCIINameHash(_ name: String) -> UInt {
            var mapped: [UInt8] = []
            for scalar in name.unicodeScalars {
                let value: UInt32 =
                    switch scalar.value {
                    case 0x037E: 0x3B
                    case 0x1FEF: 0x60
                    case 0x212A: 0x4B
                    default: scalar.value
                    }
                guard value < 0x80 else { return UInt(bitPattern: name.hashValue) }
                mapped.append(UInt8(value))
            }
            return mapped.withUnsafeBytes { asciiHash($0) }!  // every byte is below 0x80
        }
    }
}
