import Graft
import Testing

private final class UPLedger {}
private final class UPReport {
    let ledger: UPLedger?
    init(_ ledger: UPLedger?) { self.ledger = ledger }
}
private struct UPLedgerUnavailable: Error {}
private final class UPProbe {}
private final class UPResolvingInDeinit {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// What `Container.printsUnhandledFailures` writes to standard error when no logging function is
/// set: a failure that reached the request the application started, and nothing else. Each case
/// runs in a process of its own, whose standard error is read.
@Suite struct UnhandledFailurePrintingTests {
    /// What the process printed after `body` ran with the setting on and no logging function.
    private static func printed(_ shape: Shape) async throws -> String {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [shape = shape as Shape] in
            Container.loggingFunction = nil
            Container.printsUnhandledFailures = shape != .turnedOff
            let container = Container()
            container.register(UPLedger.self) { (_: Resolver) throws -> UPLedger in throw UPLedgerUnavailable() }
            container.register(UPReport.self) { r in UPReport(r.resolve(UPLedger.self)) }
            container.register(UPReport.self, name: "cycle") { r in UPReport(r.resolve(UPLedger.self, name: "cycle")) }
            container.register(UPLedger.self, name: "cycle") { r in
                _ = r.resolve(UPReport.self, name: "cycle")
                return UPLedger()
            }
            switch shape {
            case .factoryThrew, .turnedOff: _ = container.resolve(UPLedger.self)
            case .cycle: _ = container.resolve(UPReport.self, name: "cycle")
            case .cycleWhoseDroppedInstanceResolves:
                // The instance the failed request drops resolves in its `deinit`, inside that request.
                let scope = ObjectScope(storageFactory: PermanentStorage.init)
                container.register(UPProbe.self) { _ in UPProbe() }
                container.register(UPResolvingInDeinit.self) { [unowned container] r in
                    let made = UPResolvingInDeinit { _ = container.resolve(UPProbe.self) }
                    _ = r.resolve(UPResolvingInDeinit.self)
                    return made
                }.inObjectScope(scope)
                _ = container.resolve(UPResolvingInDeinit.self)
            case .notRegistered: _ = container.resolve(UPReport.self, name: "missing")
            case .handledByAFactory: _ = container.resolve(UPReport.self)
            case .thrownByRequire: _ = try? container.require(UPLedger.self)
            }
        }
        return String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    }

    enum Shape: CaseIterable, Sendable, Codable {
        case factoryThrew, cycle, cycleWhoseDroppedInstanceResolves, notRegistered, handledByAFactory, thrownByRequire
        case turnedOff
    }

    @Test func aFactoryThatThrewIsPrinted() async throws {
        let printed = try await Self.printed(.factoryThrew)
        #expect(printed.contains("the factory of UPLedger threw UPLedgerUnavailable()"))
        #expect(printed.contains("Container.printsUnhandledFailures = false"))
    }

    @Test(arguments: [Shape.cycle, .cycleWhoseDroppedInstanceResolves])
    func aCycleIsPrintedOnce(_ shape: Shape) async throws {
        let printed = try await Self.printed(shape)
        #expect(printed.contains("circular dependency"))
        #expect(printed.components(separatedBy: "circular dependency").count == 2)
    }

    /// A missing registration, a failure a factory handled, and one `require` throws are not
    /// printed; nor anything with the setting off.
    @Test(arguments: [Shape.notRegistered, .handledByAFactory, .thrownByRequire, .turnedOff])
    func nothingElseIsPrinted(_ shape: Shape) async throws {
        #expect(try await Self.printed(shape).isEmpty)
    }

    /// On by default in debug builds of Graft, off in release builds.
    @Test func theDefaultFollowsTheBuild() async {
        await #expect(processExitsWith: .success) {
            #if DEBUG
                let expected = true
            #else
                let expected = false
            #endif
            if Container.printsUnhandledFailures != expected { fatalError("wrong default") }
        }
    }
}
