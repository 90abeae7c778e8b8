import Foundation
import Testing

@testable import Graft

/// Runs `body` on a thread with a `stackSize`-byte stack and waits for it.
private func onThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
}

/// Long chains of dependencies: 200 custom-scoped levels resolve, and a chain with arguments fits
/// the thread stack Swinject's fits.
@Suite struct ResolutionDepthTests {
    @Test func twoHundredCustomScopedLevelsResolve() {
        let container = Container()
        let permanent = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")
        let levels = 200
        for level in 0..<levels {
            container.register(Holder.self, name: "\(level)") { r in
                let holder = Holder()
                if level + 1 < levels { holder.other = r.resolve(Holder.self, name: "\(level + 1)") }
                return holder
            }.inObjectScope(permanent)
        }
        let top = container.resolve(Holder.self, name: "0")
        var depth = 0
        var node = top
        while let current = node {
            depth += 1
            node = current.other
        }
        #expect(depth == levels)
    }

    /// A debug build keeps every frame; Swinject fits 150 levels with arguments in 512 KB, and so
    /// must Graft: closures, cold paths and forwarding frames stay off the recursion.
    @Test(arguments: [false, true])
    func deepChainWithArgumentsFitsASmallThreadStack(synchronized: Bool) {
        let container = Container()
        let levels = 150
        for level in 0..<levels {
            container.register(Holder.self, name: "\(level)") { (r, depth: Int) in
                let holder = Holder()
                if level + 1 < levels {
                    holder.other = r.resolve(Holder.self, name: "\(level + 1)", argument: depth + 1)
                }
                return holder
            }
        }
        let reached = LockedFlag()
        let resolver = UncheckedBox<Resolver>(synchronized ? container.synchronize() : container)
        onThread(stackSize: 512 * 1024) {
            var node = resolver.value.resolve(Holder.self, name: "0", argument: 0)
            var depth = 0
            while let current = node {
                depth += 1
                node = current.other
            }
            if depth == levels { reached.set() }
        }
        #expect(reached.value)
    }
}
