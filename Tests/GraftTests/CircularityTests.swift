import GraftTesting
import Testing

@testable import Graft

@Suite(.capturedLog) struct CircularityTests {
    @Test(arguments: [ObjectScope.graph, .container])
    func propertyCycleThroughInitCompletedIsOneGraph(_ scope: ObjectScope) {
        let container = Container()
        container.register(Parent.self) { _ in Parent() }
            .initCompleted { r, parent in parent.child = r.resolve(Child.self) }
            .inObjectScope(scope)
        container.register(Child.self) { _ in Child() }
            .initCompleted { r, child in child.parent = r.resolve(Parent.self) }
            .inObjectScope(scope)

        let parent = container.resolve(Parent.self)
        #expect(parent?.child != nil)
        #expect(parent?.child?.parent === parent)
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func initializerAndPropertyCycleIsOneGraph(_ scope: ObjectScope) {
        let container = Container()
        container.register(Parent.self) { r in Parent(child: r.resolve(Child.self)!) }
            .inObjectScope(scope)
        container.register(Child.self) { _ in Child() }
            .initCompleted { r, child in child.parent = r.resolve(Parent.self) }
            .inObjectScope(scope)

        let parent = container.resolve(Parent.self)
        #expect(parent?.child?.parent === parent)
    }

    @Test func fourNodeCycleOnProperties() {
        final class Node { var links: [Node] = [] }
        enum A {}
        enum B {}
        enum C {}
        enum D {}
        let container = Container()
        container.register(Node.self, name: "a") { _ in Node() }
            .initCompleted { r, a in a.links = [r.resolve(Node.self, name: "b")!] }
        container.register(Node.self, name: "b") { _ in Node() }
            .initCompleted { r, b in b.links = [r.resolve(Node.self, name: "c")!] }
        container.register(Node.self, name: "c") { _ in Node() }
            .initCompleted { r, c in c.links = [r.resolve(Node.self, name: "a")!, r.resolve(Node.self, name: "d")!] }
        container.register(Node.self, name: "d") { _ in Node() }
            .initCompleted { r, d in d.links = [r.resolve(Node.self, name: "b")!, r.resolve(Node.self, name: "c")!] }

        let a = container.resolve(Node.self, name: "a")!
        let b = a.links[0]
        let c = b.links[0]
        let d = c.links[1]
        #expect(c.links[0] === a)
        #expect(d.links[0] === b)
        #expect(d.links[1] === c)
    }

    @Test func constructorCycleFailsWithTheChainAndLeavesTheContainerUsable() {
        final class A { let b: B?; init(b: B?) { self.b = b } }
        final class B { let a: A?; init(a: A?) { self.a = a } }
        let log = LogCapture()
        let container = Container()
        let made = Counter()
        // Each factory throws the failure on: the cycle fails the outermost resolution.
        container.register(A.self) { r in
            made.increment(); return A(b: try r.require(B.self))
        }
        .inObjectScope(.container)
        container.register(B.self) { r in B(a: try r.require(A.self)) }.inObjectScope(.container)

        let result = log.capturing { container.resolve(A.self) }
        #expect(result == nil)
        #expect(made.value == 1)  // detected at the first re-entry, not 200 levels down
        #expect(log.messages(mentioning: "A -> B -> A").count == 1)
        #expect(container.hierarchy.resolution.depth == 0)

        // Nothing half-built was kept: B's container-scoped instance from the failed attempt is gone.
        container.register(A.self) { _ in A(b: nil) }.inObjectScope(.container)
        let b = container.resolve(B.self)
        #expect(b?.a != nil)
        #expect(b === container.resolve(B.self))
    }

    @Test func failedResolutionInGraphScopeKeepsNothing() {
        final class Left { let right: Right?; init(right: Right?) { self.right = right } }
        final class Right {
            let left: Left?
            let live: Tracked
            init(left: Left?, live: Tracked) { self.left = left; self.live = live }
        }
        let live = Counter()
        let container = Container()
        container.register(Left.self) { r in Left(right: try r.require(Right.self)) }
        container.register(Right.self) { r in
            let tracked = Tracked(live)
            return Right(left: try r.require(Left.self), live: tracked)
        }
        .inObjectScope(.weak)
        let log = LogCapture()

        #expect(log.capturing { container.resolve(Left.self) } == nil)
        #expect(log.messages(mentioning: "Left -> Right -> Left").count == 1)
        #expect(live.value == 0)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    @Test func transientCycleThroughInitCompletedStopsAtTheDepthLimit() {
        final class Ping { var pong: Pong? }
        final class Pong { var ping: Ping? }
        let container = Container()
        container.register(Ping.self) { _ in Ping() }
            .initCompleted { r, ping in ping.pong = r.resolve(Pong.self) }
            .inObjectScope(.transient)
        container.register(Pong.self) { _ in Pong() }
            .initCompleted { r, pong in pong.ping = r.resolve(Ping.self) }
            .inObjectScope(.transient)
        let log = LogCapture()
        // The depth limit fails the whole request, whatever the actions that asked do with `nil`.
        let ping = log.capturing { container.resolve(Ping.self) }
        #expect(ping == nil)
        let messages = log.messages(mentioning: "deeper than 200 levels: the cycle Ping -> Pong -> Ping repeats.")
        #expect(messages.count == 1)
        #expect(messages.first?.contains("make one of them .graph") == true)
        #expect((messages.first?.count ?? .max) < 600)  // the cycle once, not 200 times
        #expect(messages.first?.hasSuffix("Path: Ping -> Pong -> Ping -> ... (Ping -> Pong 100 times)") == true)
        #expect(container.hierarchy.resolution.depth == 0)
        container.register(Pong.self) { _ in Pong() }.inObjectScope(.transient)
        #expect(container.resolve(Ping.self)?.pong != nil)
    }

    /// A factory resolving its own registration again is told the ways out: an argument, or a
    /// `Lazy` of the instance it is making.
    @Test func selfReentryNamesTheWaysOut() throws {
        final class Node {
            let next: Node?
            init(next: Node?) { self.next = next }
        }
        let container = Container()
        container.register(Node.self) { r in Node(next: try r.require(Node.self)) }
        let error = try #require(throws: ResolutionError.self) { try container.require(Node.self) }
        #expect(error.description.hasPrefix("Graft: circular dependency: Node -> Node. The factory of Node resolves"))
        #expect(error.description.contains("pass its state as an argument"))
        #expect(error.description.contains("inject a Lazy<Node>"))
    }

    @Test func cycleThroughAParentsRegistrationIsDetected() {
        final class Up { let down: Down?; init(down: Down?) { self.down = down } }
        final class Down { let up: Up?; init(up: Up?) { self.up = up } }
        let parent = Container()
        parent.register(Up.self) { r in Up(down: try r.require(Down.self)) }
        let child = Container(parent: parent)
        child.register(Down.self) { r in Down(up: try r.require(Up.self)) }
        let log = LogCapture()
        #expect(log.capturing { child.resolve(Up.self) } == nil)
        #expect(log.messages(mentioning: "Up -> Down -> Up").count == 1)
    }

    /// A cycle met by a resolution that is a request of its own inside a factory (in
    /// `withObjectGraph` there) fails the request the application started too: no factory of it
    /// can handle a cycle.
    @Test func cycleInARequestNestedInAFactoryFailsTheOuterOne() {
        final class Outer {
            let unit: Unit?
            init(_ unit: Unit?) { self.unit = unit }
        }
        let container = Container()
        let innerFailed = Box(false)
        container.register(Unit.self) { _ in Unit() }
        container.register(Outer.self) { r in
            // Outer again, in a request of its own: a cycle, which fails that request only.
            innerFailed.value = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Outer.self) } == nil
            return Outer(r.resolve(Unit.self))
        }
        #expect(container.resolve(Outer.self) == nil)
        #expect(innerFailed.value)
        #expect(container.hierarchy.resolution.depth == 0)
        #expect(!container.hierarchy.resolution.hasFailed)
    }
}
