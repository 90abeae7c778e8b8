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
        id = GraphIdentifier.counter.withLock { count in
            count &+= 1
            return count
        }
    }

    /// The last number given out, process-wide.
    private static let counter = Locked<UInt64>(0)
}
