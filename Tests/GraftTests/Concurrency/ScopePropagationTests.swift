import Foundation
import Testing

@testable import Graft

private final class Socket: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}
private final class Lamp {}
private final class Lantern {}
private final class LampHolder { @Injected var lamp: Lamp? }
private final class StreamHolder { @Injected var stream: Stream }

/// A model that makes child models with the binding it was made with, as swift-dependencies'
/// `withDependencies(from:)` does.
private final class ParentModel {
    @Injected var stream: Stream
    private let escaped = withEscapedResolver { $0 }
    func makeChild() -> StreamHolder { escaped.yield { StreamHolder() } }
    func makeChildWithoutTheBinding() -> StreamHolder { StreamHolder() }
}

/// Counts from any task or thread.
private final class Count: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored = 0
    @discardableResult
    func next() -> Int {
        lock.withLock {
            stored += 1
            return stored
        }
    }
    var value: Int { lock.withLock { stored } }
}

/// An escaped binding handed out of the scope that made it.
private final class EscapedBox: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored: EscapedResolver?
    var value: EscapedResolver? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Whether `error` is a `ResolutionError` for a service not registered.
private func isNotRegistered(_ error: ResolutionError?) -> Bool {
    guard let error, case .notRegistered = error.reason else { return false }
    return true
}

