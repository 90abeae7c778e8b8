import Testing

@testable import Graft

private final class AsyncThing: Sendable {}
private final class Labelled: Sendable {
    let label: String
    init(_ label: String) { self.label = label }
}

/// Async registrations are entries of the container's table: found, replaced and missed as any
/// registration, however many there are (the table grows past 16 and 64 slots here).
@Suite struct AsyncRegistrationLookupTests {
    @Test(arguments: [3, 16, 17, 60])
    func everyRegistrationIsFoundReplacedAndMissed(count: Int) async throws {
        let container = Container()
        for index in 0..<count {
            container.registerAsync(Labelled.self, name: "s\(index)") { _ in Labelled("first \(index)") }
        }
        container.registerAsync(Labelled.self) { _ in Labelled("unnamed") }
        // Replaced after the index exists (for the larger counts): the latest registration wins.
        for index in stride(from: 0, to: count, by: 3) {
            container.registerAsync(Labelled.self, name: "s\(index)") { _ in Labelled("second \(index)") }
        }
        let resolver = container.synchronize()
        for index in 0..<count {
            let expected = index % 3 == 0 ? "second \(index)" : "first \(index)"
            #expect(try await resolver.resolveAsync(Labelled.self, name: "s\(index)").label == expected)
            // Built now: the inlinable path reads it under the lock.
            #expect(try await resolver.resolveAsync(Labelled.self, name: "s\(index)").label == expected)
        }
        #expect(try await resolver.resolveAsync(Labelled.self).label == "unnamed")
        await #expect(throws: ResolutionError.self) {
            try await resolver.resolveAsync(Labelled.self, name: "s\(count)")
        }
        container.removeAll()
        await #expect(throws: ResolutionError.self) { try await resolver.resolveAsync(Labelled.self, name: "s0") }
    }

    @Test func aChildFindsItsParentsRegistrationsPastItsOwn() async throws {
        let parent = Container()
        for index in 0..<40 {
            parent.registerAsync(Labelled.self, name: "p\(index)") { _ in Labelled("parent \(index)") }
        }
        let child = Container(parent: parent)
        for index in 0..<20 {
            child.registerAsync(Labelled.self, name: "c\(index)") { _ in Labelled("child \(index)") }
        }
        child.registerAsync(Labelled.self, name: "p7") { _ in Labelled("child's p7") }
        let resolver = child.synchronize()
        #expect(try await resolver.resolveAsync(Labelled.self, name: "p39").label == "parent 39")
        #expect(try await resolver.resolveAsync(Labelled.self, name: "c19").label == "child 19")
        #expect(try await resolver.resolveAsync(Labelled.self, name: "p7").label == "child's p7")
        #expect(try await parent.synchronize().resolveAsync(Labelled.self, name: "p7").label == "parent 7")
    }

    /// The search of async registrations looks through a view: a child made with a view as its
    /// parent, and that child's own child, find the parent's async registrations.
    @Test func aChildOfAViewFindsItsParentsAsyncRegistrations() async throws {
        let view = Container().synchronize()
        view.registerAsync(AsyncThing.self) { _ in AsyncThing() }
        let child = Container(parent: view).synchronize()
        let made = try await child.resolveAsync(AsyncThing.self)
        #expect(made === (try await view.resolveAsync(AsyncThing.self)))
        let grandchild = Container(parent: Container(parent: view).synchronize()).synchronize()
        #expect(try await grandchild.resolveAsync(AsyncThing.self) === made)
    }
}
