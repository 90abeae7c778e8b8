import Foundation
import Testing

@testable import Graft

/// A child container released on one thread while another thread, in a synchronized call, reaches
/// it through something that outlives it (a `Lazy`, a `Provider`, a registration's `implements`).
/// The release's `deinit` has begun and waits for the hierarchy's mutex, which the reader holds:
/// the reader must treat the child as released, never hand out a reference to it (a factory or a
/// behavior could keep one past the `deinit`, and the process would then read freed memory).
@Suite struct ContainerReleasedDuringASynchronizedCallTests {
    final class Keeper: Kept, @unchecked Sendable {
        // Set once, in init.
        let resolver: Resolver
        init(resolver: Resolver) { self.resolver = resolver }
    }
    protocol Kept {}
    final class Trigger {}

    /// What the two threads share; each field is written before the dropping thread starts, or
    /// by that thread alone (`child`), or is read through the runtime's atomic weak load (`dying`).
    final class Scene: @unchecked Sendable {
        var child: Container?
        weak var dying: Container?
        var lazy: Lazy<Keeper>?
        var provider: Provider<Keeper>?
        var entry: ServiceEntry<Keeper>?
        /// The container the behavior was handed when `Kept` was forwarded.
        var handedToBehavior: Container?
        let drop = DispatchSemaphore(value: 0)
        let dropped = DispatchSemaphore(value: 0)
    }

    /// Builds a root with a synchronized child that registers `Keeper`, lets `prepare` take what it
    /// reaches the child through, then drops the child on another thread while a factory of the
    /// root holds the mutex, and runs `read` there once the child's `deinit` has begun.
    static func readWhileTheChildsDeinitWaits(
        prepare: (Scene, Container) -> Void, read: @escaping @Sendable (Scene) -> Void
    ) {
        let root = Container()
        let rootView = root.synchronize()
        let scene = Scene()
        do {
            let child = Container(parent: rootView, behaviors: [KeepsTheContainer(scene: scene)])
            let childView = child.synchronize()
            scene.entry = childView.register(Keeper.self) { r in Keeper(resolver: r) }
            prepare(scene, childView)
            scene.child = child
            scene.dying = child
        }
        let thread = Thread {
            scene.drop.wait()
            scene.child = nil  // the last reference: the child's deinit begins, then waits for the mutex
            scene.dropped.signal()
        }
        thread.start()
        rootView.register(Trigger.self) { _ in
            scene.drop.signal()
            // The weak reference reads nil once the child's deinit has begun; bounded by count.
            var spins = 0
            while scene.dying != nil && spins < 100_000_000 {
                spins += 1
                sched_yield()
            }
            precondition(scene.dying == nil, "the other thread never released the child")
            read(scene)
            return Trigger()
        }
        _ = rootView.resolve(Trigger.self)
        scene.dropped.wait()
    }

    @Test func aLazyReadThenStopsAsReleased() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ContainerReleasedDuringASynchronizedCallTests.readWhileTheChildsDeinitWaits(
                prepare: { scene, view in scene.lazy = view.resolve(Lazy<Keeper>.self) },
                read: { scene in _ = scene.lazy?.instance })
            exit(0)  // reached only if the read handed out the released child
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("Lazy<Keeper> was accessed after its container was released"), "\(stderr.suffix(2000))")
    }

    @Test func aProviderReadThenStopsAsReleased() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ContainerReleasedDuringASynchronizedCallTests.readWhileTheChildsDeinitWaits(
                prepare: { scene, view in scene.provider = view.resolve(Provider<Keeper>.self) },
                read: { scene in _ = scene.provider?.instance })
            exit(0)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.contains("Provider<Keeper> was accessed after its container was released"), "\(stderr.suffix(2000))")
    }

    /// `implements` on a registration whose container is being released does nothing (as after
    /// the release), so no behavior is handed the container to keep; the process goes on.
    @Test func implementsThenDoesNothing() async {
        await #expect(processExitsWith: .success) {
            ContainerReleasedDuringASynchronizedCallTests.readWhileTheChildsDeinitWaits(
                prepare: { _, _ in },
                read: { scene in
                    scene.entry?.implements(Kept.self)
                    precondition(scene.handedToBehavior == nil, "a behavior was handed the released container")
                })
        }
    }

    /// Keeps the container it is told a forward of `Kept` was made in.
    struct KeepsTheContainer: Behavior {
        let scene: Scene
        func container<Type, Service>(
            _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            if type == Kept.self { scene.handedToBehavior = container }
        }
    }
}
