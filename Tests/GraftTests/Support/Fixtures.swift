import Foundation
import Graft
import GraftTesting
import Testing

protocol Animal: AnyObject {
    var name: String? { get }
}

final class Cat: Animal {
    let name: String?
    let sleeping: Bool
    var favoriteFood: Food?

    init(name: String? = nil, sleeping: Bool = false) {
        self.name = name
        self.sleeping = sleeping
    }
}

final class Dog: Animal {
    let name: String?
    init(name: String? = nil) { self.name = name }
}

protocol Food: AnyObject {}
final class Sushi: Food {}

struct Turtle {
    var name: String
}

final class PetOwner {
    var pet: Animal?
    var favoriteFood: Food?
    init(pet: Animal? = nil) { self.pet = pet }
}

final class Parent {
    var child: Child?
    init(child: Child? = nil) { self.child = child }
}

final class Child {
    weak var parent: Parent?
}

/// A class hierarchy for keys taken from a static type that differs from the dynamic one.
class Pet {}
final class PetCat: Pet {}
final class PetDog: Pet {}

/// Counts its live instances in a test's own counter, to show what a container keeps and releases.
final class Tracked {
    let live: Counter
    init(_ live: Counter) {
        self.live = live
        live.value += 1
    }
    deinit { live.value -= 1 }
}

/// A value shared between a test and the closures it registers.
final class Counter {
    var value = 0
    func increment() { value += 1 }
}

/// A value of any type shared between a test and the closures it registers (one thread).
final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A resolver of its own, written for Graft (the pack-based method only), that forwards to a
/// container and counts the calls of its pack-based method.
final class PackForwarder: Resolver {
    let base: Container
    private(set) var packCalls = 0

    init(base: Container) { self.base = base }

    func resolve<Service>(_ serviceType: Service.Type) -> Service? { base.resolve(serviceType) }
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        base.resolve(serviceType, name: name)
    }
    func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        packCalls += 1
        return base.resolve(serviceType, name: name, arguments: repeat each arguments)
    }
}

/// The log messages of the running test: tests run in parallel and may name their types alike,
/// so each reads the ``CapturedLog`` its suite's `.capturedLog` trait binds to it, never the
/// process-wide logging function. A test without that trait records an issue.
struct LogCapture {
    private let log: CapturedLog

    init(sourceLocation: SourceLocation = #_sourceLocation) {
        Self.buildMessagesProcessWide()
        if let current = CapturedLog.current {
            log = current
        } else {
            Issue.record(
                "LogCapture reads the test's own log: apply .capturedLog to its suite",
                sourceLocation: sourceLocation
            )
            log = CapturedLog()
        }
    }

    /// Runs `body` with this test's log bound, also on a thread or a detached task the test
    /// started, where the suite's trait does not reach.
    func capturing<T>(_ body: () -> T) -> T {
        Container.withLoggingFunction(log.append, operation: body)
    }

    func messages(mentioning text: String) -> [String] {
        log.messages.filter { $0.contains(text) }
    }

    /// Sets, once, a process-wide logging function that keeps nothing, so that Graft builds the
    /// message of every failed resolution (what a process with logging on pays) on every thread.
    static func buildMessagesProcessWide() { _ = processWide }
    private static let processWide: Void = { Container.loggingFunction = { _ in } }()
}

/// A resolver of the application's own that hands every request to a container: `require` asks it
/// through its `resolve`, as it asks any resolver that is not Graft's.
struct Forwarding: Resolver {
    let container: Container
    func resolve<S>(_ t: S.Type) -> S? { container.resolve(t) }
    func resolve<S>(_ t: S.Type, name: String?) -> S? { container.resolve(t, name: name) }
    func resolve<S, each A>(_ t: S.Type, name: String?, arguments: repeat each A) -> S? {
        container.resolve(t, name: name, arguments: repeat each arguments)
    }
}
