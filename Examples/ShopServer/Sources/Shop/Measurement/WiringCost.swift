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
/// the figures are medians over the rounds. Twice: with warm caches (the operations back to back),
/// and with cold ones (8 MB written over before each operation, which is then timed on its own, as
/// in a server, where a request's own work evicts what the wiring touched). Synchronous, so that
/// `valgrind --tool=callgrind` can count its instructions: `WIRING_COST_ONLY=<scenario>/<wiring>`
/// runs that loop alone, once, warm.
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
        guard let definition = graftServices.config.reports["weekly"] else {
            preconditionFailure("wiring-cost: no weekly report")
        }

        let scenarios: [(name: String, graft: () -> AnyObject, hand: () -> AnyObject)] = [
            ("accounts", { graftServices.accounts() }, { hand.accounts() }),
            ("orders", { graftServices.orders() }, { hand.orders() }),
            ("reports", { try! graftServices.report(definition) }, { try! hand.report(definition) }),
        ]

        if let only = getenv("WIRING_COST_ONLY").map({ String(cString: $0) }) {
            for scenario in scenarios {
                if only == "\(scenario.name)/graft" { _ = repeatOperation(operations, evicting: nil, scenario.graft) }
                if only == "\(scenario.name)/hand" { _ = repeatOperation(operations, evicting: nil, scenario.hand) }
            }
            return
        }

        let coldOperations = max(1, operations / 400)
        let evicted = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 8 << 20 / 8)
        evicted.initialize(repeating: 0)
        defer { evicted.deallocate() }
        for (caches, count, buffer) in [("warm", operations, nil), ("cold", coldOperations, evicted)] {
            print(
                "What a request spends getting its services, \(caches) caches "
                    + "(\(count) operations x \(rounds) rounds, medians)")
            print("scenario    Graft ns   hand ns   difference ns")
            for scenario in scenarios {
                var graftTimes: [Double] = []
                var handTimes: [Double] = []
                for _ in 0..<rounds {
                    graftTimes.append(repeatOperation(count, evicting: buffer, scenario.graft))
                    handTimes.append(repeatOperation(count, evicting: buffer, scenario.hand))
                }
                let graftMedian = median(graftTimes)
                let handMedian = median(handTimes)
                print(
                    pad(scenario.name, 10), pad(format(graftMedian), 10), pad(format(handMedian), 9),
                    pad(format(graftMedian - handMedian), 15))
            }
        }
    }

    /// Runs `operation` `count` times; returns nanoseconds per operation. With a buffer to evict
    /// the caches with, writes a word of each of its cache lines before each operation, and times
    /// each operation on its own (the clock's own cost is in both wirings' figures alike).
    private static func repeatOperation(
        _ count: Int, evicting buffer: UnsafeMutableBufferPointer<UInt64>?, _ operation: () -> AnyObject
    ) -> Double {
        var kept = 0
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        if let buffer {
            for _ in 0..<count {
                for line in stride(from: 0, to: buffer.count, by: 8) { buffer[line] &+= 1 }
                let start = clock.now
                kept &+= keepable(operation())
                elapsed += clock.now - start
            }
        } else {
            elapsed = clock.measure {
                for _ in 0..<count { kept &+= keepable(operation()) }
            }
        }
        precondition(kept >= 0)
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(count)
    }

    /// A bit of the instance's address: keeps the optimizer from dropping the work that made it.
    private static func keepable(_ instance: AnyObject) -> Int {
        Int(bitPattern: UInt(bitPattern: ObjectIdentifier(instance).hashValue)) & 1
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
