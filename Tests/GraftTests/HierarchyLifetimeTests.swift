import Testing

@testable import Graft

/// A hierarchy (its state, its links, the records it keeps of its children's registrations) is
/// freed with its last container, whatever shape the containers had.
@Suite struct HierarchyLifetimeTests {
    final class Leaf {}

    /// Makes containers of one hierarchy with `build`, drops them all, and tells whether the
    /// hierarchy is gone.
    private static func hierarchyIsFreed(_ build: () -> [AnyObject]) -> Bool {
        weak var hierarchy: SharedState?
        do {
            let containers = build()
            // Held to the end of the block: an optimized build may end their lifetime at their last use.
            withExtendedLifetime(containers) {
                hierarchy = (containers.first as? Container)?.hierarchy
                #expect(hierarchy != nil)
            }
        }
        return hierarchy == nil
    }

    private static func child(of parent: Container) -> Container {
        let child = Container(parent: parent)
        child.register(Leaf.self) { _ in Leaf() }.inObjectScope(.container)
        child.register(Leaf.self, name: "named", factory: { (_: Resolver, _: Int) in Leaf() })
        _ = child.resolve(Leaf.self)
        return child
    }

    @Test func aRootAndAChildThatRegisteredAreFreed() {
        #expect(
            Self.hierarchyIsFreed {
                let root = Container()
                return [root, Self.child(of: root)]
            })
    }

    @Test func aChildOfAViewAndAViewOfAChildAreFreed() {
        #expect(
            Self.hierarchyIsFreed {
                let root = Container()
                let childOfView = Self.child(of: root.synchronize())
                let viewOfChild = Self.child(of: root).synchronize()
                viewOfChild.register(Leaf.self, name: "late") { _ in Leaf() }
                return [root, childOfView, viewOfChild]
            })
    }

    @Test func grandchildrenAndSiblingsAreFreed() {
        #expect(
            Self.hierarchyIsFreed {
                let root = Container()
                let left = Self.child(of: root)
                let right = Self.child(of: root)
                let grandchild = Self.child(of: left)
                _ = grandchild.resolve(Leaf.self, name: "missing")  // a message reads the records
                return [root, left, right, grandchild]
            })
    }

    @Test func aRootDroppedBeforeItsChildIsFreedWithTheChild() {
        weak var hierarchy: SharedState?
        var root: Container? = Container()
        var child: Container? = Self.child(of: root!)
        hierarchy = child?.hierarchy
        root = nil
        #expect(child?.resolve(Leaf.self) != nil)
        child = nil
        #expect(hierarchy == nil)
    }

    /// An error that holds what owns its hierarchy.
    struct HoldingError: Error {
        nonisolated(unsafe) let resolver: Resolver?
        nonisolated(unsafe) let lazy: Lazy<Leaf>?
    }

    enum FailingCall: CaseIterable {
        case resolve, require, requireThroughAView, lazyInTheError, handledByAFactory, resolvedAsOptionalByAFactory,
            validate
    }

    /// A failure's error is kept only until the call that reads it returns.
    @Test(arguments: FailingCall.allCases)
    func aFailureWhoseErrorHoldsTheContainerIsFreed(_ call: FailingCall) {
        var failedAsExpected = false
        let freed = Self.hierarchyIsFreed {
            let root = Container()
            let child = Self.child(of: root)
            child.register(Root.self) { r in throw HoldingError(resolver: r, lazy: nil) }
            child.register(Root.self, name: "lazy") { r in
                throw HoldingError(resolver: nil, lazy: r.resolve(Lazy<Leaf>.self))
            }
            child.register(Leaf.self, name: "optional") { r in
                _ = r.resolve(Root.self)
                return Leaf()
            }.inObjectScope(.transient)
            child.register(Leaf.self, name: "handled") { r in
                _ = try? r.require(Root.self)
                return Leaf()
            }
            switch call {
            case .resolve: failedAsExpected = child.resolve(Root.self) == nil
            case .require: failedAsExpected = (try? child.require(Root.self)) == nil
            case .requireThroughAView: failedAsExpected = (try? child.synchronize().require(Root.self)) == nil
            case .lazyInTheError: failedAsExpected = child.resolve(Root.self, name: "lazy") == nil
            case .handledByAFactory: failedAsExpected = child.resolve(Leaf.self, name: "handled") != nil
            case .resolvedAsOptionalByAFactory:
                failedAsExpected = child.resolve(Leaf.self, name: "optional") != nil
            case .validate: failedAsExpected = !child.validate().failures.isEmpty
            }
            return [root, child]
        }
        #expect(failedAsExpected)
        #expect(freed)
    }

    final class Root {}

    @Test func aChildsRecordsAreForgottenWhenItEnds() {
        let root = Container()
        var child: Container? = Self.child(of: root)
        #expect(root.hierarchy.childRegistrationRecordCount == 2)
        var sibling: Container? = Self.child(of: root)
        #expect(root.hierarchy.childRegistrationRecordCount == 4)
        child = nil
        #expect(child == nil)
        #expect(root.hierarchy.childRegistrationRecordCount == 2)
        sibling = nil
        #expect(sibling == nil)
        #expect(root.hierarchy.childRegistrationRecordCount == 0)
    }

    @Test func aMessageStillNamesTheRegistrationOfALiveSibling() {
        let root = Container()
        let left = Container(parent: root)
        let right = Container(parent: root)
        right.register(Leaf.self, name: "right") { _ in Leaf() }
        do {
            let gone = Container(parent: root)
            gone.register(Leaf.self, name: "gone") { _ in Leaf() }
        }
        let error = #expect(throws: ResolutionError.self) { try left.require(Leaf.self, name: "right") }
        let message = error?.description ?? ""
        #expect(message.contains("Name: \"right\""))
        #expect(!message.contains("Name: \"gone\""))
        withExtendedLifetime(right) {}
    }

    #if os(Linux)
        /// Run in a process of its own: resident memory is the process's, and the tests running in
        /// parallel here move it by tens of megabytes.
        @Test func droppedHierarchiesWhoseChildrenRegisteredLeaveMemoryFlat() async {
            await #expect(processExitsWith: .success) {
                func dropOne() {
                    let root = Container()
                    root.register(Leaf.self) { _ in Leaf() }
                    let child = Container(parent: root)
                    child.register(Leaf.self, name: "marker") { _ in Leaf() }
                    _ = child.resolve(Leaf.self, name: "marker")
                }
                for _ in 0..<10_000 { dropOne() }  // warm up: the allocator reaches its size
                let before = residentBytes()
                for _ in 0..<100_000 { dropOne() }
                let growth = residentBytes() - before
                // A hierarchy kept per drop (about 1.2 KB) would add over 100 MB here.
                if growth >= 5 << 20 { fatalError("resident memory grew by \(growth) bytes") }
            }
        }
    #endif
}
