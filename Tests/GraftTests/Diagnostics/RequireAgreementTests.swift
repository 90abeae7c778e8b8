import Testing

@testable import Graft

private struct Breakdown: Error {}
private final class Breaking {}
private final class SelfNeeding {
    init(_: SelfNeeding?) {}
}
private final class Piece {}
private final class Fixture {}

private func attempt<T>(_ body: () throws(ResolutionError) -> T) -> Result<T, ResolutionError> {
    do { return .success(try body()) } catch { return .failure(error) }
}

/// `require` hands no failure away unreported, and a `Provider` read in a factory whose request
/// failed does not stop the process.
@Suite struct RequireAgreementTests {
    /// `resolve(Breaking?.self)` logs the factory's error (a registered service that fails is not a
    /// "maybe"); `require(Breaking?.self)` neither throws nor logs it.
    @Test(arguments: [false, true])
    func requireOfAnOptionalOfAFailingServiceReportsTheFailure(throughView: Bool) {
        let log = LogCapture()
        let container = Container()
        container.register(Breaking.self) { _ in throw Breakdown() }
        let r: Container = throughView ? container.synchronize() : container
        let beforeResolve = log.messages(mentioning: "Breaking").count
        _ = r.resolve(Breaking?.self)
        #expect(log.messages(mentioning: "Breaking").count > beforeResolve)  // the control: logged
        let beforeRequire = log.messages(mentioning: "Breaking").count
        let result = attempt { () throws(ResolutionError) in try r.require(Breaking?.self) }
        let logged = log.messages(mentioning: "Breaking").count - beforeRequire
        switch result {
        case .failure(let error): #expect("\(error.reason)" == "factory failed: Breakdown()")
        case .success(let value):
            #expect(value == nil)
            #expect(logged > 0, "require(Breaking?.self): nil, the error neither thrown nor logged")
        }
    }

    /// The same for a constructor cycle.
    @Test(arguments: [false, true])
    func requireOfAnOptionalOfACycleReportsTheCycle(throughView: Bool) {
        let log = LogCapture()
        let container = Container()
        container.register(SelfNeeding.self) { r in SelfNeeding(try? r.require(SelfNeeding.self)) }
        let r: Container = throughView ? container.synchronize() : container
        let beforeResolve = log.messages(mentioning: "SelfNeeding").count
        _ = r.resolve(SelfNeeding?.self)
        #expect(log.messages(mentioning: "SelfNeeding").count > beforeResolve)  // the control: logged
        let beforeRequire = log.messages(mentioning: "SelfNeeding").count
        let result = attempt { () throws(ResolutionError) in try r.require(SelfNeeding?.self) }
        let logged = log.messages(mentioning: "SelfNeeding").count - beforeRequire
        switch result {
        case .failure(let error): #expect("\(error.reason)" == "circular dependency")
        case .success(let value):
            #expect(value == nil)
            #expect(logged > 0, "require(SelfNeeding?.self): nil, the cycle neither thrown nor logged")
        }
    }

    /// A `Provider` made in the factory and read after its request failed stops the process, with
    /// the enclosing request's failure as the reason.
    @Test func providerReadInAFactoryWhoseRequestFailedDoesNotStop() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            container.register(Piece.self) { _ in Piece() }
            container.register(Breaking.self) { _ in throw Breakdown() }
            container.register(Fixture.self) { r in
                let maker = r.resolve(Provider<Piece>.self)!
                _ = r.resolve(Breaking.self)  // fails the request
                _ = maker.instance
                return Fixture()
            }
            _ = container.resolve(Fixture.self)
        }
    }
}
