// Graft — MIT License.

/// The registrations of one container: an open-addressing hash table keyed by ``ServiceKey``.
///
/// `Dictionary` would hash every key with SipHash; here a key without a name hashes with two
/// multiplications, the hash is computed once per resolution for every level of the hierarchy,
/// and a probe compares stored hashes and type addresses before touching anything
/// reference-counted. Two raw buffers owned by this object: `hashes` (trivial, 0 for an empty
/// slot, so it is cleared and grown without value witnesses) and `slots`, initialized only where
/// `hashes` says a slot is occupied. A lookup retains nothing.
@usableFromInline
final class RegistrationTable {
    @usableFromInline
    struct Slot {
        var key: ServiceKey
        @usableFromInline var entry: AnyServiceEntry?
        /// The entry's instances, when it is a `ServiceEntry` of the key's own service type (not a
        /// forward): a `.container`-scoped hit reads them here without touching the entry.
        @usableFromInline var directCell: InstanceCell?
    }

    /// Each slot's hash with the lowest bit set, or 0 when the slot is empty.
    @exclusivity(unchecked) private var hashes: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        capacity = 16
        (hashes, slots) = Self.allocate(capacity)
    }

    deinit {
        clear()
        hashes.deallocate()
        slots.deallocate()
    }

    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Slot>) {
        let hashes = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        return (hashes, .allocate(capacity: capacity))
    }

    /// A key's hash, never 0 (that marks an empty slot).
    @usableFromInline @inline(__always)
    static func hash(_ key: ServiceKey) -> Int {
        // Type metadata addresses, mixed by multiplication: `ObjectIdentifier.hashValue` would run SipHash.
        var mixed = UInt(bitPattern: key.service) &* 0x9E37_79B9_7F4A_7C15
            ^ (UInt(bitPattern: key.arguments) &* 0xC2B2_AE3D_27D4_EB4F)
        if let name = key.name { mixed ^= nameHash(name) }
        mixed ^= mixed >> 29
        return Int(bitPattern: mixed | 1)
    }

    /// FNV-1a over the name's UTF-8: names come from the program, not from an adversary, so
    /// SipHash's flooding resistance buys nothing here and costs several times as much.
    @usableFromInline
    static func nameHash(_ name: String) -> UInt {
        var name = name
        return name.withUTF8 { bytes in
            var hash: UInt = 0xCBF2_9CE4_8422_2325
            for byte in bytes {
                hash = (hash ^ UInt(byte)) &* 0x100_0000_01B3
            }
            return hash
        }
    }

    /// The slot holding `key`, valid until the next change to this table.
    @usableFromInline @inline(__always)
    func slot(for key: ServiceKey, hash: Int) -> UnsafeMutablePointer<Slot>? {
        let mask = capacity - 1
        var index = hash & mask
        while true {
            let stored = hashes[index]
            if stored == 0 { return nil }
            if stored == hash, slots[index].key.service == key.service,
                slots[index].key.arguments == key.arguments, slots[index].key.name == key.name
            {
                return slots + index
            }
            index = (index + 1) & mask
        }
    }

    /// Registers `entry` under `key`, replacing what was there. `directCell` is the entry's cell
    /// when `key` is of the entry's own service type, `nil` for a forward.
    @usableFromInline
    func insert(_ entry: AnyServiceEntry, for key: ServiceKey, directCell: InstanceCell?) {
        let hash = Self.hash(key)
        if let existing = slot(for: key, hash: hash) {
            existing.pointee.entry = entry
            existing.pointee.directCell = directCell
            return
        }
        if (count + 1) * 2 > capacity { grow() }
        let index = freeIndex(for: hash)
        hashes[index] = hash
        (slots + index).initialize(to: Slot(key: key, entry: entry, directCell: directCell))
        count += 1
    }

    private func freeIndex(for hash: Int) -> Int {
        let mask = capacity - 1
        var index = hash & mask
        while hashes[index] != 0 { index = (index + 1) & mask }
        return index
    }

    /// Doubles the capacity, moving (not copying) every slot to its place in the new buffers.
    private func grow() {
        let old = (hashes: hashes, slots: slots, capacity: capacity)
        capacity *= 2
        (hashes, slots) = Self.allocate(capacity)
        for position in 0..<old.capacity where old.hashes[position] != 0 {
            let index = freeIndex(for: old.hashes[position])
            hashes[index] = old.hashes[position]
            (slots + index).moveInitialize(from: old.slots + position, count: 1)
        }
        old.hashes.deallocate()
        old.slots.deallocate()  // every occupied slot was moved out
    }

    private func clear() {
        for index in 0..<capacity where hashes[index] != 0 {
            (slots + index).deinitialize(count: 1)
            hashes[index] = 0
        }
        count = 0
    }

    func removeAll() {
        clear()
    }

    /// Every registration, in no particular order.
    var registrations: [(key: ServiceKey, entry: AnyServiceEntry)] {
        (0..<capacity).compactMap { index in
            hashes[index] == 0 ? nil : slots[index].entry.map { (slots[index].key, $0) }
        }
    }
}
