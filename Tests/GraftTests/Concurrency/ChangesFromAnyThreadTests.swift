import Foundation
import Testing

@testable import Graft

/// Every change to a container takes the hierarchy's mutex, on a plain container as on a view:
/// changes from any threads are safe against each other and against resolutions through a view,
/// and what one `registerAtomically` call (or an assembler's assemblies) registers is published
/// whole, with its settings.
@Suite struct ChangesFromAnyThreadTests {
    final class Settings: @unchecked Sendable {  // `ready` is written by `initCompleted`, under the mutex
        var ready = false
    }
    final class Service {}
    final class Dropped {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    /// Notes, from user code a change runs, whether the changing thread holds the mutex then.
    final class Probe: @unchecked Sendable {  // touched on one thread at a time: the test's, then the change's
        var heldDuringChange: [String: Bool] = [:]
        func note(_ change: String, _ container: Container) {
            heldDuringChange[change] = container.hierarchy.isInSynchronizedCall
        }
    }

    final class NotingBehavior: Behavior {
        let probe: Probe
        init(_ probe: Probe) { self.probe = probe }
        func container<Type, Service>(
            _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            probe.note(name ?? "register", container)
        }
    }

    /// Each kind of change runs under the mutex on a plain container: the user code it runs (a
    /// behavior told about a registration or a forward, a `deinit` of what a removal, a reset or a
    /// change of scope drops, a custom scope's storage made) finds the mutex held by its thread.
    @Test func everyChangeOnAPlainContainerHoldsTheMutex() {
        let probe = Probe()
        let container = Container(behaviors: [NotingBehavior(probe)])
        let entry = container.register(Service.self, name: "register") { _ in Service() }
        container.forward(AnyObject.self, name: "forward", to: entry)
        container.register(Dropped.self) { _ in Dropped { probe.note("resetObjectScope", container) } }
            .inObjectScope(.container)
        _ = container.resolve(Dropped.self)
        container.resetObjectScope(.container)
        let scoped = container.register(Dropped.self, name: "scoped") { _ in
            Dropped { probe.note("inObjectScope", container) }
        }.inObjectScope(.container)
        _ = container.resolve(Dropped.self, name: "scoped")
        scoped.inObjectScope(.transient)
        container.register(Dropped.self, name: "removed") { _ in Dropped { probe.note("removeAll", container) } }
            .inObjectScope(.container)
        _ = container.resolve(Dropped.self, name: "removed")
        container.registerAtomically { probe.note("registerAtomically", $0) }
        container.removeAll()
        let changes: Set = [
            "register", "forward", "resetObjectScope", "inObjectScope", "registerAtomically", "removeAll",
        ]
        #expect(changes.isSubset(of: probe.heldDuringChange.keys))
        #expect(probe.heldDuringChange.values.allSatisfy { $0 })
        // Between changes, a plain container holds nothing.
        #expect(!container.hierarchy.isInSynchronizedCall)
    }

    struct ProbingAssembly: Assembly {
        let probe: Probe
        func assemble(container: Container) {
            probe.note("assemble", container)
            container.register(Service.self) { _ in Service() }
        }
        func loaded(resolver: Resolver) {
            probe.note("loaded", resolver as! Container)
        }
    }

    /// An assembler's `assemble` calls and `loaded` hooks run under one hold of the mutex, so a
    /// hook resolving through the plain container never overlaps other threads' resolutions
    /// through its view.
    @Test func anAssemblerHoldsTheMutexForItsAssembliesAndItsHooks() {
        let probe = Probe()
        let assembler = ContainerAssembler([ProbingAssembly(probe: probe)])
        #expect(probe.heldDuringChange == ["assemble": true, "loaded": true])
        #expect(assembler.resolver.resolve(Service.self) != nil)
    }

