// Graft — MIT License.
//
// graft-stress: a bounded concurrency stress of Graft's synchronized views, meant to run under
// ThreadSanitizer (scripts/tsan.sh). Eight pthreads, released together by a barrier, each run a
// fixed number of iterations against the synchronized views of a parent container and of its
// child, touching every scope (transient, graph, container, weak, a custom one), `Lazy` and
// `Provider` (resolved on one thread, accessed on others), and weak-scoped instances that
// threads release while others resolve them. After joining every thread it checks what was
// built, and exits 1 on a wrong result.
//
//     graft-stress [--iterations N]     the stress (default 2,000 iterations per thread)
//     graft-stress --planted-race       the stress, then a deliberate data race on a shared
//                                       variable, which ThreadSanitizer must report
//     graft-stress --planted-race-container
//                                       the stress, then two threads resolving through one plain
//                                       (unsynchronized) `Container`, which TSan must report
//
// No Foundation: threads and locks are pthreads, counters are `Synchronization.Atomic` (only
// read after the threads are joined).
import Glibc
import Graft
import Synchronization

// MARK: - Threads

/// What one pthread runs.
final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Runs `body(index)` on `count` pthreads, released together by a barrier, and joins them all.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let barrier = Barrier(count: count)
    var threads: [pthread_t] = []
    for index in 0..<count {
        let box = Unmanaged.passRetained(
            ThreadBody {
                barrier.wait()
                body(index)
            }
        ).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    for thread in threads {
        let status = pthread_join(thread, nil)
        precondition(status == 0, "pthread_join failed: \(status)")
    }
    barrier.destroy()
}

/// A pthread barrier at a stable address, so the threads start their work together.
final class Barrier: @unchecked Sendable {  // the barrier is its own synchronization
    private let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)

    init(count: Int) {
        precondition(pthread_barrier_init(barrier, nil, UInt32(count)) == 0)
    }

    func wait() {
        let status = pthread_barrier_wait(barrier)
        precondition(status == 0 || status == PTHREAD_BARRIER_SERIAL_THREAD)
    }

    /// Called once every thread has been joined.
    func destroy() {
        pthread_barrier_destroy(barrier)
        barrier.deallocate()
    }
}

/// Carries a value that is not `Sendable` (a `Lazy`, a `Provider`, a plain `Container`) to
/// another thread. Graft's documentation says a `Lazy` or `Provider` resolved through a
/// synchronized view resolves under the hierarchy's mutex, which is what this stress checks.
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: - Bookkeeping

/// Instances made (and, for the weak-scoped kinds, freed), counted from any thread.
final class Census: Sendable {
    let settings = Atomic<Int>(0)
    let session = Atomic<Int>(0)
    let feature = Atomic<Int>(0)
    let pinned = Atomic<Int>(0)
    let churnMade = Atomic<Int>(0)
    let churnFreed = Atomic<Int>(0)
    let childWeakMade = Atomic<Int>(0)
    let childWeakFreed = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
}

let census = Census()

/// Counts factory calls with a plain `var`: Graft documents that factories run under the
/// hierarchy's mutex, so they may touch captured state without a lock of their own. Were a
/// factory ever run outside the mutex, ThreadSanitizer would report this counter.
final class FactoryLog: @unchecked Sendable {  // touched only by factories, i.e. under Graft's mutex
    var calls = 0
}

let factoryLog = FactoryLog()

/// Prints a line and flushes it: a ThreadSanitizer report ends the process with `_exit`, which
/// would drop buffered lines such as "stress OK" that scripts/tsan.sh looks for.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// Records a wrong result (printed for the first few) to fail the run.
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    guard !condition else { return }
    let count = census.failures.add(1, ordering: .relaxed).newValue
    if count <= 20 { say("graft-stress: WRONG: \(what())") }
}

// MARK: - Services

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

// MARK: - The stress

/// What one thread saw, written only by that thread and read after it is joined.
final class ThreadReport: @unchecked Sendable {  // see above: joined before it is read
    var settings: ObjectIdentifier?
    var session: ObjectIdentifier?
    var feature: ObjectIdentifier?
    var sharedLazyClock: ObjectIdentifier?
    var iterations = 0
}

/// Mailboxes through which each thread hands the `Deferred` it resolved to the next thread.
///
/// Guarded by a pthread mutex, not `Synchronization.Mutex`: on Linux the latter locks with
/// atomics and futexes inside the uninstrumented standard library, which ThreadSanitizer cannot
/// see, so it reports the accesses it guards as races (it did, in this program).
final class Mailboxes: @unchecked Sendable {  // `slots` is only touched under `mutex`
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var slots: [Handoff<Deferred>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        precondition(pthread_mutex_init(mutex, nil) == 0)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        precondition(pthread_mutex_lock(mutex) == 0)
        defer { precondition(pthread_mutex_unlock(mutex) == 0) }
        return body()
    }

    func post(_ value: Handoff<Deferred>, to slot: Int) {
        locked { slots[slot] = value }
    }

