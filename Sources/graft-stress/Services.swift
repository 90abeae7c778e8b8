// Graft — MIT License.

// The services graft-stress registers, one per scope and shape, and the containers holding them.

import Glibc
import Graft
import Synchronization

final class Settings: Sendable {  // parent, .container
    init() { census.settings.add(1, ordering: .relaxed) }
}

final class Clock: Sendable {}  // parent, .transient

final class Edge: Sendable {}  // parent, .graph

final class Root: Sendable {  // parent, .graph: two edges from one graph, and the settings
    let left: Edge
    let right: Edge
    let settings: Settings
    init(left: Edge, right: Edge, settings: Settings) {
        self.left = left
        self.right = right
        self.settings = settings
    }
}

final class Tagged: Sendable {  // parent, .transient, takes an argument
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

final class Session: Sendable {  // parent, custom scope
    init() { census.session.add(1, ordering: .relaxed) }
}

final class Pinned: Sendable {  // parent, .weak, held by the main thread for the whole run
    init() { census.pinned.add(1, ordering: .relaxed) }
}

final class Churn: Sendable {  // parent, .weak, held briefly by worker threads
    init() { census.churnMade.add(1, ordering: .relaxed) }
    deinit { census.churnFreed.add(1, ordering: .relaxed) }
}

final class ChildWeak: Sendable {  // child, .weak
    let churn: Churn
    init(churn: Churn) {
        self.churn = churn
        census.childWeakMade.add(1, ordering: .relaxed)
    }
    deinit { census.childWeakFreed.add(1, ordering: .relaxed) }
}

final class Feature: Sendable {  // child, .container, built from the parent's services
    let settings: Settings
    let session: Session
    init(settings: Settings, session: Session) {
        self.settings = settings
        self.session = session
        census.feature.add(1, ordering: .relaxed)
    }
}

protocol Greeter: Sendable { var origin: String { get } }
final class ParentGreeter: Greeter { let origin = "parent" }  // parent
final class ChildGreeter: Greeter { let origin = "child" }  // child, overrides the parent's

/// Graph-scoped; holds deferred resolutions made in its graph.
final class Deferred {
    let edge: Edge
    let lazyEdge: Lazy<Edge>
    let lazySettings: Lazy<Settings>
    let lazyClock: Lazy<Clock>
    let clocks: Provider<Clock>
    let sessions: Provider<Session>
    init(r: Resolver) {
        edge = r.resolve(Edge.self)!
        lazyEdge = r.resolve(Lazy<Edge>.self)!
        lazySettings = r.resolve(Lazy<Settings>.self)!
        lazyClock = r.resolve(Lazy<Clock>.self)!
        clocks = r.resolve(Provider<Clock>.self)!
        sessions = r.resolve(Provider<Session>.self)!
    }
}

let sessionScope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

/// Registers the services; every factory notes its call in `factoryLog`.
func makeContainers() -> (parent: Container, child: Container) {
    let parent = Container()
    // One registration per scope and shape, each factory noting its call the same way: the list is
    // what the stress covers, spelled out.
    parent.register(Settings.self) { _ in
        factoryLog.calls += 1; return Settings()
    }.inObjectScope(.container)
    parent.register(Clock.self) { _ in
        factoryLog.calls += 1; return Clock()
    }.inObjectScope(.transient)
    parent.register(Edge.self) { _ in
        factoryLog.calls += 1; return Edge()
    }.inObjectScope(.graph)
    parent.register(Root.self) { r in
        factoryLog.calls += 1
        return Root(left: r.resolve(Edge.self)!, right: r.resolve(Edge.self)!, settings: r.resolve(Settings.self)!)
    }
    parent.register(Tagged.self) { (_, tag: Int) in
        factoryLog.calls += 1; return Tagged(tag: tag)
    }
    .inObjectScope(.transient)
    parent.register(Session.self) { _ in
        factoryLog.calls += 1; return Session()
    }.inObjectScope(sessionScope)
    parent.register(Pinned.self) { _ in
        factoryLog.calls += 1; return Pinned()
    }.inObjectScope(.weak)
    parent.register(Churn.self) { _ in
        factoryLog.calls += 1; return Churn()
    }.inObjectScope(.weak)
    parent.register(Greeter.self) { _ in
        factoryLog.calls += 1; return ParentGreeter()
    }
    parent.register(Deferred.self) { r in
        factoryLog.calls += 1; return Deferred(r: r)
    }

    let child = Container(parent: parent)
    child.register(Greeter.self) { _ in
        factoryLog.calls += 1; return ChildGreeter()
    }
    child.register(Feature.self) { r in
        factoryLog.calls += 1
        return Feature(settings: r.resolve(Settings.self)!, session: r.resolve(Session.self)!)
    }.inObjectScope(.container)
    child.register(ChildWeak.self) { r in
        factoryLog.calls += 1; return ChildWeak(churn: r.resolve(Churn.self)!)
    }
    .inObjectScope(.weak)
    return (parent, child)
}
