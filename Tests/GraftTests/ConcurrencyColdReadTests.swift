import Foundation
import Testing

@testable import Graft

private final class Probe {}
private final class Settings4 {}
private final class Consumer4 {
    let settings: Settings4
    init(settings: Settings4) { self.settings = settings }
}
private struct Refusal: Error {}
private final class Environment4 { @Injected var settings: Settings4 }
private final class InjectedSingleton { @Injected var settings: Settings4 }

// Found by a cold read of the diagnostics and concurrency layers, each reproduced first.
@Suite struct ConcurrencyColdReadTests {
    /// A failure message listed the registrations of every container of the hierarchy by reading
    /// their tables, while another thread was filling a new child container's table (a heap
    /// buffer overflow under AddressSanitizer). Child registrations are now copied to the
    /// hierarchy, under its mutex, when they are made.
    @Test func failureMessageWhileAChildIsFilledOnAnotherThread() {
        let view = Container().synchronize()
        let done = DispatchGroup()
        done.enter()
        Thread {
            for _ in 0..<300 {
                let feature = Container(parent: view) { child in
                    for index in 0..<40 { child.register(Probe.self, name: "n\(index)") { _ in Probe() } }
                }
                withExtendedLifetime(feature) {}
            }
            done.leave()
        }.start()
        let misses = LockedCount()
        done.enter()
        Thread {
            for _ in 0..<3_000 where (try? view.require(Probe.self)) == nil { misses.increment() }
            done.leave()
        }.start()
        done.wait()
        #expect(misses.value == 3_000)
    }

    /// `validate()` inside an open graph shared it with the enclosing resolution.
    @Test func validateDuringAResolutionStopsWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Settings4.self) { _ in Settings4() }.inObjectScope(.container)
            let view = container.synchronize()
            view.withObjectGraph(GraphIdentifier()) { _ in _ = view.validate() }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("validate() called during a resolution"))
    }

    /// An `@Injected` or a `Lazy` first read during `validate()` kept the validation's instance.
    @Test func cachesFilledDuringValidationKeepNothing() {
        let container = Container()
        let view = container.synchronize()
        let environment = withResolver(view) { Environment4() }
        container.register(Settings4.self) { _ in Settings4() }.inObjectScope(.container)
        let lazy = view.resolve(Lazy<Settings4>.self)!
        container.register(Consumer4.self) { _ in
            _ = lazy.instance
            return Consumer4(settings: environment.settings)
        }
        #expect(view.validate().isValid)
        let singleton = view.resolve(Settings4.self)!
        #expect(environment.settings === singleton)
        #expect(lazy.instance === singleton)
    }

    /// An `@Injected` first read in a factory whose request then failed kept the singleton the
    /// rollback dropped: two instances of a `.container` service.
    @Test func injectedReadInAFailingFactoryKeepsNoRolledBackSingleton() {
        let container = Container()
        let view = container.synchronize()
        let environment = withResolver(view) { Environment4() }
        container.register(Settings4.self) { _ in Settings4() }.inObjectScope(.container)
        container.register(Probe.self) { _ throws -> Probe in
            _ = environment.settings
            throw Refusal()
        }
        #expect(view.resolve(Probe.self) == nil)
        #expect(environment.settings === view.resolve(Settings4.self)!)
    }

    /// A `.container` singleton holding an `@Injected` kept its own container alive (container,
    /// entry, singleton, wrapper, resolver). Once read, the wrapper lets go of the resolver.
    @Test func singletonWithAnInjectedPropertyDoesNotKeepItsContainerAlive() {
        weak var weakContainer: Container?
        weak var weakSingleton: InjectedSingleton?
        do {
            let container = Container()
            container.register(Settings4.self) { _ in Settings4() }
            container.register(InjectedSingleton.self) { _ in InjectedSingleton() }.inObjectScope(.container)
            weakContainer = container
            withResolver(container.synchronize()) {
                let singleton = SynchronizedResolver.current.resolve(InjectedSingleton.self)!
                _ = singleton.settings
                weakSingleton = singleton
            }
        }
        #expect(weakContainer == nil)
        #expect(weakSingleton == nil)
    }
}

private final class LockedCount: @unchecked Sendable {  // `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