    func take(_ slot: Int) -> Handoff<Deferred>? {
        locked {
            let value = slots[slot]
            slots[slot] = nil
            return value
        }
    }
}

/// The `Lazy` and `Provider` values of `deferred` answer as their scopes say, wherever it was made.
func checkDeferred(_ deferred: Deferred, settings: Settings, session: Session, made origin: String) {
    check(deferred.lazySettings.instance === settings, "Lazy<Settings> made \(origin) is another Settings")
    // A `Lazy<Edge>` finds its own graph's `Edge` however many graphs (on any thread) have
    // resolved `Edge` since.
    check(deferred.lazyEdge.instance === deferred.edge, "Lazy<Edge> made \(origin) left its graph")
    check(deferred.lazyEdge.instance === deferred.lazyEdge.instance, "Lazy<Edge> made \(origin) not cached")
    check(deferred.lazyClock.instance === deferred.lazyClock.instance, "Lazy<Clock> made \(origin) not cached")
    check(deferred.clocks.instance !== deferred.clocks.instance, "Provider<Clock> made \(origin) reused")
    check(deferred.sessions.instance === session, "Provider<Session> made \(origin) is another Session")
}

func stress(threads: Int, iterations: Int) {
    let (parentContainer, childContainer) = makeContainers()
    let parent = parentContainer.synchronize()
    let child = childContainer.synchronize()

    // Held by this thread until every worker is joined: all threads must get this instance.
    let pinned = parent.resolve(Pinned.self)!
    let pinnedID = ObjectIdentifier(pinned)
    // Resolved here, accessed from every thread: one cached clock, and a new clock per access.
    let sharedLazyClock = Handoff(child.resolve(Lazy<Clock>.self)!)
    let sharedClocks = Handoff(parent.resolve(Provider<Clock>.self)!)

    let reports = (0..<threads).map { _ in ThreadReport() }
    let mailboxes = Mailboxes(count: threads)

    onThreads(threads) { thread in
        let report = reports[thread]
        var previousRoot: Root?
        for iteration in 0..<iterations {
            // Alternate which view goes first, so threads mix parent and child resolutions.
            let (first, second) = (thread + iteration) % 2 == 0 ? (parent, child) : (child, parent)

            // .container: one instance across threads and views.
            let settings = first.resolve(Settings.self)!
            check(second.resolve(Settings.self)! === settings, "two Settings seen by one thread")
            if let known = report.settings {
                check(known == ObjectIdentifier(settings), "Settings changed")
            } else {
                report.settings = ObjectIdentifier(settings)
            }

            // .graph: shared within one resolution, new in the next.
            let root = first.resolve(Root.self)!
            check(root.left === root.right, "graph scope not shared within a resolution")
            check(root.settings === settings, "Root has another Settings")
            if let previousRoot {
                check(previousRoot.left !== root.left, "graph-scoped Edge kept across resolutions")
            }
            previousRoot = root

            // .transient, with and without an argument.
            check(second.resolve(Clock.self)! !== second.resolve(Clock.self)!, "transient Clock reused")
            check(first.resolve(Tagged.self, argument: iteration)?.tag == iteration, "Tagged lost its argument")

            // Custom scope: one instance.
            let session = second.resolve(Session.self)!
            if let known = report.session {
                check(known == ObjectIdentifier(session), "Session changed")
            } else {
                report.session = ObjectIdentifier(session)
            }

            // .weak, held by the main thread: shared by everyone.
            check(ObjectIdentifier(first.resolve(Pinned.self)!) == pinnedID, "held weak instance not shared")

            // .weak, held only here: shared while held, through both views; released at the end of
            // this iteration, concurrently with other threads resolving and releasing it.
            do {
                let churn = first.resolve(Churn.self)!
                check(second.resolve(Churn.self)! === churn, "held weak Churn not shared")
                let childWeak = child.resolve(ChildWeak.self)!
                check(child.resolve(ChildWeak.self)! === childWeak, "held weak ChildWeak not shared")
                check(childWeak.churn === churn, "ChildWeak holds another Churn")
            }

            // Overrides: the child's registration for the child only.
            check(parent.resolve(Greeter.self)!.origin == "parent", "parent sees the child's Greeter")
            check(child.resolve(Greeter.self)!.origin == "child", "child does not see its own Greeter")

            // Child .container, built from the parent's services.
            let feature = child.resolve(Feature.self)!
            check(feature.settings === settings && feature.session === session, "Feature wired wrongly")
            if let known = report.feature {
                check(known == ObjectIdentifier(feature), "Feature changed")
            } else {
                report.feature = ObjectIdentifier(feature)
            }

            // Lazy and Provider resolved here...
            let deferred = first.resolve(Deferred.self)!
            checkDeferred(deferred, settings: settings, session: session, made: "here")

            // ...handed to the next thread, while this thread accesses the previous one's.
            let lazyClock = deferred.lazyClock.instance
            mailboxes.post(Handoff(deferred), to: (thread + 1) % threads)
            if let received = mailboxes.take(thread)?.value {
                checkDeferred(received, settings: settings, session: session, made: "on another thread")
            }
            check(deferred.lazyClock.instance === lazyClock, "Lazy<Clock> changed after handing over")

            // A Lazy and a Provider made on the main thread, accessed by all.
            let clock = sharedLazyClock.value.instance
            if let known = report.sharedLazyClock {
                check(known == ObjectIdentifier(clock), "shared Lazy<Clock> changed")
            } else {
                report.sharedLazyClock = ObjectIdentifier(clock)
            }
            check(sharedClocks.value.instance !== clock, "shared Provider<Clock> returned the Lazy's clock")

            report.iterations += 1
        }
    }

    // Every worker is joined: what they saw must agree.
    for report in reports {
        check(report.iterations == iterations, "a thread ran \(report.iterations) iterations")
        check(report.settings == reports[0].settings, "threads saw different Settings")
        check(report.session == reports[0].session, "threads saw different Sessions")
        check(report.feature == reports[0].feature, "threads saw different Features")
        check(report.sharedLazyClock == reports[0].sharedLazyClock, "threads saw different shared Lazy clocks")
    }
    check(
        census.settings.load(ordering: .relaxed) == 1, "Settings made \(census.settings.load(ordering: .relaxed)) times"
    )
    check(census.session.load(ordering: .relaxed) == 1, "Session made \(census.session.load(ordering: .relaxed)) times")
    check(census.feature.load(ordering: .relaxed) == 1, "Feature made \(census.feature.load(ordering: .relaxed)) times")
    check(census.pinned.load(ordering: .relaxed) == 1, "Pinned made \(census.pinned.load(ordering: .relaxed)) times")
    withExtendedLifetime(pinned) {}

    // The mailboxes may still hold the last `Deferred`s; none holds a weak-scoped instance.
    let churnMade = census.churnMade.load(ordering: .relaxed)
    let churnFreed = census.churnFreed.load(ordering: .relaxed)
    check(churnMade >= 1 && churnMade == churnFreed, "Churn made \(churnMade) times, freed \(churnFreed) times")
    let childMade = census.childWeakMade.load(ordering: .relaxed)
    let childFreed = census.childWeakFreed.load(ordering: .relaxed)
    check(childMade >= 1 && childMade == childFreed, "ChildWeak made \(childMade) times, freed \(childFreed) times")
    // Read after the joins: every factory ran under Graft's mutex, on whatever thread.
    check(factoryLog.calls > threads * iterations, "factory calls: \(factoryLog.calls)")

    say(
        """
        graft-stress: \(threads) threads x \(iterations) iterations, \(factoryLog.calls) factory calls, \
        Churn made/freed \(churnMade)/\(churnFreed), ChildWeak made/freed \(childMade)/\(childFreed)
        """)
    withExtendedLifetime((parentContainer, childContainer)) {}
}