/// How a binding made by `withResolver` or `withOverrides` reaches child tasks, escaping closures
/// and tasks that outlive the scope, and what an override scope does to instances kept outside it.
@Suite struct ScopePropagationTests {
    @Test func taskGroupChildrenInsideAnOverrideScopeShareTheScopesSingleton() async {
        let made = Count()
        let app = clockContainer(clock: 1)
        let outer = app.resolve(Stream.self)!
        let identities = await withResolver(app.synchronize()) {
            await withOverrides({
                $0.register(Ticker.self) { _ in
                    made.next()
                    return Ticker(id: 7)
                }.inObjectScope(.container)
            }) {
                await withTaskGroup(of: ObjectIdentifier?.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            let stream = SynchronizedResolver.current.resolve(Stream.self)
                            return stream?.clock.id == 7 ? stream.map(ObjectIdentifier.init) : nil
                        }
                    }
                    return await group.reduce(into: [ObjectIdentifier?]()) { $0.append($1) }
                }
            }
        }
        #expect(identities.count == 16)
        #expect(!identities.contains(nil))  // every child saw the override
        #expect(Set(identities).count == 1)  // and the scope's one singleton
        #expect(!identities.contains(ObjectIdentifier(outer)))
        #expect(made.value == 1)
        #expect(app.resolve(Stream.self) === outer)  // nothing leaked out
    }

    @Test func aTaskStartedInsideAnOverrideScopeKeepsItAfterTheScopeEnds() async {
        let gate = TestGate()
        let app = clockContainer(clock: 1)
        let task = withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 2) } }) {
                Task { () -> Int? in
                    await gate.wait()
                    return SynchronizedResolver.current.resolve(Stream.self)?.clock.id
                }
            }
        }
        // The scope has ended and nothing else holds its resolver; the task's binding does.
        await gate.arrivals(1)
        gate.open()
        #expect(await task.value == 2)
        #expect(app.resolve(Stream.self)?.clock.id == 1)
    }

    @Test func aDetachedTaskInsideAnOverrideScopeSeesNoBinding() async {
        let app = clockContainer(clock: 1)
        let unbound = await withResolver(app.synchronize()) {
            await withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 2) } }) {
                // No test bootstraps in this process (that test runs in its own), so a detached
                // task sees the placeholder.
                await Task.detached { SynchronizedResolver.current.isUnboundPlaceholder }.value
            }
        }
        #expect(unbound)
    }

    @Test func anEscapedOverrideScopeYieldsItOnAThreadAfterTheScopeEnds() async {
        let escaped = EscapedBox()
        let app = clockContainer(clock: 1)
        withResolver(app.synchronize()) {
            withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 3) } }) {
                withEscapedResolver { escaped.value = $0 }
            }
        }
        let box = escaped
        let seen = await onNewThread {
            (
                lost: SynchronizedResolver.current.isUnboundPlaceholder,
                restored: box.value?.yield { SynchronizedResolver.current.resolve(Stream.self)?.clock.id }
            )
        }
        #expect(seen.lost)
        #expect(seen.restored == 3)
    }

    @Test func anOverrideScopeHandsOutNoInstanceAParentContainerKeeps() {
        let parent = clockContainer(clock: 1)
        let child = Container(parent: parent)
        let outer = child.resolve(Stream.self)!  // kept by the parent's entry
        let inner = withResolver(child.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolve(Stream.self)! }
        }
        #expect(inner !== outer)
        #expect(parent.resolve(Stream.self) === outer)
    }

    @Test func anOverrideScopeHandsOutNoWeakInstanceHeldOutside() {
        let app = Container()
        app.register(Beacon.self) { _ in Beacon() }.inObjectScope(.weak)
        let held = app.resolve(Beacon.self)!
        let inside = withResolver(app.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolve(Beacon.self)! }
        }
        #expect(inside !== held)
        #expect(app.resolve(Beacon.self) === held)
    }

    @Test func anEscapedResolverOrATaskKeepsTheScopeUntilItIsDropped() async {
        weak var scoped: Beacon?
        let gate = TestGate()
        var escaped: EscapedResolver?
        var task: Task<Void, Never>?
        withResolver(clockContainer(clock: 1).synchronize()) {
            withOverrides({ $0.register(Beacon.self) { _ in Beacon() }.inObjectScope(.container) }) {
                scoped = SynchronizedResolver.current.resolve(Beacon.self)
                escaped = withEscapedResolver { $0 }
                task = Task { await gate.wait() }
            }
        }
        #expect(scoped != nil)  // the escaped binding and the running task hold the scope
        escaped = nil
        await gate.arrivals(1)
        gate.open()
        await task?.value
        task = nil
        #expect(escaped == nil)
        // A task releases its task-locals as it completes, before its awaiters resume.
        #expect(scoped == nil)
    }

    @Test func anInjectedPropertyReadAfterItsScopeKeepsOnlyItsValue() {
        weak var scoped: Beacon?
        let holder = withResolver(clockContainer(clock: 1).synchronize()) {
            withOverrides({ $0.register(Beacon.self) { _ in Beacon() }.inObjectScope(.container) }) {
                scoped = SynchronizedResolver.current.resolve(Beacon.self)
                return StreamHolder()
            }
        }
        #expect(scoped != nil)  // the unread property holds the scope's resolver
        #expect(holder.stream.clock.id == 1)
        #expect(scoped == nil)  // once read, only the stream is kept
    }

    @Test func aChildModelMadeLaterGetsItsParentsBindingOnlyThroughAnEscapedResolver() {
        let app = clockContainer(clock: 1)
        let (parent, child) = withResolver(app.synchronize()) {
            let parent = withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: 2) } }) { ParentModel() }
            return (parent, parent.makeChildWithoutTheBinding())
        }
        #expect(parent.stream.clock.id == 2)
        #expect(child.stream.clock.id == 1)  // made after the scope: the binding current then
        #expect(parent.makeChild().stream.clock.id == 2)
    }

    /// Stress for ThreadSanitizer: override scopes copy the registrations while another thread
    /// registers through the view they copy.
    @Test func overrideScopesCopyWhileAThreadRegistersThroughTheView() async {
        let app = clockContainer(clock: 1)
        let view = app.synchronize()
        let registered = Task.detached {
            for index in 0..<100 { view.register(Beacon.self, name: "\(index)") { _ in Beacon() } }
        }
        let wrong = await withResolver(view) {
            await withTaskGroup(of: Int.self) { group in
                for id in 0..<4 {
                    group.addTask {
                        var wrong = 0
                        for _ in 0..<25 {
                            let seen = withOverrides({ $0.register(Ticker.self) { _ in Ticker(id: id + 10) } }) {
                                SynchronizedResolver.current.resolve(Stream.self)?.clock.id
                            }
                            if seen != id + 10 { wrong += 1 }
                        }
                        return wrong
                    }
                }
                return await group.reduce(0, +)
            }
        }
        await registered.value
        #expect(wrong == 0)
        #expect(app.resolve(Beacon.self, name: "99") != nil)
    }
}

