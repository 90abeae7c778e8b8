import Testing

@testable import Graft

/// `resolveAsync` reads a built service straight from the key's slot: the slot's direct cell
/// proves the entry is the key's own `ServiceEntry<Service>` and its registration an
/// `AsyncServiceEntry<Service>` (two unchecked downcasts). These tests change the key while that
/// read could see it, from the places user code runs: the deinit of a built instance that a
/// replacement or `removeAll` drops, a factory, and another thread.
@Suite struct AsyncBuiltInstanceReadTests {
    final class Service: Sendable {
        let serial: Int
        let onDeinit: @Sendable () -> Void
        init(serial: Int, onDeinit: @escaping @Sendable () -> Void = {}) {
            self.serial = serial
            self.onDeinit = onDeinit
        }
        deinit { onDeinit() }
    }

    /// A built instance whose deinit, run while `registerAsync` replaces its registration,
    /// registers the key again and reads it: the read answers for the registration in the table.
    @Test func aDeinitThatRegistersTheKeyAgainDuringAReplacement() async throws {
        let container = Container()
        let view = container.synchronize()
        view.registerAsync(Service.self) { r in
            Service(serial: 1) {
                // Runs inside the replacing registerAsync, on its thread, holding the mutex.
                r.registerAsync(Service.self) { _ in Service(serial: 3) }
                #expect(r.resolve(Service.self) == nil)  // registered, not built yet
            }
        }
        #expect(try await view.resolveAsync(Service.self).serial == 1)
        view.registerAsync(Service.self) { _ in Service(serial: 2) }
        // The deinit's registration came last.
        #expect(try await view.resolveAsync(Service.self).serial == 3)
        #expect(try await view.resolveAsync(Service.self).serial == 3)
        #expect(view.resolve(Service.self)?.serial == 3)
    }

    /// A built instance whose deinit, run by `removeAll`, resolves the key: nothing is registered.
    @Test func aDeinitThatResolvesTheKeyDuringRemoveAll() async throws {
        let container = Container()
        let view = container.synchronize()
        let sawNothing = Flag()
        view.registerAsync(Service.self) { r in
            Service(serial: 1) { sawNothing.set(r.resolve(Service.self) == nil) }
        }
        _ = try await view.resolveAsync(Service.self)
        view.removeAll()
        #expect(sawNothing.value)
        await #expect(throws: ResolutionError.self) { try await view.resolveAsync(Service.self) }
    }

    /// A factory that replaces its own key with a plain registration: the build's instance is not
    /// read as the plain registration's, and `resolveAsync` then refuses the plain one.
    @Test func aFactoryThatReplacesItsKeyWithAPlainRegistration() async throws {
        let container = Container()
        let view = container.synchronize()
        view.registerAsync(Service.self) { r in
            r.register(Service.self) { _ in Service(serial: 2) }.inObjectScope(.container)
            return Service(serial: 1)
        }
        #expect(try await view.resolveAsync(Service.self).serial == 1)
        #expect(view.resolve(Service.self)?.serial == 2)
        await #expect(throws: ResolutionError.self) { try await view.resolveAsync(Service.self) }
    }

    /// A forward of the key to its own registration under another name keeps the direct cell:
    /// replacing the registration under its own name leaves the alias reading the old one.
    @Test func anAliasKeepsReadingItsRegistrationAfterTheKeyIsReplaced() async throws {
        let aliasing = Flag()
        aliasing.set(true)
        let container = Container(behaviors: [AliasesService(enabled: aliasing)])
        let view = container.synchronize()
        view.registerAsync(Service.self) { _ in Service(serial: 1) }
        let first = try await view.resolveAsync(Service.self)
        #expect(try await view.resolveAsync(Service.self, name: "alias") === first)
        aliasing.set(false)
        view.registerAsync(Service.self) { _ in Service(serial: 2) }
        #expect(try await view.resolveAsync(Service.self).serial == 2)
        #expect(try await view.resolveAsync(Service.self, name: "alias") === first)
    }

    /// Tasks reading the key while another thread replaces it, removes everything and registers it
    /// again, with deinits that register it too: every answer is an instance one of the
    /// registrations built, or a `ResolutionError` while nothing is registered. Bounded by count.
    @Test func readsRacingReplacementsAndRemovals() async throws {
        let container = Container()
        let view = container.synchronize()
        let register: @Sendable (Int) -> Void = { serial in
            view.registerAsync(Service.self) { r in
                Service(serial: serial) {
                    if serial % 3 == 0 { r.registerAsync(Service.self) { _ in Service(serial: -serial) } }
                }
            }
        }
        register(0)
        let rounds = 10_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 1...rounds {
                    if round % 7 == 0 { view.removeAll() } else { register(round) }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<rounds {
                        do {
                            let service = try await view.resolveAsync(Service.self)
                            #expect(abs(service.serial) <= rounds)
                        } catch is ResolutionError {
                            // Nothing registered at that moment.
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        register(rounds + 1)
        #expect(try await view.resolveAsync(Service.self).serial == rounds + 1)
    }

    /// An optional service whose factory returned `nil` is built: the `nil` is the instance, read
    /// by both `resolveAsync` and `resolve`, and the factory does not run again.
    @Test func anOptionalServiceBuiltAsNilIsBuiltOnce() async throws {
        let container = Container()
        let view = container.synchronize()
        let builds = LockedBox<Int>()
        view.registerAsync(Int?.self) { _ in
            builds.value = (builds.value ?? 0) + 1
            return nil
        }
        #expect(try await view.resolveAsync(Int?.self) == .some(nil))
        #expect(try await view.resolveAsync(Int?.self) == .some(nil))
        #expect(view.resolve(Int?.self) == .some(nil))
        #expect(builds.value == 1)
        #expect(container.registrations.first { $0.serviceType == Int?.self }?.instanceCount == 1)
    }
}

private final class Flag: @unchecked Sendable {
    // Set and read on the test's thread, or under the container's mutex.
    private(set) var value = false
    func set(_ newValue: Bool) { value = newValue }
}

/// Forwards the unnamed registration of `Service` to itself under "alias", while enabled.
private struct AliasesService: Behavior {
    let enabled: Flag
    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        if enabled.value, name == nil, type == AsyncBuiltInstanceReadTests.Service.self {
            entry.implements(Service.self, name: "alias")
        }
    }
}