    /// Inside a batch, which lets registrations skip the mutex on the strength of a mark it sets
    /// for its thread, user code run by a change re-enters: a `deinit` of a replaced singleton that
    /// registers, resolves and removes in the same hierarchy and registers in another, a nested
    /// batch of another hierarchy that registers back, a batch that throws. Every registration
    /// lands, and once the batches end their marks are gone: this thread's next registration takes
    /// the mutex again, and another thread's registration waits for no one.
    @Test func userCodeRunInsideABatchChangesAnyHierarchyAndTheMarksEnd() throws {
        struct Refusal: Error {}
        let container = Container()
        let child = Container(parent: container)
        let other = Container()
        child.register(Service.self, name: "child") { _ in Service() }
        container.register(Dropped.self) { _ in
            Dropped {
                container.register(Service.self, name: "from deinit") { _ in Service() }
                _ = container.resolve(Service.self, name: "from deinit")
                child.removeAll()
                other.register(Service.self, name: "from deinit") { _ in Service() }
            }
        }.inObjectScope(.container)
        _ = container.resolve(Dropped.self)
        container.registerAtomically { container in
            container.register(Dropped.self) { _ in Dropped {} }  // replaces the singleton: its deinit runs
            other.registerAtomically { other in
                other.register(Service.self, name: "nested") { _ in Service() }
                container.register(Service.self, name: "nested") { _ in Service() }
            }
        }
        #expect(throws: Refusal.self) {
            try container.registerAtomically { container in
                container.register(Service.self, name: "before the throw") { _ in Service() }
                throw Refusal()
            }
        }
        #expect(Platform.threadValue(container.hierarchy.heldChangesKey) == nil)
        for name in ["from deinit", "nested", "before the throw"] {
            #expect(container.resolve(Service.self, name: name) != nil, "\(name)")
        }
        #expect(other.resolve(Service.self, name: "from deinit") != nil)
        #expect(other.resolve(Service.self, name: "nested") != nil)
        #expect(child.resolve(Service.self, name: "child") == nil)
        let probe = Probe()
        container.addBehavior(NotingBehavior(probe))
        container.register(Service.self, name: "after") { _ in Service() }
        #expect(probe.heldDuringChange["after"] == true)
        nonisolated(unsafe) let shared = container  // used by one thread at a time: this one waits
        let done = DispatchSemaphore(value: 0)
        Thread {
            shared.register(Service.self, name: "another thread") { _ in Service() }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 60) == .success)  // a hang bound, not a timing
        #expect(container.resolve(Service.self, name: "another thread") != nil)
    }

    /// Threads register, forward and remove in a plain container and its child while others
    /// resolve through the parent's view; every resolution answers, and what each thread
    /// registered last is what is found.
    @Test func registeringFromManyThreadsWhileOthersResolveThroughAView() async {
        let root = Container()
        root.register(Settings.self) { _ in Settings() }
        let view = root.synchronize()
        nonisolated(unsafe) let plain = root  // changes take the mutex: sharing it for them is the point
        let registrars = 8
        let rounds = 200
        let answered = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<registrars {
                group.addTask {
                    for round in 0..<rounds {
                        let entry = plain.register(Int.self, name: "thread-\(thread)") { _ in round }
                        plain.forward(Int.self, name: "forwarded-\(thread)", to: entry)
                        let child = Container(parent: plain)
                        child.register(Int.self) { _ in round }
                        child.removeAll()
                    }
                    return 0
                }
                group.addTask {
                    var answered = 0
                    for _ in 0..<rounds where view.resolve(Settings.self) != nil { answered += 1 }
                    return answered
                }
            }
            return await group.reduce(0, +)
        }
        #expect(answered == registrars * rounds)
        for thread in 0..<registrars {
            #expect(view.resolve(Int.self, name: "thread-\(thread)") == rounds - 1)
            #expect(view.resolve(Int.self, name: "forwarded-\(thread)") == rounds - 1)
        }
    }

    final class Database: Sendable {}
    final class Feature: Sendable {
        let database: Database
        init(database: Database) { self.database = database }
    }

    /// Registers `Feature`, and resolves it in its `loaded` hook through the container it is given.
    struct FeatureAssembly: Assembly {
        func assemble(container: Container) {
            container.register(Feature.self) { r in Feature(database: r.resolve(Database.self)!) }
        }
        func loaded(resolver: Resolver) {
            precondition(resolver.resolve(Feature.self) != nil, "the hook could not resolve Feature")
        }
    }

    /// Assemblies applied to the plain container by one thread, whose hooks resolve, while two
    /// threads resolve through the view: the hooks run under the mutex, so no resolution overlaps
    /// another (which would stop the program as a plain container used from two threads).
    @Test func anAssemblerOverThePlainContainerWhileOthersResolveThroughTheView() {
        let root = Container()
        root.register(Database.self) { _ in Database() }.inObjectScope(.container)
        let view = root.synchronize()
        nonisolated(unsafe) let plain = root  // changes and the assembler's hooks take the mutex
        let done = ManagedAtomicCounter()
        let finished = DispatchSemaphore(value: 0)
        let resolved = ManagedAtomicCounter()
        let started = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread.detachNewThread {
                started.signal()
                while done.value == 0 {
                    if view.resolve(Database.self) != nil { resolved.increment() }
                }
                finished.signal()
            }
        }
        started.wait()
        started.wait()
        for _ in 0..<200 { ContainerAssembler(container: plain).apply(assembly: FeatureAssembly()) }
        done.increment()
        finished.wait()
        finished.wait()
        #expect(view.resolve(Feature.self) != nil)
    }

    /// The queries of a plain container (its registrations, whether one exists, its description)
    /// read under the mutex: another thread registering meanwhile, growing the table, is safe.
    @Test func queriesOfAPlainContainerWhileAnotherThreadRegisters() {
        nonisolated(unsafe) let plain = Container()  // its changes and queries take the mutex
        let registered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for index in 0..<2_000 { plain.register(Int.self, name: "n\(index)") { _ in index } }
            registered.signal()
        }
        var answers = 0
        for index in 0..<2_000 {
            _ = plain.hasAnyRegistration(of: Int.self, name: "n\(index)")
            if index % 200 == 0 {
                _ = plain.registrations
                _ = plain.description
            }
            answers += 1
        }
        registered.wait()
        #expect(answers == 2_000)
        #expect(plain.registrations.count == 2_000)
        #expect(plain.hasAnyRegistration(of: Int.self, name: "n1999"))
    }

    /// A registration re-made with its settings inside `registerAtomically`, while two threads
    /// resolve it through a view: no resolution ever sees it without its scope or before its
    /// `initCompleted` ran, and each registration makes one instance at most.
    @Test func aRegistrationMadeAtomicallyIsNeverSeenWithoutItsSettings() {
        let container = Container()
        let view = container.synchronize()
        let made = ManagedAtomicCounter()
        func registerSettings(_ resolver: Container) {
            resolver.register(Settings.self) { _ in
                made.increment()
                return Settings()
            }
            .inObjectScope(.container)
            .initCompleted { _, settings in settings.ready = true }
        }
        view.registerAtomically(registerSettings)
        let reloads = 2_000
        let done = ManagedAtomicCounter()
        let notReady = ManagedAtomicCounter()
        let finished = DispatchSemaphore(value: 0)
        // Threads, not tasks: the resolving loops spin until the reloads end, and tasks would
        // take every thread of the cooperative pool from the task that reloads.
        for _ in 0..<2 {
            Thread.detachNewThread {
                while done.value == 0 {
                    if view.resolve(Settings.self)?.ready != true { notReady.increment() }
                }
                finished.signal()
            }
        }
        for _ in 0..<reloads { view.registerAtomically(registerSettings) }
        done.increment()
        finished.wait()
        finished.wait()
        #expect(notReady.value == 0)
        #expect(made.value <= reloads + 1)
    }
}

/// A counter several threads increment.
final class ManagedAtomicCounter: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
