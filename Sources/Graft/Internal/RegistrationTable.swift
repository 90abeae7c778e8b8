// Graft — MIT License.

/// The registrations of one container: an open-addressing hash table keyed by ``ServiceKey``.
///
/// `Dictionary` would hash every key with SipHash; here a key without a name hashes with two
/// multiplications, and the hash is computed once per resolution for every level of the hierarchy.
struct RegistrationTable {
    private struct Slot {
        let key: ServiceKey
        var entry: AnyServiceEntry
    }

    private var slots: [Slot?] = Array(repeating: nil, count: 16)
    private(set) var count = 0

    @inline(__always)
    static func hash(_ key: ServiceKey) -> Int {
        // Type metadata addresses, mixed by multiplication: `ObjectIdentifier.hashValue` would run SipHash.
        let service = UInt(bitPattern: key.service)
        let arguments = UInt(bitPattern: key.arguments)
        var mixed = service &* 0x9E37_79B9_7F4A_7C15 ^ (arguments &* 0xC2B2_AE3D_27D4_EB4F)
        if let name = key.name { mixed ^= UInt(bitPattern: name.hashValue) }
        mixed ^= mixed >> 29
        return Int(bitPattern: mixed)
    }

    @inline(__always)
    func entry(for key: ServiceKey, hash: Int) -> AnyServiceEntry? {
        let mask = slots.count - 1
        var index = hash & mask
        while let slot = slots[index] {
            if slot.key == key { return slot.entry }
            index = (index + 1) & mask
        }
        return nil
    }

    subscript(key: ServiceKey) -> AnyServiceEntry? {
        get { entry(for: key, hash: Self.hash(key)) }
        set {
            guard let newValue else {
                preconditionFailure("removing one registration is not supported; use removeAll()")
            }
            insert(newValue, for: key)
        }
    }

    private mutating func insert(_ entry: AnyServiceEntry, for key: ServiceKey) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = Self.hash(key) & mask
        while let slot = slots[index] {
            if slot.key == key {
                slots[index]!.entry = entry
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(key: key, entry: entry)
        count += 1
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        count = 0
        for case let slot? in old { insert(slot.entry, for: slot.key) }
    }

    mutating func removeAll() {
        self = RegistrationTable()
    }

    /// Every registration, in no particular order.
    var registrations: [(key: ServiceKey, entry: AnyServiceEntry)] {
        slots.compactMap { $0.map { ($0.key, $0.entry) } }
    }
}
