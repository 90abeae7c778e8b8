// Graft — MIT License.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a connection's requests came to: answers by status, errors, latencies, and the records of
/// the writes. Each connection keeps its own; the run merges them at the end.
struct Tally: Sendable {
    /// Requests sent (answered or not).
    private(set) var requests = 0
    private(set) var writes = 0
    private(set) var answersByStatus: [Int: Int] = [:]
    /// Answers the server's contract does not allow for the request (wrong status, wrong body).
    private(set) var unexpected = 0
    /// Requests with no answer within the timeout.
    private(set) var timeouts = 0
    /// Connections that failed to open, or closed with a request in flight.
    private(set) var socketErrors = 0
    /// Microseconds from sending each answered request to the end of its answer.
    private(set) var latencies: [UInt32] = []
    /// orders.txt: `id account product quantity total` per order made.
    private(set) var orderRecords: [String] = []
    /// accounts.txt: `id email balance` per account opened.
    private(set) var accountRecords: [String] = []
    /// unanswered.txt: `order account product quantity` or `account email` per write sent and never
    /// answered; it may or may not have been made.
    private(set) var unansweredRecords: [String] = []
    /// The first unexpected answers and errors, described.
    private(set) var samples: [String] = []
    private let sampleLimit: Int

    init(sampleLimit: Int) {
        self.sampleLimit = sampleLimit
    }

    var errors: Int { unexpected + timeouts + socketErrors }

    mutating func sent(_ request: PlannedRequest) {
        requests += 1
        if request.isWrite { writes += 1 }
    }

    /// Counts an answer, checks it against what `request` expects, and records a write it made.
    mutating func answered(_ request: PlannedRequest, status: Int, body: [UInt8], microseconds: UInt32) {
        answersByStatus[status, default: 0] += 1
        latencies.append(microseconds)
        if !expect(request, status: status, body: body) {
            unexpected += 1
            let text = String(decoding: body.prefix(300), as: UTF8.self)
            sample("\(request.method) \(request.path) -> \(status) \(text)")
        }
    }

    /// `request` got no answer in time.
    mutating func timedOut(_ request: PlannedRequest) {
        timeouts += 1
        unanswered(request)
        sample("\(request.method) \(request.path): no answer within the timeout")
    }

    /// The connection failed while `request` (if any) waited for its answer, or could not open.
    mutating func lostConnection(_ request: PlannedRequest?, error: String) {
        socketErrors += 1
        if let request {
            unanswered(request)
            sample("\(request.method) \(request.path): the connection failed: \(error)")
        } else {
            sample("connecting failed: \(error)")
        }
    }

    mutating func merge(_ other: Tally) {
        requests += other.requests
        writes += other.writes
        answersByStatus.merge(other.answersByStatus, uniquingKeysWith: +)
        unexpected += other.unexpected
        timeouts += other.timeouts
        socketErrors += other.socketErrors
        latencies += other.latencies
        orderRecords += other.orderRecords
        accountRecords += other.accountRecords
        unansweredRecords += other.unansweredRecords
        samples += other.samples.prefix(max(0, sampleLimit - samples.count))
    }

    /// The line load-test.sh reads: every count, and latency percentiles over the answers.
    func resultLine(durationMicroseconds: Int64) -> String {
        let sorted = latencies.sorted()
        func percentile(_ p: Int) -> UInt32 { sorted.isEmpty ? 0 : sorted[(sorted.count - 1) * p / 100] }
        let documented: Set = [200, 201, 404, 409, 503]
        let other = answersByStatus.filter { !documented.contains($0.key) }.values.reduce(0, +)
        let fields: [(String, Any)] = [
            ("requests", requests), ("duration_us", durationMicroseconds), ("errors", errors),
            ("timeouts", timeouts), ("socket", socketErrors), ("unexpected", unexpected), ("writes", writes),
            ("unanswered", unansweredRecords.count), ("s200", answersByStatus[200, default: 0]),
            ("s201", answersByStatus[201, default: 0]), ("s404", answersByStatus[404, default: 0]),
            ("s409", answersByStatus[409, default: 0]), ("s503", answersByStatus[503, default: 0]),
            ("other", other), ("orders", orderRecords.count), ("accounts", accountRecords.count),
            ("p50_us", percentile(50)), ("p99_us", percentile(99)),
        ]
        return "RESULT " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    private mutating func unanswered(_ request: PlannedRequest) {
        if let record = request.unansweredRecord { unansweredRecords.append(record) }
    }

    private mutating func sample(_ text: String) {
        if samples.count < sampleLimit { samples.append(text) }
    }

    /// Whether `status` and `body` are an answer the contract allows for `request`; records what a
    /// write made.
    private mutating func expect(_ request: PlannedRequest, status: Int, body: [UInt8]) -> Bool {
        switch request.kind {
        case .read:
            return status == 200
        case .missing:
            return status == 404
        case .order(let accountID, let productID, let quantity):
            switch status {
            case 201:
                guard let order = try? JSONDecoder().decode(OrderBody.self, from: Data(body)),
                    order.accountID == accountID, order.productID == productID, order.quantity == quantity
                else { return false }
                orderRecords.append("\(order.id) \(accountID) \(productID) \(quantity) \(order.totalCents)")
                return true
            case 409: return String(decoding: body, as: UTF8.self).contains("cannot pay")
            case 503: return true
            default: return false
            }
        case .account(let email, let balanceCents):
            switch status {
            case 201:
                guard let account = try? JSONDecoder().decode(AccountBody.self, from: Data(body)),
                    account.email == email, account.balanceCents == balanceCents
                else { return false }
                accountRecords.append("\(account.id) \(email) \(balanceCents)")
                return true
            case 503: return true
            default: return false
            }
        }
    }
}

/// The fields of a `201` order the records need.
private struct OrderBody: Decodable {
    var id: Int
    var accountID: Int
    var productID: Int
    var quantity: Int
    var totalCents: Int
    var createdAt: Int
}

/// The fields of a `201` account the records need.
private struct AccountBody: Decodable {
    var id: Int
    var name: String
    var email: String
    var balanceCents: Int
}
