import Foundation
import Graft

/// The registrations that isolate their services, as layers: a main-actor service resolved with
/// `resolveMain`, and 1,000 services registered with `registerMain` or `registerAsync` through an
/// assembler, each next to the plain path it stands beside (the `register` workloads).
extension GraftWorkloads {
    /// `resolveMain` of a `.container` main-actor service, already made.
    static func mainActorSingleton() -> Workload {
        let container = container()
        container.registerMain(MainModel.self) { _ in MainModel() }.inObjectScope(.container)
        // The benchmark makes and runs every workload on the main thread (main.swift's top-level
        // code calls them synchronously, and no workload hops elsewhere first), so the main actor is
        // this thread's whenever these closures run: `assumeIsolated` stops the program otherwise.
        // `container` is not `Sendable` and the compiler cannot see that it stays on this thread,
        // hence the unchecked copy.
        nonisolated(unsafe) let onMain = container
        let built = MainActor.assumeIsolated { onMain.resolveMain(MainModel.self) }
        return Workload(
            check: {
                try MainActor.assumeIsolated {
                    try require(built != nil, "Graft: resolveMain made no main-actor singleton")
                    for _ in 0..<2 {
                        try require(onMain.resolveMain(MainModel.self) === built, "Graft: another main-actor singleton")
                    }
                }
            },
            run: { count in
                MainActor.assumeIsolated {
                    for _ in 0..<count { BlackHole.consume(onMain.resolveMain(MainModel.self)) }
                }
            }
        )
    }

    /// ``ThousandServices`` registered with `registerMain`.
    struct ThousandMainServices: Assembly {
        func assemble(container: Container) {
            for name in registrationNames { container.registerMain(Service.self, name: name) { _ in Service() } }
        }
    }

    /// ``ThousandServices`` registered with `registerAsync` (the service must be `Sendable`).
    struct ThousandAsyncServices: Assembly {
        func assemble(container: Container) {
            for name in registrationNames { container.registerAsync(Shared.self, name: name) { _ in Shared() } }
        }
    }

    /// As ``registration()``: an assembler building a container of 1,000 `registerMain` registrations.
    static func mainActorRegistration() -> Workload {
        Workload(
            check: {
                let assembler = ContainerAssembler([ThousandMainServices()], container: container())
                // On the main thread, as for `mainActorSingleton()`; the resolver stays on it.
                nonisolated(unsafe) let resolver = assembler.resolver
                try MainActor.assumeIsolated {
                    for name in [registrationNames[0], registrationNames[999]] {
                        try require(
                            resolver.resolveMain(Service.self, name: name) != nil, "Graft: registerMain \(name)")
                    }
                }
            },
            run: { count in
                for _ in 0..<(count / registrationNames.count) {
                    BlackHole.consume(ContainerAssembler([ThousandMainServices()]))
                }
            }
        )
    }

    /// As ``registration()``: an assembler building a container of 1,000 `registerAsync` registrations.
    static func asyncRegistration() -> Workload {
        Workload(
            check: {
                let container = container()
                _ = ContainerAssembler([ThousandAsyncServices()], container: container)
                let view = container.synchronize()
                try require(
                    buildsAsync(view, [registrationNames[0], registrationNames[999]]), "Graft: registerAsync")
            },
            run: { count in
                for _ in 0..<(count / registrationNames.count) {
                    BlackHole.consume(ContainerAssembler([ThousandAsyncServices()]))
                }
            }
        )
    }

    /// Whether `view` builds the async service under each of `names` and then resolves it
    /// synchronously to the same instance; awaited in a task while this thread waits.
    private static func buildsAsync(_ view: SynchronizedResolver, _ names: [String]) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let ok = LockedFlag()
        Task {
            var all = true
            for name in names {
                let built = try? await view.resolveAsync(Shared.self, name: name)
                all = all && built != nil && view.resolve(Shared.self, name: name) === built
            }
            ok.value = all
            done.signal()
        }
        done.wait()
        return ok.value
    }
}
