// Graft — MIT License.

// Changes to a plain container from several threads while others resolve through its view and
// read a shared registration's settings: every change takes the hierarchy's mutex, a registration
// made atomically (or by an assembler) is never seen without its settings, and the public getters
// of an entry read under the same mutex its settings are changed under.

import Glibc
import Graft
import Synchronization

/// A `.container` service re-registered while threads resolve it: `ready` is set by its
/// `initCompleted`, which must have run before any thread sees it.
final class Reloaded: Sendable {
    let ready = Atomic<Bool>(false)
}

/// A service whose registration's settings threads change and read.
final class Tuned: Sendable {}

/// Assembles one `Reloaded` with its settings, as a feature module applied late would.
struct ReloadAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Reloaded.self) { _ in Reloaded() }
            .inObjectScope(.container)
            .initCompleted { _, reloaded in reloaded.ready.store(true, ordering: .relaxed) }
    }
}

func stressChanges(threads: Int, iterations: Int) {
    let root = Container()
    ReloadAssembly().assemble(container: root)
    let tuned = root.register(Tuned.self) { _ in Tuned() }
    let view = root.synchronize()
    // Shared on purpose: every change takes the hierarchy's mutex, and only the view resolves.
    nonisolated(unsafe) let plain = root
    nonisolated(unsafe) let entry = tuned
    onThreads(threads) { index in
        if index % 2 == 0 {
            for round in 0..<iterations {
                let named = plain.register(Int.self, name: "thread-\(index)") { _ in round }
                plain.forward(Int.self, name: "forwarded-\(index)", to: named)
                switch round % 4 {
                case 0: plain.registerAtomically { ReloadAssembly().assemble(container: $0) }
                case 1: ContainerAssembler(container: plain).apply(assembly: ReloadAssembly())
                case 2: entry.inObjectScope(round % 8 == 2 ? .container : .transient)
                default: plain.resetObjectScope(.container, serviceType: Reloaded.self)
                }
                let child = Container(parent: plain)
                child.register(Int.self) { _ in round }
                child.removeAll()
            }
        } else {
            for _ in 0..<iterations {
                let reloaded = view.resolve(Reloaded.self)
                check(reloaded?.ready.load(ordering: .relaxed) == true, "a Reloaded seen before its initCompleted ran")
                check(view.resolve(Tuned.self) != nil, "Tuned not resolved while its scope changes")
                // Every writer's two names, once registered: a collection never misses a registered
                // element nor lists one twice while the table changes.
                let all = view.resolveAll(Int.self)
                check(
                    all != nil && all!.count <= 2 * ((threads + 1) / 2),
                    "a collection of Int read as \(String(describing: all))")
                let scope = entry.objectScope
                check(
                    scope === ObjectScope.container || scope === ObjectScope.transient || scope === ObjectScope.graph,
                    "Tuned's scope read as \(scope)")
                check(entry.argumentsType == (any Resolver).self, "Tuned's arguments type read wrong")
                check(entry.name == nil && entry.serviceType == Tuned.self, "Tuned's name or type read wrong")
            }
        }
    }
    for index in stride(from: 0, to: threads, by: 2) {
        check(view.resolve(Int.self, name: "thread-\(index)") == iterations - 1, "thread \(index)'s last registration")
        check(view.resolve(Int.self, name: "forwarded-\(index)") == iterations - 1, "thread \(index)'s last forward")
    }
}
