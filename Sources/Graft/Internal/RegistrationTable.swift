// Graft — MIT License.

/// The registrations of one container: an open-addressing hash table keyed by ``ServiceKey``.
///
/// `Dictionary` would hash every key with SipHash; here a key without a name hashes with two
/// multiplications, the hash is computed once per resolution for every level of the hierarchy,
/// and a probe compares stored hashes and type addresses before touching anything
/// reference-counted. The slots are a raw buffer owned by this object, so a lookup retains nothing.
@usableFromInline
final class RegistrationTable {
    @usableFromInline
    struct Slot {
        var occupied = false
        var hash = 0
        var key = ServiceKey(service: Never.self, arguments: Never.self, name: nil)
        @usableFromInline var entry: AnyServiceEntry?
        /// The entry's instances, when it is a `ServiceEntry` of the key's own service type (not a
        /// forward): a `.container`-scoped hit reads them here without touching the entry.
        @usableFromInline var directCell: InstanceCell?
    }

    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        capacity = 16
        slots = Self.emptySlots(capacity)
    }

    /// Fresh empty slots, each made in place (`initialize(repeating:)` would copy one through its
    /// value witness, slot by slot).
    private static func emptySlots(_ capacity: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Slot()) }
        return slots
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    @usableFromInline @inline(__always)
    static func hash(_ key: ServiceKey) -> Int {
        // Type metadata addresses, mixed by multiplication: `ObjectIdentifier.hashValue` would run SipHash.
        var mixed = UInt(bitPattern: key.service) &* 0x9E37_79B9_7F4A_7C15
            ^ (UInt(bitPattern: key.arguments) &* 0xC2B2_AE3D_27D4_EB4F)
        if let name = key.name { mixed ^= nameHash(name) }
        mixed ^= mixed >> 29
        return Int(bitPattern: mixed)
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
        while slots[index].occupied {
            if slots[index].hash == hash, slots[index].key.service == key.service,
                slots[index].key.arguments == key.arguments, slots[index].key.name == key.name
            {
                return slots + index
            }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Registers `entry` under `key`, replacing what was there. `directCell` is the entry's cell
    /// when `key` is of the entry's own service type, `nil` for a forward.
    @usableFromInline
    func insert(_ entry: AnyServiceEntry, for key: ServiceKey, directCell: InstanceCell?) {
        insert(entry, for: key, hash: Self.hash(key), directCell: directCell)
    }

    private func insert(_ entry: AnyServiceEntry, for key: ServiceKey, hash: Int, directCell: InstanceCell?) {
        if (count + 1) * 2 > capacity { grow() }
        let mask = capacity - 1
        var index = hash & mask
        while slots[index].occupied {
            if slots[index].hash == hash, slots[index].key.service == key.service,
                slots[index].key.arguments == key.arguments, slots[index].key.name == key.name
            {
                slots[index].entry = entry
                slots[index].directCell = directCell
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(occupied: true, hash: hash, key: key, entry: entry, directCell: directCell)
        count += 1
    }

    /// Doubles the capacity, moving (not copying) every slot to its place in the new buffer.
    private func grow() {
        let old = (slots: slots, capacity: capacity)
        capacity *= 2
        slots = Self.emptySlots(capacity)
        let mask = capacity - 1
        for position in 0..<old.capacity {
            let slot = (old.slots + position).move()
            guard slot.occupied else { continue }
            var index = slot.hash & mask
            while slots[index].occupied { index = (index + 1) & mask }
            slots[index] = slot
        }
        old.slots.deallocate()  // every slot was moved out
    }

    func removeAll() {
        for index in 0..<capacity { slots[index] = Slot() }
        count = 0
    }

    /// Every registration, in no particular order.
    var registrations: [(key: ServiceKey, entry: AnyServiceEntry)] {
        (0..<capacity).compactMap { index in slots[index].entry.map { (slots[index].key, $0) } }
    }
}
