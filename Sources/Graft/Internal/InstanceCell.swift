// Graft — MIT License.

/// The memory where an entry keeps its instances: two flag bytes, then two `Service` values,
/// [0] kept by `.container` and [1] the current graph's. Each value is initialized only while
/// its flag is set.
///
/// Raw memory rather than `Service?` properties: in unspecialized code every `Optional<Service>`
/// costs a runtime metadata lookup. And the registration table keeps a copy of this pointer, so a
/// `.container`-scoped hit reads the instance without touching (or retaining) the entry.
@usableFromInline
struct InstanceCell {
    @usableFromInline let base: UnsafeMutableRawPointer

    @inlinable @inline(__always)
    static func valueOffset<Service>(_: Service.Type) -> Int {
        max(8, MemoryLayout<Service>.alignment)
    }

    @usableFromInline
    init<Service>(for type: Service.Type) {
        let offset = Self.valueOffset(type)
        let byteCount = offset + 2 * MemoryLayout<Service>.stride
        base = Self.usesMalloc(type)
            ? Platform.allocate(byteCount: byteCount)
            : .allocate(byteCount: byteCount, alignment: MemoryLayout<Service>.alignment)
        base.storeBytes(of: false, as: Bool.self)
        base.storeBytes(of: false, toByteOffset: 1, as: Bool.self)
        (base + offset).bindMemory(to: Service.self, capacity: 2)
    }

    @inline(__always)
    private func values<Service>(_: Service.Type) -> UnsafeMutablePointer<Service> {
        (base + Self.valueOffset(Service.self)).assumingMemoryBound(to: Service.self)
    }

    @inlinable @inline(__always)
    var hasInstance: Bool { base.load(as: Bool.self) }

    var hasGraphInstance: Bool { base.load(fromByteOffset: 1, as: Bool.self) }

    /// The `.container` instance; only while ``hasInstance``.
    @inlinable @inline(__always)
    func instance<Service>(as type: Service.Type) -> Service {
        (base + Self.valueOffset(type)).assumingMemoryBound(to: Service.self).pointee
    }

    /// The current graph's instance; only while ``hasGraphInstance``.
    func graphInstance<Service>(as type: Service.Type) -> Service {
        values(type)[1]
    }

    func setInstance<Service>(_ value: Service) {
        if hasInstance { values(Service.self)[0] = value } else { values(Service.self).initialize(to: value) }
        base.storeBytes(of: true, as: Bool.self)
    }

    func setGraphInstance<Service>(_ value: Service) {
        if hasGraphInstance {
            values(Service.self)[1] = value
        } else {
            (values(Service.self) + 1).initialize(to: value)
        }
        base.storeBytes(of: true, toByteOffset: 1, as: Bool.self)
    }

    func clearInstance<Service>(_ type: Service.Type) {
        if hasInstance { values(type).deinitialize(count: 1) }
        base.storeBytes(of: false, as: Bool.self)
    }

    func clearGraphInstance<Service>(_ type: Service.Type) {
        if hasGraphInstance { (values(type) + 1).deinitialize(count: 1) }
        base.storeBytes(of: false, toByteOffset: 1, as: Bool.self)
    }

    func deallocate<Service>(_ type: Service.Type) {
        clearInstance(type)
        clearGraphInstance(type)
        if Self.usesMalloc(type) { Platform.deallocate(base) } else { base.deallocate() }
    }

    /// `malloc` aligns to 16 bytes, enough for nearly every type.
    private static func usesMalloc<Service>(_: Service.Type) -> Bool {
        MemoryLayout<Service>.alignment <= 16
    }
}
