import Foundation
import Graft
import MallocCounter

// The start-up part is the same code as SwinjectStartUp.swift, compiled against Graft: keep the two in step.
/// Graft's start-up at scale, and the layers added since the first benchmarks, each next to the
/// plain path it wraps.
extension GraftWorkloads {
    struct HundredServices: Assembly {
        let names: [String]
        func assemble(container: Container) {
            for name in names { container.register(Service.self, name: name) { _ in Service() } }
        }
    }

    /// One operation: 10,000 registrations through 100 assemblies, then each resolved once.
    static func startUp() -> Workload {
        func run() -> Int {
            let assembler = ContainerAssembler(startUpNames.map(HundredServices.init))
            let resolver = assembler.resolver
            var resolved = 0
            for names in startUpNames {
                for name in names where resolver.resolve(Service.self, name: name) != nil { resolved += 1 }
            }
            return resolved
        }
        return Workload(
            check: { try require(run() == 10_000, "Graft: start-up resolved fewer than 10,000") },
            run: { count in for _ in 0..<count { BlackHole.consume(run() as AnyObject) } }
        )
    }

    /// Heap bytes in use per registration of the start-up container, kept alive.
    static func startUpBytesPerRegistration() -> Double {
        let before = heapInUse()
        let assembler = ContainerAssembler(startUpNames.map(HundredServices.init))
        let after = heapInUse()
        withExtendedLifetime(assembler) {}
        return Double(after - before) / 10_000
    }

    /// Each layer, as (layer, plain path): both resolve a `.container` singleton, or both register
    /// 1,000 services through an assembler (the main-actor and async layers:
    /// GraftMainActorAndAsync.swift).
    static func layers() -> [(name: String, layer: Workload, plain: Workload)] {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let singleton = container.resolve(Singleton.self)!
        let view = container.synchronize()
        final class Holder { @Injected var singleton: Singleton }
        /// What `@Injected` replaces: an object that resolves its dependency when made.
        final class PlainHolder {
            let singleton: Singleton
            init(_ resolver: SynchronizedResolver) { singleton = resolver.resolve(Singleton.self)! }
        }
        let held = withResolver(view) { Holder() }
        _ = held.singleton

        let throughView = resolving("Graft", { view.resolve(Singleton.self) }) { $0 === singleton }
        let plain = resolving("Graft", { container.resolve(Singleton.self) }) { $0 === singleton }
        return [
            (
                "resolve through SynchronizedResolver.current (bound by withResolver)",
                Workload(
                    check: {
                        try withResolver(view) {
                            try require(SynchronizedResolver.current.resolve(Singleton.self) === singleton, "current")
                        }
                    },
                    run: { count in
                        withResolver(view) {
                            for _ in 0..<count {
                                BlackHole.consume(SynchronizedResolver.current.resolve(Singleton.self))
                            }
                        }
                    }),
                throughView
            ),
            (
                "@Injected: object made, then first access (plain: object made resolving in init)",
                Workload(
                    check: { try require(withResolver(view) { Holder() }.singleton === singleton, "@Injected") },
                    run: { count in
                        withResolver(view) {
                            for _ in 0..<count { BlackHole.consume(Holder().singleton) }
                        }
                    }),
                Workload(
                    check: { try require(PlainHolder(view).singleton === singleton, "plain holder") },
                    run: { count in for _ in 0..<count { BlackHole.consume(PlainHolder(view).singleton) } })
            ),
            (
                "@Injected, later access",
                Workload(
                    check: { try require(held.singleton === singleton, "@Injected later") },
                    run: { count in for _ in 0..<count { BlackHole.consume(held.singleton) } }),
                throughView
            ),
            (
                "transient with one transient dependency (plain: two transient resolves)",
                {
                    let withDependency = GraftWorkloads.container()
                    withDependency.register(N8.self) { _ in N8() }.inObjectScope(.transient)
                    withDependency.register(N4.self) { r in N4(r.resolve(N8.self)!) }.inObjectScope(.transient)
                    return resolving("Graft") { withDependency.resolve(N4.self) }
                }(),
                {
                    let plainTransient = GraftWorkloads.container()
                    plainTransient.register(N8.self) { _ in N8() }.inObjectScope(.transient)
                    return Workload(
                        check: { try require(plainTransient.resolve(N8.self) != nil, "two transients") },
                        run: { count in
                            for _ in 0..<count {
                                BlackHole.consume(plainTransient.resolve(N8.self))
                                BlackHole.consume(plainTransient.resolve(N8.self))
                            }
                        })
                }()
            ),
            (
                "require on a hit (plain container)",
                Workload(
                    check: { try require((try? container.require(Singleton.self)) === singleton, "require") },
                    run: { count in for _ in 0..<count { BlackHole.consume(try? container.require(Singleton.self)) } }),
                plain
            ),
            (
                "10-node graph, factories use require (plain: resolve(...)!)",
                {
                    let requiring = GraftWorkloads.container()
                    registerGraphRequiring(requiring)
                    return resolving("Graft", { try? requiring.require(Root.self) }, check: isConsistent)
                }(),
                graph()
            ),
            (
                "resolveAsync of a built singleton",
                asyncWorkload(view: view, singleton: singleton),
                throughView
            ),
            ("resolveMain of a built main-actor singleton", mainActorSingleton(), plain),
            {
                let (layer, plain) = collectionOfTransients()
                return ("resolveAll of 3 transients (plain: 3 named resolves)", layer, plain)
            }(),
            {
                let (layer, plain) = collectionSharingAGraph()
                return ("resolveAll of 3 sharing a graph dependency (plain: 3 resolves in one graph)", layer, plain)
            }(),
            ("register (1,000 directly on a container)", directRegistration(), registration()),
            ("registerMain (1,000 via assembler)", mainActorRegistration(), registration()),
            ("registerAsync (1,000 via assembler)", asyncRegistration(), registration()),
        ]
    }

    private static func asyncWorkload(view: SynchronizedResolver, singleton: Singleton) -> Workload {
        let built = view.registerAsync(Shared.self) { _ in Shared() }
        _ = built
        func run(_ count: Int) -> Bool {
            let done = DispatchSemaphore(value: 0)
            let ok = LockedFlag()
            Task {
                var all = true
                for _ in 0..<count {
                    let value = try? await view.resolveAsync(Shared.self)
                    all = all && value != nil
                    BlackHole.consumeFromAnyThread(value)
                }
                ok.value = all
                done.signal()
            }
            done.wait()
            return ok.value
        }
        return Workload(
            check: { try require(run(2), "resolveAsync") },
            run: { count in _ = run(count) })
    }
}

/// A flag handed between threads.
final class LockedFlag: @unchecked Sendable {  // `stored` is only touched under `lock`
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Bytes the allocator has handed out and not taken back.
func heapInUse() -> Int {
    Int(graft_heap_bytes_in_use())
}
