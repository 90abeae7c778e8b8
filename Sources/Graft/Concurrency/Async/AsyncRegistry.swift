// Graft — MIT License.

/// The key of an async registration.
struct AsyncKey: Hashable {
    let service: ObjectIdentifier
    let name: String?
}

/// A container's async registrations. An application has a handful, so up to
/// `AsyncRegistry.linearLimit` of them are found by comparing type identities in an array (a
/// `Dictionary` lookup hashes the key with SipHash first, several times the cost); beyond that a
/// dictionary indexes the array.
struct AsyncRegistry {
    static let linearLimit = 16
    private var keys: [AsyncKey] = []
    private(set) var values: [AnyAsyncEntry] = []
    /// Positions in `keys`, once there are more than `linearLimit` of them.
    private var positions: [AsyncKey: Int]?

    /// Each registration with its key, in the order registered.
    var pairs: Zip2Sequence<[AsyncKey], [AnyAsyncEntry]> { zip(keys, values) }

    func position(of key: AsyncKey) -> Int? {
        if let positions { return positions[key] }
        for index in keys.indices where keys[index].service == key.service && keys[index].name == key.name {
            return index
        }
        return nil
    }

    /// The entry registered for `service` under `name`, if any. The linear search is written out
    /// here rather than shared with ``position(of:)``: through the shared function, the registry's
    /// arrays were retained and released on every `resolveAsync` (measured: +30% on a built
    /// singleton).
    @inline(__always)
    func entry(service: ObjectIdentifier, name: String?) -> AnyAsyncEntry? {
        if positions == nil {
            for index in keys.indices where keys[index].service == service && keys[index].name == name {
                return values[index]
            }
            return nil
        }
        return position(of: AsyncKey(service: service, name: name)).map { values[$0] }
    }

    /// Adds `entry` under `key`, or replaces the entry there; returns the one replaced.
    @discardableResult
    mutating func set(_ entry: AnyAsyncEntry, for key: AsyncKey) -> AnyAsyncEntry? {
        if let index = position(of: key) {
            let replaced = values[index]
            values[index] = entry
            return replaced
        }
        keys.append(key)
        values.append(entry)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearLimit {
            positions = Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
        }
        return nil
    }
}
