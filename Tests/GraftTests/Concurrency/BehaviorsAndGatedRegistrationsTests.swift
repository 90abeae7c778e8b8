import Foundation
import Testing

@testable import Graft

@MainActor private final class GatedCanvas {}
private final class GatedVault: Sendable {}

/// Copies the container it is told about (as a test trait's `withOverrides` would) and keeps the
/// copy's resolver, and optionally configures the registration.
private final class CopyingBehavior: Behavior {
    var copies: [SynchronizedResolver] = []
    let configure: (AnyObject) -> Void

    init(configure: @escaping (AnyObject) -> Void = { _ in }) { self.configure = configure }

    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        withResolver(container.synchronize()) {
            withOverrides({ _ in }) { copies.append(SynchronizedResolver.current) }
        }
        configure(entry)
    }
}

/// A behavior is application code: it sees a main-actor or async registration only once it is
/// finished, so copying the container then copies the registration (its own instances, its own
/// thread check), and configuring it configures the registration, never its gate.
@Suite struct BehaviorsAndGatedRegistrationsTests {
    @MainActor @Test func aCopyMadeByABehaviorKeepsItsOwnMainActorInstances() throws {
        let behavior = CopyingBehavior()
        let container = Container(defaultObjectScope: .container)
        container.addBehavior(behavior)
        container.registerMain(GatedCanvas.self) { _ in GatedCanvas() }
        let copy = try #require(behavior.copies.last)

        let outer = container.resolve(GatedCanvas.self)
        let inner = copy.resolve(GatedCanvas.self)
        #expect(outer != nil)
        #expect(inner != nil)
        #expect(inner !== outer, "the copy reached the original container's singleton")
        #expect(copy.resolve(GatedCanvas.self) === inner)  // the copy keeps its own singleton
    }

    @MainActor @Test func aBehaviorSettingAScopeSetsTheMainActorRegistrations() async {
        let behavior = CopyingBehavior { entry in (entry as? ServiceEntry<GatedCanvas>)?.inObjectScope(.container) }
        let container = Container()
        container.addBehavior(behavior)
        container.registerMain(GatedCanvas.self) { _ in GatedCanvas() }

        let one = container.resolve(GatedCanvas.self)
        #expect(one != nil)
        #expect(container.resolve(GatedCanvas.self) === one)  // the scope the behavior set
        let resolver = container.synchronize()
        let handed = await onNewThread { HandedBack(resolver.resolve(GatedCanvas.self)) }
        #expect(handed.object == nil, "a main-actor singleton was handed to another thread")
    }

    @Test func aCustomScopeGivenToAnAsyncRegistrationStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Scoping: Behavior {
                func container<Type, Service>(
                    _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
                    withName name: String?
                ) { entry.inObjectScope(CustomScope()) }
            }
            final class CustomScope: ObjectScopeProtocol {
                func makeStorage() -> InstanceStorage { PermanentStorage() }
            }
            let container = Container()
            container.addBehavior(Scoping())
            container.registerAsync(GatedVault.self) { _ in GatedVault() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("GatedVault is an async service, in the .container or the .transient scope"))
    }

    @Test func aCopyMadeByABehaviorDoesNotSeeTheOriginalsAsyncInstance() async throws {
        let behavior = CopyingBehavior()
        let container = Container()
        container.addBehavior(behavior)
        container.registerAsync(GatedVault.self) { _ in GatedVault() }
        let copy = try #require(behavior.copies.last)

        let built = try await container.synchronize().resolveAsync(GatedVault.self)
        #expect(container.resolve(GatedVault.self) === built)
        #expect(copy.resolve(GatedVault.self) == nil, "the copy answered with the original's instance")
        #expect(try await copy.resolveAsync(GatedVault.self) !== built)
    }
}
