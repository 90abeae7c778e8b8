import GraftTesting
import Testing

@testable import Graft

private final class Archive: Sendable {}
private final class Journal: Sendable {}

/// Counts, by identity, the instances an `initCompleted` action was run on.
private final class Completions: @unchecked Sendable {  // touched by one test's thread at a time
    var objects: [ObjectIdentifier] = []
}

/// Adds an `initCompleted` action to every registration it is told about, as a behavior that
/// injects properties or counts instances does.
private final class CompletingBehavior: Behavior {
    let completions: Completions
    init(_ completions: Completions) { self.completions = completions }

    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        entry.initCompleted { [completions] _, instance in
            completions.objects.append(ObjectIdentifier(instance as AnyObject))
        }
    }
}

/// A behavior told about an async registration is handed what answers the synchronous `resolve`.
/// An `initCompleted` action it adds is one of the registration's: run after an instance is made,
/// at most once for each instance, not again at every `resolve` that hands the same instance out.
@Suite(.capturedLog) struct BehaviorsAddingInitCompletedToAsyncRegistrationsTests {
    @Test func anInitCompletedActionRunsAtMostOnceForOneAsyncInstance() async throws {
        let completions = Completions()
        let container = Container()
        container.addBehavior(CompletingBehavior(completions))
        container.registerAsync(Archive.self) { _ in Archive() }
        let resolver = container.synchronize()
        let built = try await resolver.resolveAsync(Archive.self)

        #expect(resolver.resolve(Archive.self) === built)
        #expect(resolver.resolve(Archive.self) === built)
        #expect(resolver.resolve(Archive.self) === built)

        let runsOnBuilt = completions.objects.filter { $0 == ObjectIdentifier(built) }.count
        #expect(runsOnBuilt <= 1, "the action ran \(runsOnBuilt) times on one instance")
    }

    /// An async registration has no `initCompleted`: an action given to it is not run, and the log
    /// says so, naming the service and where that work belongs.
    @Test func anInitCompletedActionGivenToAnAsyncRegistrationIsNotRunAndIsLogged() async throws {
        let log = LogCapture()
        let completions = Completions()
        let container = Container()
        container.addBehavior(CompletingBehavior(completions))
        container.registerAsync(Journal.self) { _ in Journal() }
        let built = try await container.synchronize().resolveAsync(Journal.self)
        _ = container.resolve(Journal.self)

        #expect(!completions.objects.contains(ObjectIdentifier(built)))
        #expect(
            log.messages(
                mentioning: "initCompleted on Journal, an async service, is not run: do that work in its async factory"
            )
            .count == 1)
    }
}
