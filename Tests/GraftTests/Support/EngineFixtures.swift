// Services for tests that attack the resolution path: instances whose `deinit` calls back into the
// container, a constructor cycle to make a resolution fail, and plain values to resolve.

import Graft

/// A service with nothing in it.
final class Unit {}

/// A service with nothing in it, for a `deinit` or a factory to resolve.
final class Tracker {}

/// Runs `onDeinit` when released: user code that calls back into the container at that point.
final class Echo {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A protocol service, kept as an existential (not one class reference).
protocol Shape: AnyObject {}

/// A `Shape` that runs `onDeinit` when released.
final class Circle: Shape {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A labelled tree node: which instances a resolution shares shows in its children.
final class Part {
    let label: String
    let children: [Part?]
    init(_ label: String, _ children: [Part?] = []) {
        self.label = label
        self.children = children
    }
}

/// Its factory needs itself: resolving it is a constructor cycle, the way these tests make a
/// resolution fail.
/// A service that always fails: its factory requires itself (a cycle) and throws the failure on.
/// A factory that needs it and throws the failure on (`try r.require(Loop.self)`) fails too.
final class Loop {
    init(_: Loop?) {}
    static func register(in container: Container) {
        container.register(Loop.self) { r in Loop(try r.require(Loop.self)) }
    }
}

/// Holds what a factory gives it.
final class Holder {
    var payload: Payload?
    var other: Holder?
}

final class Payload {}

/// The top of a graph that holds an `Echo`.
final class Root {
    init(_: Echo?) {}
}

/// A unit and a `Lazy` of it, resolved in one graph.
final class Job {
    let unit: Unit
    let later: Lazy<Unit>
    init(unit: Unit, later: Lazy<Unit>) {
        self.unit = unit
        self.later = later
    }
}

/// Carries the number its factory gave it; runs `onDeinit` with it when released.
final class Numbered {
    let number: Int
    let onDeinit: (Int) -> Void
    init(_ number: Int, onDeinit: @escaping (Int) -> Void = { _ in }) {
        self.number = number
        self.onDeinit = onDeinit
    }
    deinit { onDeinit(number) }
}