@Suite struct AsyncScopePropagationTests {
    @Test func tasksInsideAnOverrideScopeShareOneBuildOfTheScopesOwn() async throws {
        let builds = Count()
        let app = Container()
        app.registerAsync(Socket.self) { _ in
            await Task.yield()
            return Socket(serial: builds.next())
        }
        let outer = try await app.synchronize().resolveAsync(Socket.self)
        let identities = try await withResolver(app.synchronize()) {
            try await withOverrides({ _ in }) {
                try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                    for _ in 0..<32 {
                        group.addTask {
                            ObjectIdentifier(try await SynchronizedResolver.current.resolveAsync(Socket.self))
                        }
                    }
                    return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
                }
            }
        }
        #expect(identities.count == 1)
        #expect(!identities.contains(ObjectIdentifier(outer)))
        #expect(builds.value == 2)
        #expect(try await app.synchronize().resolveAsync(Socket.self) === outer)
    }

    @Test func anAsyncSingletonBuiltInAnOverrideScopeIsReleasedWithIt() async throws {
        weak var built: Socket?
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        try await withResolver(app.synchronize()) {
            try await withOverrides({ _ in }) {
                built = try await SynchronizedResolver.current.resolveAsync(Socket.self)
                #expect(built != nil)
            }
        }
        #expect(built == nil)
    }

    @Test func aBuildStartedInAnOverrideScopeFinishesAfterTheScopeEnds() async throws {
        let gate = TestGate()
        let app = Container()
        app.registerAsync(Socket.self) { _ in
            await gate.wait()
            return Socket(serial: 1)
        }
        let task = withResolver(app.synchronize()) {
            withOverrides({
                $0.registerAsync(Socket.self) { _ in
                    await gate.wait()
                    return Socket(serial: 2)
                }
            }) {
                Task { try await SynchronizedResolver.current.resolveAsync(Socket.self).serial }
            }
        }
        await gate.arrivals(1)
        gate.open()
        #expect(try await task.value == 2)
        #expect(app.synchronize().resolve(Socket.self) == nil)  // the outer one was never built
    }

    @Test func everyWaiterCancelledLeavesTheBuildKeptForTheNextCaller() async throws {
        let builds = Count()
        let gate = TestGate()
        let app = Container()
        app.registerAsync(Socket.self) { _ in
            await gate.wait()
            return Socket(serial: builds.next())
        }
        let resolver = app.synchronize()
        let waiters = (0..<4).map { _ in Task { try await resolver.resolveAsync(Socket.self) } }
        await gate.arrivals(1)
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            // A waiter that had not started waiting yet may find the result; none may hang.
            _ = try? await waiter.value
        }
        gate.open()
        let kept = try await resolver.resolveAsync(Socket.self)
        #expect(kept.serial == 1)
        #expect(builds.value == 1)
    }

    /// A test that overrides an async service with a synchronous stand-in must not reach the live
    /// factory through `resolveAsync`: the override replaces the async registration, whichever
    /// container of the hierarchy holds it.
    @Test(arguments: [false, true])
    func aSynchronousOverrideOfAnAsyncServiceReplacesItForResolveAsync(inParent: Bool) async throws {
        let live = Count()
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: live.next()) }
        let bound = inParent ? Container(parent: app) : app
        let (sync, failure) = await withResolver(bound.synchronize()) {
            await withOverrides({ $0.register(Socket.self) { _ in Socket(serial: 99) } }) {
                let resolver = SynchronizedResolver.current
                let sync = resolver.resolve(Socket.self)?.serial
                do {
                    _ = try await resolver.resolveAsync(Socket.self)
                    return (sync, nil as ResolutionError?)
                } catch {
                    return (sync, error as? ResolutionError)
                }
            }
        }
        #expect(sync == 99)
        #expect(live.value == 0, "resolveAsync built the live service the override replaced")
        #expect(isNotRegistered(failure))
        #expect(failure?.description.contains("registered with register, synchronously") == true)
    }

    @Test func aLaterSynchronousRegistrationReplacesAnAsyncOneForResolveAsync() async {
        let live = Count()
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: live.next()) }
        container.register(Socket.self) { _ in Socket(serial: 99) }
        let resolved = try? await container.synchronize().resolveAsync(Socket.self)
        #expect(resolved == nil)
        #expect(live.value == 0)
        #expect(container.resolve(Socket.self)?.serial == 99)
    }

    /// Built or not, an async service that a later synchronous registration replaced is not what
    /// `resolveAsync` returns: the replacement is what `resolve` returns, and `resolveAsync` fails
    /// naming it, as before the build.
    @Test func aLaterSynchronousRegistrationReplacesABuiltAsyncServiceForResolveAsync() async throws {
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let view = container.synchronize()
        #expect(try await view.resolveAsync(Socket.self).serial == 1)
        #expect(try await view.resolveAsync(Socket.self).serial == 1)
        container.register(Socket.self) { _ in Socket(serial: 99) }
        let failure = await failureOfResolveAsync(Socket.self, through: view)
        #expect(isNotRegistered(failure))
        #expect(failure?.description.contains("registered with register, synchronously") == true)
        #expect(view.resolve(Socket.self)?.serial == 99)
    }

    /// A child that registers the type synchronously shadows its parent's built async service
    /// through the child only; through the parent, `resolveAsync` still returns the one built.
    @Test func aChildsSynchronousRegistrationShadowsABuiltAsyncServiceOnlyThroughTheChild() async throws {
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let appView = app.synchronize()
        let built = try await appView.resolveAsync(Socket.self)
        let child = Container(parent: app)
        let childView = child.synchronize()
        #expect(try await childView.resolveAsync(Socket.self) === built)
        child.register(Socket.self) { _ in Socket(serial: 99) }
        for _ in 0..<2 {  // each view in turn, twice: neither answer is kept for the other view
            #expect(try await appView.resolveAsync(Socket.self) === built)
            #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: childView)))
        }
        #expect(childView.resolve(Socket.self)?.serial == 99)
        child.removeAll()  // the shadow gone, the child reaches its parent's built service again
        #expect(try await childView.resolveAsync(Socket.self) === built)
    }

    /// A factory that registers its own key synchronously while it builds: the build in flight
    /// returns its instance, and from then on the synchronous registration answers.
    @Test func anAsyncFactoryThatReplacesItsOwnRegistrationWhileBuildingIsNotReturnedAfterward() async throws {
        let container = Container()
        container.registerAsync(Socket.self) { resolver in
            resolver.register(Socket.self) { _ in Socket(serial: 99) }
            return Socket(serial: 1)
        }
        let view = container.synchronize()
        #expect(try await view.resolveAsync(Socket.self).serial == 1)
        #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: view)))
        #expect(view.resolve(Socket.self)?.serial == 99)
    }

    /// A registration through the view counts as one made on the container.
    @Test func aRegistrationThroughTheViewReplacesABuiltAsyncServiceForResolveAsync() async throws {
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let view = container.synchronize()
        _ = try await view.resolveAsync(Socket.self)
        view.register(Socket.self) { _ in Socket(serial: 99) }
        #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: view)))
        #expect(view.resolve(Socket.self)?.serial == 99)
    }

    /// What `resolveAsync` knew through a container that is gone says nothing about a new container
    /// (whose table may take the same address) below a parent that shadows the service.
    @Test func aNewContainerBelowAShadowIsNotAnsweredWithWhatAGoneContainerSaw() async throws {
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let built = try await app.synchronize().resolveAsync(Socket.self)
        let feature = Container(parent: app)
        feature.register(Socket.self) { _ in Socket(serial: 99) }
        for _ in 0..<50 {
            do {
                let sibling = Container(parent: app)  // sees the async service
                #expect(try await sibling.synchronize().resolveAsync(Socket.self) === built)
            }
            let below = Container(parent: feature)  // sees the shadow
            #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: below.synchronize())))
        }
    }

    /// A gone container's table, which an answer was noted through, and a new container's table at
    /// the same address under another parent are told apart, however the change counts along
    /// their two chains add up: here the shadowing registration adds one change where the gone
    /// chain had one more table and two more changes.
    @Test func aNewTableAtAGoneTablesAddressIsToldApartWhateverTheChainsCountsAddUpTo() async throws {
        for _ in 0..<50 {
            let app = Container()
            app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
            let middle = Container(parent: app)
            middle.register(Lamp.self) { _ in Lamp() }
            middle.register(Lamp.self, name: "spare") { _ in Lamp() }
            do {
                let below = Container(parent: middle)  // noted through, then gone
                #expect(try await below.synchronize().resolveAsync(Socket.self).serial == 1)
            }
            app.register(Socket.self) { _ in Socket(serial: 99) }
            let next = Container(parent: app)
            #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: next.synchronize())))
            #expect(next.synchronize().resolve(Socket.self)?.serial == 99)
        }
    }

    /// Tasks resolve a built async service through children that come and go, half of them made
    /// under a container that shadows it, while registrations are made through views: each answer
    /// is the one `resolve` gives through the same view.
    @Test func resolveAsyncAgreesWithResolveWhileChildrenComeAndGoOnManyTasks() async throws {
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let appView = app.synchronize()
        let shadowing = Container(parent: app)
        shadowing.register(Socket.self) { _ in Socket(serial: 99) }
        let shadowingView = shadowing.synchronize()
        let built = try await appView.resolveAsync(Socket.self)
        let disagreements = Count()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<6 {
                group.addTask {
                    for round in 0..<100 {
                        let shadowed = (task + round) % 2 == 0
                        let child = Container(parent: shadowed ? shadowingView : appView).synchronize()
                        if task == 0 { appView.register(Lamp.self, name: "\(round % 4)") { _ in Lamp() } }
                        let answer = try? await child.resolveAsync(Socket.self)
                        if answer !== (shadowed ? nil : built)
                            || child.resolve(Socket.self)?.serial != (shadowed ? 99 : 1)
                        {
                            disagreements.next()
                        }
                    }
                }
            }
        }
        #expect(disagreements.value == 0)
        #expect(try await appView.resolveAsync(Socket.self) === built)
    }

    /// A child container is its own: one task may fill it (no view, no mutex) while others resolve
    /// a built async service through its parent's view, which reads nothing of the child's.
    /// (ThreadSanitizer, which runs this suite, reports a race if the two share state.)
    @Test func fillingAChildOnItsOwnTaskSharesNothingWithResolveAsyncThroughItsParent() async throws {
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let view = app.synchronize()
        let built = try await view.resolveAsync(Socket.self)
        let wrong = Count()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<3_000 where (try? await view.resolveAsync(Socket.self)) !== built { wrong.next() }
            }
            group.addTask {
                let child = Container(parent: view)
                for index in 0..<3_000 { child.register(Lamp.self, name: "\(index)") { _ in Lamp() } }
                for _ in 0..<100 { child.removeAll() }
            }
        }
        #expect(wrong.value == 0)
    }

    /// A container an answer was noted through, released by a factory that runs under the mutex
    /// (its `deinit` moves the count of noted tables gone right there), and a factory that
    /// registers the async type's key while a synchronized call runs: the answers stay right.
    @Test func aFactoryThatDropsANotedContainerOrRegistersTheKeyKeepsResolveAsyncRight() async throws {
        let app = Container()
        app.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let view = app.synchronize()
        let built = try await view.resolveAsync(Socket.self)
        let held = ContainerHolder(Container(parent: app))
        #expect(try await held.container!.synchronize().resolveAsync(Socket.self) === built)
        app.register(Lamp.self) { _ in
            held.container = nil
            return Lamp()
        }
        #expect(view.resolve(Lamp.self) != nil)
        #expect(try await view.resolveAsync(Socket.self) === built)
        app.register(Lantern.self) { resolver in
            (resolver as? Container)?.register(Socket.self) { _ in Socket(serial: 99) }
            return Lantern()
        }
        #expect(view.resolve(Lantern.self) != nil)
        #expect(isNotRegistered(await failureOfResolveAsync(Socket.self, through: view)))
        #expect(view.resolve(Socket.self)?.serial == 99)
    }

    /// Registering other types leaves a built async service as it was: `resolveAsync` returns it.
    @Test func registeringOtherTypesKeepsABuiltAsyncServiceForResolveAsync() async throws {
        let container = Container()
        container.registerAsync(Socket.self) { _ in Socket(serial: 1) }
        let view = container.synchronize()
        let built = try await view.resolveAsync(Socket.self)
        container.register(Lamp.self) { _ in Lamp() }
        container.register(Socket.self, name: "spare") { _ in Socket(serial: 2) }
        #expect(try await view.resolveAsync(Socket.self) === built)
        #expect(try await view.resolveAsync(Socket.self) === built)
    }
}