// MARK: - Planted races

/// A plain counter incremented by two threads with no synchronization: a data race that
/// ThreadSanitizer must report. Proves the sanitizer setup, not Graft.
final class UnguardedCounter: @unchecked Sendable {  // deliberately racy
    var value = 0
}

func plantedRaceOnSharedVariable() {
    say("graft-stress: planting a data race on a shared variable (ThreadSanitizer must report it)")
    let counter = UnguardedCounter()
    onThreads(2) { _ in
        for _ in 0..<1_000 { counter.value += 1 }
    }
    say("graft-stress: planted race ran, counter = \(counter.value)")
}

/// Two threads resolving a `.container`-scoped service through one plain `Container`, which is
/// documented as not thread-safe: ThreadSanitizer must report a race inside Graft.
func plantedRaceOnPlainContainer() {
    say("graft-stress: planting a data race on a plain Container (ThreadSanitizer must report it)")
    let container = Container()
    container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
    container.register(Clock.self) { _ in Clock() }.inObjectScope(.transient)
    let shared = Handoff(container)
    onThreads(2) { _ in
        for _ in 0..<200 {
            _ = shared.value.resolve(Settings.self)
            _ = shared.value.resolve(Clock.self)
        }
    }
    say("graft-stress: planted race ran")
}

// MARK: - Main

var iterations = 2_000
var plantRace = false
var plantContainerRace = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--planted-race": plantRace = true
    case "--planted-race-container": plantContainerRace = true
    case "--iterations":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
            say("graft-stress: --iterations needs a positive number")
            exit(2)
        }
        iterations = value
    default:
        say("usage: graft-stress [--iterations N] [--planted-race] [--planted-race-container]")
        exit(2)
    }
}

stress(threads: 8, iterations: iterations)
let failures = census.failures.load(ordering: .relaxed)
guard failures == 0 else {
    say("graft-stress: FAIL: \(failures) wrong results")
    exit(1)
}
say("graft-stress: stress OK")

if plantRace { plantedRaceOnSharedVariable() }
if plantContainerRace { plantedRaceOnPlainContainer() }
