// Graft — MIT License.
import NIOHTTP1

/// One request to send, and what answer it expects.
struct PlannedRequest: Sendable {
    /// What the request does, with what a documented answer is.
    enum Kind: Sendable {
        /// A read of something that exists: 200.
        case read
        /// A read of an id that does not exist: 404.
        case missing
        /// `POST /orders`: 201 (the order), 409 (the account cannot pay) or 503 (not started).
        case order(accountID: Int, productID: Int, quantity: Int)
        /// `POST /accounts`: 201 (the account) or 503 (not started).
        case account(email: String, balanceCents: Int)
    }

    var method: HTTPMethod
    var path: String
    /// The JSON body of a write.
    var body: String?
    var kind: Kind

    var isWrite: Bool {
        switch kind {
        case .read, .missing: false
        case .order, .account: true
        }
    }

    /// The line recorded in unanswered.txt when this write is sent and never answered.
    var unansweredRecord: String? {
        switch kind {
        case .read, .missing: nil
        case .order(let accountID, let productID, let quantity): "order \(accountID) \(productID) \(quantity)"
        case .account(let email, _): "account \(email)"
        }
    }
}

/// The sequence of requests one connection sends: drawn from its own pseudo-random generator, so
/// that a seed gives the same sequence every run.
struct RequestMix {
    enum Kind: String, Sendable {
        /// 25% orders (half of them on four hot accounts that soon cannot pay), 5% new accounts,
        /// 70% reads, 2% of them of ids that do not exist.
        case writes
        /// Reads only: 45% accounts, 45% orders, 10% the catalog.
        case reads
        /// Orders only, of 1 to 5 items, on accounts 1 to 1000.
        case orders
    }

    /// The seeded rows (Schema in the server).
    static let accounts = 1_000
    static let products = 20
    static let orders = 10_000
    static let hotAccounts = 4
    static let missingID = 999_999_999
    static let newAccountBalance = 500_000

    private let kind: Kind
    private let connection: Int
    private let runID: String
    private var random: SplitMix64
    private var accountsOpened = 0

    init(kind: Kind, seed: UInt64, connection: Int, runID: String) {
        self.kind = kind
        self.connection = connection
        self.runID = runID
        random = SplitMix64(seed: seed ^ (UInt64(connection) &* 0xD1B5_4A32_D192_ED03))
    }

    mutating func next() -> PlannedRequest {
        switch kind {
        case .writes: nextOfWrites()
        case .reads: nextOfReads()
        case .orders: order(hot: false)
        }
    }

    /// Per mille: 125 hot orders, 125 orders, 50 new accounts, 300 accounts, 290 orders, 50 the
    /// catalog, 20 the daily report, 20 the weekly one, 20 missing ids.
    private mutating func nextOfWrites() -> PlannedRequest {
        let pick = random.below(1_000)
        switch pick {
        case ..<125: return order(hot: true)
        case ..<250: return order(hot: false)
        case ..<300: return newAccount()
        case ..<600: return get("/accounts/\(random.inRange(1...Self.accounts))")
        case ..<890: return get("/orders/\(random.inRange(1...Self.orders))")
        case ..<940: return get("/products")
        case ..<960: return get("/reports/daily")
        case ..<980: return get("/reports/weekly")
        case ..<990: return get("/accounts/\(Self.missingID)", kind: .missing)
        default: return get("/orders/\(Self.missingID)", kind: .missing)
        }
    }

    private mutating func nextOfReads() -> PlannedRequest {
        let pick = random.below(100)
        switch pick {
        case ..<45: return get("/accounts/\(random.inRange(1...Self.accounts))")
        case ..<90: return get("/orders/\(random.inRange(1...Self.orders))")
        default: return get("/products")
        }
    }

    private func get(_ path: String, kind: PlannedRequest.Kind = .read) -> PlannedRequest {
        PlannedRequest(method: .GET, path: path, body: nil, kind: kind)
    }

    /// An order on a hot account (1 to 4) of 20 to 100 items, or on any account of 1 to 5.
    private mutating func order(hot: Bool) -> PlannedRequest {
        let accountID = hot ? random.inRange(1...Self.hotAccounts) : random.inRange(1...Self.accounts)
        let productID = random.inRange(1...Self.products)
        let quantity = hot ? random.inRange(20...100) : random.inRange(1...5)
        return PlannedRequest(
            method: .POST, path: "/orders",
            body: #"{"accountID":\#(accountID),"productID":\#(productID),"quantity":\#(quantity)}"#,
            kind: .order(accountID: accountID, productID: productID, quantity: quantity))
    }

    private mutating func newAccount() -> PlannedRequest {
        accountsOpened += 1
        let email = "load-\(runID)-\(connection)-\(accountsOpened)@example.com"
        let balance = Self.newAccountBalance
        return PlannedRequest(
            method: .POST, path: "/accounts",
            body: #"{"name":"Load \#(connection)-\#(accountsOpened)","email":"\#(email)","balanceCents":\#(balance)}"#,
            kind: .account(email: email, balanceCents: balance))
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound (the modulo's bias is negligible for these small bounds).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    mutating func inRange(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }
}
