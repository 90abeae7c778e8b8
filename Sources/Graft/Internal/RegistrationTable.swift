// Graft — MIT License.

/// The registrations of one container: an open-addressing hash table keyed by ``ServiceKey``.
///
/// `Dictionary` would hash every key with SipHash; here a key without a name hashes with two
/// multiplications, the hash is computed once per resolution for every level of the hierarchy,
/// and a probe compares stored hashes and type addresses before touching anything reference-counted.
struct RegistrationTable {
    private struct Slot {
        var occupied = false
        var hash = 0
        var key = ServiceKey(service: Never.self, arguments: Never.self, name: nil)
        var entry: AnyServiceEntry?
    }

    private var slots = ContiguousArray(repeating: Slot(), count: 16)
    private(set) var count = 0

    @inline(__always)
    static func hash(_ key: ServiceKey) -> Int {
        // Type metadata addresses, mixed by multiplication: `ObjectIdentifier.hashValue` would run SipHash.
        var mixed = UInt(bitPattern: key.service) &* 0x9E37_79B9_7F4A_7C15
            ^ (UInt(bitPattern: key.arguments) &* 0xC2B2_AE3D_27D4_EB4F)
        if let name = key.name { mixed ^= UInt(bitPattern: name.hashValue) }
        mixed ^= mixed >> 29
        return Int(bitPattern: mixed)
    }

    @inline(__always)
    func entry(for key: ServiceKey, hash: Int) -> AnyServiceEntry? {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = hash & mask
            while slots[index].occupied {
                if slots[index].hash == hash, slots[index].key.service == key.service,
                    slots[index].key.arguments == key.arguments, slots[index].key.name == key.name
                {
                    return slots[index].entry
                }
                index = (index + 1) & mask
            }
            return nil
        }
    }

    subscript(key: ServiceKey) -> AnyServiceEntry? {
        get { entry(for: key, hash: Self.hash(key)) }
        set {
            guard let newValue else {
                preconditionFailure("removing one registration is not supported; use removeAll()")
            }
            insert(newValue, for: key, hash: Self.hash(key))
        }
    }

    private mutating func insert(_ entry: AnyServiceEntry, for key: ServiceKey, hash: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = hash & mask
        while slots[index].occupied {
            if slots[index].hash == hash, slots[index].key == key {
                slots[index].entry = entry
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(occupied: true, hash: hash, key: key, entry: entry)
        count += 1
    }

    private mutating func grow() {
        let old = slots
        slots = ContiguousArray(repeating: Slot(), count: old.count * 2)
        count = 0
        for slot in old where slot.occupied {
            insert(slot.entry!, for: slot.key, hash: slot.hash)
        }
    }

    mutating func removeAll() {
        self = RegistrationTable()
    }

    /// Every registration, in no particular order.
    var registrations: [(key: ServiceKey, entry: AnyServiceEntry)] {
        slots.compactMap { slot in slot.entry.map { (slot.key, $0) } }
    }
}
