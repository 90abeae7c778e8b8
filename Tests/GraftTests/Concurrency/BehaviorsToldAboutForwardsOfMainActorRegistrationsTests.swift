import Foundation
import Testing

@testable import Graft

private protocol Surface: AnyObject {}
@MainActor private final class Easel: Surface {}

/// Sets the scope of every registration it is told about, as an application's "everything is a
/// singleton" behavior does.
private final class SingletonBehavior: Behavior {
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        entry.inObjectScope(.container)
    }
}

/// A behavior told about a type forwarded to a main-actor registration is told about that
/// registration (what `registerMain` returned), as it is for `registerMain` itself: whatever it
/// configures, the forwarded type answers only through the thread check.
@Suite struct BehaviorsToldAboutForwardsOfMainActorRegistrationsTests {
    @MainActor @Test(arguments: [false, true])
    func aForwardedMainActorServiceIsNotHandedToAnotherThread(byImplements: Bool) async {
        let container = Container()
        container.addBehavior(SingletonBehavior())
        let entry = container.registerMain(Easel.self) { _ in Easel() }
        if byImplements {
            entry.implements(Surface.self)
        } else {
            container.forward(Surface.self, to: entry)
        }
        let onMain = container.resolve(Surface.self)
        #expect(onMain != nil)
        let resolver = container.synchronize()

        let handed = await onNewThread { HandedBack(resolver.resolve(Surface.self)) }

        #expect(handed.object == nil, "a main-actor instance was handed to another thread")
    }

    @MainActor @Test func theBehaviorIsToldAboutTheRegistrationNotItsGate() {
        final class Recording: Behavior {
            var told: [AnyObject] = []
            func container<Type, Service>(
                _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
                withName name: String?
            ) { told.append(entry) }
        }
        let recording = Recording()
        let container = Container()
        container.addBehavior(recording)
        let entry = container.registerMain(Easel.self) { _ in Easel() }
        container.forward(Surface.self, to: entry)

        let registration = ObjectIdentifier(entry)
        let told = recording.told.map { ObjectIdentifier($0) }
        #expect(told.count == 2)
        #expect(told.allSatisfy { $0 == registration }, "a behavior was handed the gate")
    }
}
