import Testing

@testable import Graft

/// A behavior that does nothing with what it is told.
private struct IgnoringBehavior: Behavior {
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {}
}

/// Every kind of registration (`register`, `registerMain`, `registerAsync`, `forward`,
/// `implements`) obeys the same rules for views, the unbound placeholder, replacement and reset.
@Suite struct RegistrationGateTests {
    final class Dep {}
    final class Other {}
    @MainActor final class Model {
        let serial: Int
        init(serial: Int) { self.serial = serial }
    }

    @Test func everyKindOfRegistrationOnTheUnboundPlaceholderStopsWithAMessage() async throws {
        let kinds: [(String, String)] = [
            ("register", "register(Dep.self)"),
            ("registerMain", "registerMain(Model.self)"),
            ("registerAsync", "registerAsync(String.self)"),
            ("forward", "forward(Other.self)"),
            ("child", "Container(parent: SynchronizedResolver.current)"),
            ("addBehavior", "addBehavior on SynchronizedResolver.current"),
        ]
        for (kind, expected) in kinds {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [kind = kind as String] in
                let current = SynchronizedResolver.current
                switch kind {
                case "register": current.register(Dep.self) { _ in Dep() }
                case "registerMain": current.registerMain(Model.self) { _ in Model(serial: 0) }
                case "registerAsync": current.registerAsync(String.self) { _ in "" }
                case "forward":
                    let entry = Container().register(Dep.self) { _ in Dep() }
                    current.forward(Other.self, to: entry)
                case "addBehavior": current.addBehavior(IgnoringBehavior())
                default: _ = Container(parent: current)
                }
            }
            let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(stderr.contains(expected), "\(kind)")
            #expect(stderr.contains("no resolver bound"), "\(kind)")
        }
    }

    @Test func aChildOfABoundResolverJoinsItsHierarchy() {
        let app = Container()
        app.register(Dep.self) { _ in Dep() }.inObjectScope(.container)
        withResolver(app.synchronize()) {
            let child = Container(parent: SynchronizedResolver.current)
            #expect(child.resolve(Dep.self) === app.resolve(Dep.self))
        }
    }

    @MainActor @Test func resettingAChildOfAViewResetsTheParentsMainActorSingletons() {
        let parent = Container()
        var made = 0
        parent.registerMain(Model.self) { _ in
            made += 1
            return Model(serial: made)
        }.inObjectScope(.container)
        let child = Container(parent: parent.synchronize())
        let first = child.resolveMain(Model.self)
        #expect(first?.serial == 1)
        child.resetObjectScope(.container)
        #expect(child.resolveMain(Model.self)?.serial == 2)
        #expect(parent.resolveMain(Model.self)?.serial == 2)
    }

    @MainActor @Test func registeringAMainActorServiceAgainReplacesTheRegistration() {
        let container = Container()
        weak var firstInstance: Model?
        do {
            container.registerMain(Model.self) { _ in Model(serial: 0) }.inObjectScope(.container)
            firstInstance = container.resolveMain(Model.self)
            #expect(firstInstance != nil)
        }
        for serial in 1...1_000 {
            container.registerMain(Model.self) { _ in Model(serial: serial) }.inObjectScope(.container)
        }
        #expect(firstInstance == nil)  // the replaced registration's singleton is released
        #expect(container.services.registrations.count == 1)
        #expect(container.resolveMain(Model.self)?.serial == 1_000)
        withResolver(container.synchronize()) {
            withOverrides({ _ in }) {
                let copy = SynchronizedResolver.current
                #expect(copy.resolveMain(Model.self)?.serial == 1_000)
                #expect(copy.viewed?.services.registrations.count == 1)
            }
        }
    }

    @MainActor @Test func namedMainActorRegistrationsAreKeptApart() {
        let container = Container()
        container.registerMain(Model.self, name: "a") { _ in Model(serial: 1) }
        container.registerMain(Model.self, name: "b") { _ in Model(serial: 2) }
        container.registerMain(Model.self, name: "a") { _ in Model(serial: 3) }
        #expect(container.services.registrations.count == 2)
        #expect(container.resolveMain(Model.self, name: "a")?.serial == 3)
        #expect(container.resolveMain(Model.self, name: "b")?.serial == 2)
    }

    @Test func registeringAgainInALiveChildKeepsOneRecordPerRegistration() {
        let parent = Container()
        let child = Container(parent: parent)
        for _ in 0..<20_000 {
            child.register(Dep.self) { _ in Dep() }
        }
        child.register(Dep.self, name: "other") { _ in Dep() }
        #expect(parent.hierarchy.childRegistrationRecordCount == 2)
        child.removeAll()
        #expect(parent.hierarchy.childRegistrationRecordCount == 0)
    }
}
