import Graft
import GraftTesting
import Testing

private struct SampleOrder { let id: Int }
private final class SampleLedger {}
private final class SampleOrderHandler {
    let order: SampleOrder
    let ledger: SampleLedger
    init(order: SampleOrder, ledger: SampleLedger) { (self.order, self.ledger) = (order, ledger) }
}
private final class NightlyJob {
    let kind: String
    init(kind: String, retries: Int) { self.kind = kind }
}
private final class SampleMailer {}
private struct Refused: Error {}

/// Counts factory calls and keeps the last order a factory saw.
private final class Seen { var orders: [Int] = [] }

@Suite(.capturedLog) struct ValidationSampleTests {
    @Test func aRegistrationWithArgumentsIsTriedWithItsSampleAndItsGraphChecked() {
        let container = Container()
        let seen = Seen()
        container.register(SampleOrderHandler.self) { (r, order: SampleOrder) in
            seen.orders.append(order.id)
            return SampleOrderHandler(order: order, ledger: r.resolve(SampleLedger.self)!)
        }
        container.register(SampleLedger.self) { _ in SampleLedger() }
        let report = container.validate(samples: [
            ValidationSample(SampleOrderHandler.self, argument: SampleOrder(id: 7))
        ])
        #expect(report.isValid, "\(report)")
        #expect(report.skipped.isEmpty, "\(report)")
        #expect(seen.orders == [7])
        let handler = report.graph.nodes.first { $0.serviceType == "SampleOrderHandler" }
        #expect(
            report.graph.edges.contains { $0.from == handler?.id && $0.requested == "SampleLedger" }, "\(report.graph)")
    }

    @Test func aFailureBelowASampledRegistrationIsReportedWithItsPath() {
        let container = Container()
        container.register(NightlyJob.self, name: "nightly") { (r, kind: String, retries: Int) in
            _ = try r.require(SampleMailer.self)
            return NightlyJob(kind: kind, retries: retries)
        }
        let report = container.validate(samples: [
            ValidationSample(NightlyJob.self, name: "nightly", arguments: "reports", 3)
        ])
        #expect(!report.isValid)
        let failure = report.failures.first
        #expect(failure?.path == ["NightlyJob (name: \"nightly\")", "SampleMailer"], "\(report)")
    }

    @Test func withoutASampleTheRegistrationIsSkippedAndTheLineSaysHowToGiveOne() {
        let container = Container()
        container.register(SampleOrderHandler.self) { (_, order: SampleOrder) in
            SampleOrderHandler(order: order, ledger: SampleLedger())
        }
        let report = container.validate()
        #expect(report.skipped.count == 1)
        #expect(report.skipped.first?.contains("arguments: SampleOrder") == true)
        #expect(report.skipped.first?.contains("ValidationSample") == true, "\(report)")
        #expect(report.isValid)
    }

    @Test func aSampleThatMatchesNoRegistrationIsAFailure() {
        let container = Container()
        container.register(SampleOrderHandler.self) { (_, order: SampleOrder) in
            SampleOrderHandler(order: order, ledger: SampleLedger())
        }
        let report = container.validate(samples: [
            ValidationSample(SampleOrderHandler.self, argument: 7),  // the registration takes an SampleOrder
            ValidationSample(SampleOrderHandler.self, name: "other", argument: SampleOrder(id: 1)),
        ])
        #expect(report.failures.count == 2, "\(report)")
        #expect(report.failures.allSatisfy { $0.description.contains("matches no registration") }, "\(report)")
        #expect(report.skipped.count == 1)
    }

    @Test func everySampleOfARegistrationIsTriedAndNothingIsKept() throws {
        let container = Container()
        let seen = Seen()
        container.register(SampleOrderHandler.self) { (r, order: SampleOrder) in
            seen.orders.append(order.id)
            if order.id < 0 { throw Refused() }
            return SampleOrderHandler(order: order, ledger: r.resolve(SampleLedger.self)!)
        }.inObjectScope(.container)
        container.register(SampleLedger.self) { _ in SampleLedger() }.inObjectScope(.container)
        let ledger = try #require(container.resolve(SampleLedger.self))
        let report = container.validate(samples: [
            ValidationSample(SampleOrderHandler.self, argument: SampleOrder(id: 1)),
            ValidationSample(SampleOrderHandler.self, argument: SampleOrder(id: -1)),
        ])
        #expect(seen.orders == [1, -1])
        #expect(report.failures.count == 1, "\(report)")
        // The validation kept no singleton: the first resolution after it makes one with its own argument.
        #expect(container.resolve(SampleOrderHandler.self, argument: SampleOrder(id: 2))?.order.id == 2)
        #expect(container.resolve(SampleLedger.self) === ledger)
    }
}
