// Graft — MIT License.

// The stress: every thread resolves every service through the synchronized views, then checks.

import Glibc
import Graft
import Synchronization

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

    private func withLock<T>(_ body: () -> T) -> T {
        precondition(pthread_mutex_lock(mutex) == 0)
        defer { precondition(pthread_mutex_unlock(mutex) == 0) }
        return body()
    }

    func post(_ value: Handoff<Deferred>, to slot: Int) {
        withLock { slots[slot] = value }
    }

    func take(_ slot: Int) -> Handoff<Deferred>? {
        withLock {
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
