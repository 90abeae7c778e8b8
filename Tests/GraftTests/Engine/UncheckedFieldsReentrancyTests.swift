import Testing

@testable import Graft

// The settings fields marked `@exclusivity(unchecked)` in release builds keep their dynamic
// exclusivity checks in debug builds (where these tests run): each test below re-enters the code
// that holds such a field while user code runs, so an overlapping access would trap.

private final class Widget {}
private final class Gadget {}
private final class Sprocket {}
private final class Cog: Sendable {}

/// Registers, and adds another behavior, from inside the callback of a registration.
private final class ReentrantBehavior: Behavior {
    var seen: [String] = []
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        seen.append("\(Type.self)")
        if Type.self == Widget.self {
            container.register(Gadget.self) { _ in Gadget() }.inObjectScope(.container)
            container.addBehavior(Recorder())
        }
    }
}

private final class Recorder: Behavior {
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {}
}

/// Registers through a view and changes another entry's scope when released.
private final class Departing {
    let view: SynchronizedResolver
    let entry: ServiceEntry<Sprocket>
    init(view: SynchronizedResolver, entry: ServiceEntry<Sprocket>) {
        self.view = view
        self.entry = entry
    }
    deinit {
        view.register(Gadget.self) { _ in Gadget() }.inObjectScope(.container)
        view.registerAsync(Cog.self) { _ in Cog() }
        entry.inObjectScope(.transient)
    }
}

@Suite struct UncheckedFieldsReentrancyTests {
    @Test func behaviorRegistersAndAddsABehaviorDuringARegistration() {
        let behavior = ReentrantBehavior()
        let container = Container(behaviors: [behavior])
        container.register(Widget.self) { _ in Widget() }
        #expect(behavior.seen == ["Widget", "Gadget"])
        #expect(container.resolve(Gadget.self) === container.resolve(Gadget.self))
    }

    @Test func factoryChangesScopesAndRegistersDuringValidation() {
        let container = Container()
        let sprocket = container.register(Sprocket.self) { _ in Sprocket() }.inObjectScope(.container)
        container.register(Widget.self) { r in
            sprocket.inObjectScope(.transient)  // changes an entry validation switched to the graph scope
            r.resolve(Container.self)?.register(Gadget.self) { _ in Gadget() }
            return Widget()
        }
        container.register(Container.self) { _ in container }.inObjectScope(.transient)
        _ = container.validate()
        #expect(sprocket.objectScope === ObjectScope.transient)  // the factory's change is kept
        #expect(container.resolve(Sprocket.self) !== container.resolve(Sprocket.self))
        // The registration is undone when validation ends (asked as an `Optional`: not logged).
        #expect(container.resolve(Gadget?.self).map { $0 == nil } == true)
    }

    @Test func deinitRegistersThroughAViewWhileRemoveAllReleases() async throws {
        let container = Container()
        let view = container.synchronize()
        let sprocket = container.register(Sprocket.self) { _ in Sprocket() }.inObjectScope(.container)
        container.register(Departing.self) { _ in Departing(view: view, entry: sprocket) }.inObjectScope(.container)
        _ = container.resolve(Departing.self)
        container.removeAll()  // releases Departing, whose deinit registers through the view
        #expect(container.resolve(Gadget.self) != nil)
        #expect(try await view.resolveAsync(Cog.self) === (try await view.resolveAsync(Cog.self)))
    }

    /// `AsyncServiceEntry.built` (unchecked in release builds): the built
    /// instance's `deinit`, run by a reset, reads it through a synchronous resolution and adds an
    /// async registration while the reset is still in progress.
    @Test func deinitOfABuiltAsyncServiceResolvesAndRegistersDuringItsReset() async throws {
        final class Reporter: Sendable {
            let onDeinit: @Sendable () -> Void
            init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let container = Container()
        let view = container.synchronize()
        let seen = LockedBox<Bool>()
        view.registerAsync(Reporter.self) { _ in
            Reporter {
                seen.value = view.resolve(Reporter.self) != nil  // false: not built any more
                view.registerAsync(Cog.self) { _ in Cog() }
            }
        }
        .inObjectScope(.container)
        _ = try await view.resolveAsync(Reporter.self)
        view.resetObjectScope(.container)
        #expect(seen.value == false)
        #expect(try await view.resolveAsync(Cog.self) === (try await view.resolveAsync(Cog.self)))
        _ = try await view.resolveAsync(Reporter.self)  // built again
    }

    /// `FirstAccess.resolver` and `kept` (unchecked in release builds): a first access whose
    /// factory makes another first access on the same object, and a component that holds the last
    /// reference to its view, whose container's instances read the property from their `deinit`
    /// when the first access lets the resolver go.
    @Test func firstAccessesThatReenterTheSameObject() {
        final class Pair {
            @Injected var widget: Widget
            @Injected var gadget: Gadget
        }
        final class Reader {
            let read: () -> Void
            init(_ read: @escaping () -> Void) { self.read = read }
            deinit { read() }
        }
        var pair: Pair?
        var readsInDeinit = 0
        do {
            let container = Container()
            container.register(Gadget.self) { _ in Gadget() }
            container.register(Widget.self) { _ in
                _ = pair?.gadget  // a first access of the other property, inside this resolution
                return Widget()
            }
            container.register(Reader.self) { _ in
                Reader {
                    if pair?.widget != nil { readsInDeinit += 1 }  // read while the resolver goes
                }
            }
            .inObjectScope(.container)
            let view = container.synchronize()
            _ = view.resolve(Reader.self)
            pair = withResolver(view) { Pair() }
        }
        // The boxes hold the only references to the view, hence to the container and its Reader.
        let widget = pair?.widget
        #expect(widget != nil)
        #expect(pair?.gadget != nil)
        #expect(pair?.widget === widget)
        #expect(readsInDeinit == 1)  // the container is gone, and its Reader read the cached value
    }
}
