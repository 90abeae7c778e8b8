import Testing

@testable import Graft

private final class Plug: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}
private protocol Widget: AnyObject {}
@MainActor private final class Panel: Widget {}

/// Forwards `Sendable` to every `Plug` registration, as a behavior of an application's container
/// might.
private final class ForwardingPlugs: Behavior {
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        if Type.self == Plug.self { entry.implements(Sendable.self) }
    }
}

@Suite struct OverridesTests {
    @Test func withOverridesWithNoResolverBoundStopsSayingHowToBindOne() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let overrides = { (container: Container) -> Void in container.register(Ticker.self) { _ in Ticker(id: 1) } }
            withOverrides(overrides) { _ = SynchronizedResolver.current.resolve(Ticker.self) }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("withOverrides(_:operation:) with no resolver bound"))
        #expect(stderr.contains("SynchronizedResolver.bootstrap(container.synchronize())"))
        #expect(stderr.contains("withResolver(_:operation:)"))
    }

    @Test func overridesReplaceAndSingletonsBelongToTheScope() {
        let app = clockContainer(clock: 1)
        let outerFeed = app.resolve(Stream.self)!
        withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 100) }.inObjectScope(.container) }) {
                let feed = SynchronizedResolver.current.resolve(Stream.self)!
                #expect(feed !== outerFeed)  // no outer instance handed out inside
                #expect(feed.clock.id == 100)  // made here, with the override
                #expect(SynchronizedResolver.current.resolve(Stream.self) === feed)  // a singleton of the scope
            }
            #expect(SynchronizedResolver.current.resolve(Stream.self) === outerFeed)  // nothing leaked out
        }
        #expect(app.resolve(Ticker.self)?.id == 1)
    }

    @Test func scopeInstancesDieWithTheScope() {
        weak var scoped: Stream?
        withResolver(clockContainer(clock: 1).synchronize()) {
            withOverrides({ _ in }) { scoped = SynchronizedResolver.current.resolve(Stream.self) }
            #expect(scoped == nil)
        }
    }

    @Test func nestedOverridesStack() {
        let app = clockContainer(clock: 1)
        app.register(Beacon.self) { _ in Beacon() }
        withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 2) } }) {
                withOverrides({
                    $0.register(Stream.self) { r in Stream(clock: Ticker(id: r.resolve(Ticker.self)!.id * 10)) }
                }) {
                    #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 20)
                    #expect(SynchronizedResolver.current.resolve(Beacon.self) != nil)
                }
                #expect(SynchronizedResolver.current.resolve(Stream.self)?.clock.id == 2)
            }
        }
    }

    // The same tasks and reads as TaskResolverTests' binding test, each task bound by `withOverrides` here.
    @Test func parallelTasksOverridingTheSameServiceEachSeeTheirOwn() async {
        let app = clockContainer(clock: 0)
        let wrong = await withResolver(app.synchronize()) {
            await withTaskGroup(of: Int.self) { group in
                for id in 1...16 {
                    group.addTask {
                        await withOverrides({
                            $0.register(Ticker.self) { _ in Ticker(id: id) }.inObjectScope(.container)
                        }) {
                            var wrong = 0
                            for _ in 0..<20 {
                                await Task.yield()
                                if SynchronizedResolver.current.resolve(Stream.self)?.clock.id != id { wrong += 1 }
                            }
                            return wrong
                        }
                    }
                }
                return await group.reduce(0, +)
            }
        }
        #expect(wrong == 0)
        #expect(app.resolve(Stream.self)?.clock.id == 0)
    }

    /// The copy keeps the container's behaviors, so an override is configured as the registration
    /// it replaces was (here, forwarded), as in a container built afresh with it.
    @Test func theContainersBehaviorsConfigureTheOverrides() {
        let app = Container(behaviors: [ForwardingPlugs()])
        app.register(Plug.self) { _ in Plug(serial: 1) }
        #expect((app.resolve((any Sendable).self) as? Plug)?.serial == 1)
        let inside = withResolver(app.synchronize()) {
            withOverrides({ $0.register(Plug.self) { _ in Plug(serial: 2) } }) {
                (SynchronizedResolver.current.resolve((any Sendable).self) as? Plug)?.serial
            }
        }
        #expect(inside == 2, "the forwarded type resolves the registration the override replaced")
        #expect((app.resolve((any Sendable).self) as? Plug)?.serial == 1)
    }

    @Test func copiesNamedArgumentAndForwardedRegistrations() {
        let parent = Container()
        parent.register(Ticker.self, name: "fixed") { _ in Ticker(id: 9) }.implements(Sendable.self, name: "any")
        let app = Container(parent: parent, defaultObjectScope: .container)
        app.register(Ticker.self) { (_, id: Int) in Ticker(id: id) }
        withResolver(app.synchronize()) {
            withOverrides({ _ in }) {
                let current = SynchronizedResolver.current
                #expect(current.resolve(Ticker.self, name: "fixed")?.id == 9)
                #expect(current.resolve((any Sendable).self, name: "any") is Ticker)
                #expect(current.resolve(Ticker.self, argument: 3)?.id == 3)
                // The default scope (.container) was copied too.
                #expect(current.resolve(Ticker.self, argument: 3) === current.resolve(Ticker.self, argument: 3))
            }
        }
    }

    /// A later synchronous registration of the same key shadows an async or a main-actor one, in
    /// the container and in the copy `withOverrides` makes.
    @Test(arguments: ["async", "main-actor"])
    func overridesKeepASynchronousRegistrationThatShadowsAGatedOne(shadowed: String) {
        let container = Container()
        if shadowed == "async" {
            container.registerAsync(Plug.self) { _ in Plug(serial: 1) }
        } else {
            container.registerMain(Plug.self) { _ in Plug(serial: 1) }
        }
        container.register(Plug.self) { _ in Plug(serial: 99) }
        #expect(container.resolve(Plug.self)?.serial == 99)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolve(Plug.self)?.serial }
        }
        #expect(inside == 99, "inside withOverrides the sync registration is replaced by the \(shadowed) gate")
    }

    /// The copy made by `withOverrides` keeps one instance for the type and the type it implements.
    @MainActor @Test func overridesKeepOneInstanceForAForwardedMainActorService() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }.inObjectScope(.container).implements(Widget.self)
        let outside = container.resolveMain(Panel.self) === container.resolveMain(Widget.self)
        #expect(outside)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) {
                SynchronizedResolver.current.resolveMain(Panel.self)
                    === SynchronizedResolver.current.resolveMain(Widget.self)
            }
        }
        #expect(inside, "inside withOverrides Panel and Widget are two different instances")
    }

    /// After `removeAll`, a main-actor registration stays gone inside `withOverrides` too.
    @MainActor @Test func overridesDoNotResurrectARemovedMainActorRegistration() {
        let container = Container()
        container.registerMain(Panel.self) { _ in Panel() }
        container.removeAll()
        #expect(container.resolveMain(Panel.self) == nil)
        let inside = withResolver(container.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolveMain(Panel.self) != nil }
        }
        #expect(inside == false, "a removed registerMain resolves again inside withOverrides")
    }
}
