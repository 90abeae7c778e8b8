// Graft — MIT License.

/// Identifies one object graph: the instances a top-level resolution creates in ``ObjectScope/graph``.
///
/// Custom ``InstanceStorage`` implementations receive it to tell graphs apart, and
/// ``Container/withObjectGraph(_:closure:)`` resolves inside a given graph.
public struct GraphIdentifier: Hashable, Identifiable, Sendable {
    /// A number no other graph of this process has.
    public let id: UInt64

    /// Makes an identifier no other graph has.
    public init() {
        id = GraphIdentifier.counter.next()
    }

    private static let counter = SerialCounter()
}

/// A process-wide counter behind the hierarchy's kind of mutex.
final class SerialCounter: @unchecked Sendable {  // `value` is only touched under `mutex`
    private let mutex = RecursiveMutex()
    private var value: UInt64 = 0

    func next() -> UInt64 {
        mutex.withLock {
            value &+= 1
            return value
        }
    }
}
