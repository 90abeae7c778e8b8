// Graft — MIT License.
import Graft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `wiring-cost` command: what a request spends getting its services, through Graft and by
/// hand, with nothing else around it (no HTTP, no database: the services are made and dropped).
///
/// Each scenario is what one request of a feature does before its handler runs: Graft binds the
/// feature's synchronized view (`withResolver`) and resolves the service (`@Injected`, or
/// `require` with the report's definition); the hand-wired server calls the constructors. Both
/// wirings are built as the servers build them. Per round, one repetition of each wiring, timed;
/// the figures are medians over the rounds. Synchronous, so that `valgrind --tool=callgrind` can
/// count its instructions: `WIRING_COST_ONLY=<scenario>/<wiring>` runs that loop alone, once.
/// (The server binds the view with the async `withResolver`; this uses the synchronous one.)
package enum WiringCost {
    package static func main(arguments: [String]) {
        let operations = arguments.first.flatMap { Int($0) } ?? 200_000
        let rounds = 15
        // The pools are never opened: nothing here touches the database.
        let options: Options
        do {
            options = try Options(arguments: ["--database", "/nonexistent/wiring-cost.sqlite"])
        } catch {
            preconditionFailure("wiring-cost: \(error)")
        }
        let graft = GraftServer(options: options)
        let graftServices: GraftServices
        do {
            graftServices = try graft.services()
        } catch {
            preconditionFailure("wiring-cost: \(error)")
        }
        let hand = HandWiredServer(options: options).services
        let accounts = graft.accounts.synchronize()
        let orders = graft.orders.synchronize()
        let reports = graft.reports.synchronize()
        guard let definition = graftServices.config.reports["weekly"] else {
            preconditionFailure("wiring-cost: no weekly report")
        }

        let scenarios: [(name: String, graft: () -> AnyObject, hand: () -> AnyObject)] = [
            ("accounts", { withResolver(accounts) { graftServices.accounts() } }, { hand.accounts() }),
            ("orders", { withResolver(orders) { graftServices.orders() } }, { hand.orders() }),
            (
                "reports", { withResolver(reports) { try! graftServices.report(definition) } },
                { try! hand.report(definition) }
            ),
        ]

        if let only = getenv("WIRING_COST_ONLY").map({ String(cString: $0) }) {
            for scenario in scenarios {
                if only == "\(scenario.name)/graft" { _ = repeatOperation(operations, scenario.graft) }
                if only == "\(scenario.name)/hand" { _ = repeatOperation(operations, scenario.hand) }
            }
            return
        }

        print("What a request spends getting its services (\(operations) operations x \(rounds) rounds, medians)")
        print("scenario    Graft ns   hand ns   difference ns")
        for scenario in scenarios {
            var graftTimes: [Double] = []
            var handTimes: [Double] = []
            for _ in 0..<rounds {
                graftTimes.append(repeatOperation(operations, scenario.graft))
                handTimes.append(repeatOperation(operations, scenario.hand))
            }
            let graftMedian = median(graftTimes)
            let handMedian = median(handTimes)
            print(
                pad(scenario.name, 10), pad(format(graftMedian), 10), pad(format(handMedian), 9),
                pad(format(graftMedian - handMedian), 15))
        }
    }

    /// Runs `operation` `count` times; returns nanoseconds per operation.
    private static func repeatOperation(_ count: Int, _ operation: () -> AnyObject) -> Double {
        var kept = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<count {
                // Kept from being optimized away: a bit of each instance's address.
                kept &+= Int(bitPattern: UInt(bitPattern: ObjectIdentifier(operation()).hashValue)) & 1
            }
        }
        precondition(kept >= 0)
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(count)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    private static func format(_ value: Double) -> String {
        let tenths = Int((abs(value) * 10).rounded())
        return (value < 0 ? "-" : "") + "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