/// A container a factory can let go of.
private final class ContainerHolder: @unchecked Sendable {  // only touched by one task at a time
    var container: Container?
    init(_ container: Container) { self.container = container }
}

/// The `ResolutionError` that `resolveAsync` throws, or `nil` if it returns.
private func failureOfResolveAsync<Service: Sendable>(
    _ type: Service.Type, through resolver: SynchronizedResolver
) async -> ResolutionError? {
    do {
        _ = try await resolver.resolveAsync(type)
        return nil
    } catch {
        return error as? ResolutionError
    }
}

@Suite struct MainActorScopePropagationTests {
    @MainActor @Test func anInjectedMainActorServiceReadOffTheMainActorIsNilAndNotKept() async {
        let app = Container()
        app.registerMain(Lamp.self) { _ in Lamp() }.inObjectScope(.container)
        let holder = withResolver(app.synchronize()) { LampHolder() }
        let box = UncheckedBox(holder)
        let offMain = await onNewThread { box.value.lamp == nil }
        #expect(offMain)
        #expect(holder.lamp != nil)  // on the main actor, resolved again
        #expect(holder.lamp === app.resolveMain(Lamp.self))
    }

    @MainActor @Test func aMainActorSingletonMadeInAnOverrideScopeIsReleasedWithIt() {
        weak var made: Lamp?
        let app = Container()
        app.registerMain(Lamp.self) { _ in Lamp() }.inObjectScope(.container)
        withResolver(app.synchronize()) {
            withOverrides({ _ in }) {
                made = SynchronizedResolver.current.resolveMain(Lamp.self)
                #expect(made != nil)
            }
        }
        #expect(made == nil)
    }

    @MainActor @Test func aMainActorSingletonMadeInAnOverrideScopeStaysInIt() async {
        let app = Container()
        app.registerMain(Lamp.self) { _ in Lamp() }.inObjectScope(.container)
        let outer = app.resolveMain(Lamp.self)!
        let inner = withResolver(app.synchronize()) {
            withOverrides({ _ in }) { SynchronizedResolver.current.resolveMain(Lamp.self)! }
        }
        #expect(inner !== outer)
        #expect(app.resolveMain(Lamp.self) === outer)
        // Off the main actor the plain resolve hands out neither.
        let resolver = app.synchronize()
        let offMain = await onNewThread { resolver.resolve(Lamp.self) == nil }
        #expect(offMain)
    }
}
