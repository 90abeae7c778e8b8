// Graft — MIT License.
import Logging
import Synchronization

/// The accounts feature: what its handlers call. One per request.
final class AccountService: Sendable {
    private let accounts: AccountRepository
    private let logger: Logger

    init(accounts: AccountRepository, logger: Logger) {
        self.accounts = accounts
        self.logger = logger
    }

    func account(id: Int) async throws -> Account {
        guard let account = try await accounts.find(id: id) else { throw ShopError.notFound("account \(id)") }
        return account
    }

    func open(_ new: NewAccount) async throws -> Account {
        try new.validate()
        let account = try await accounts.insert(new)
        logger.info("opened an account", metadata: ["account": "\(account.id)"])
        return account
    }
}

/// The orders feature: what its handlers call. One per request; its repositories share the
/// request's unit of work, so placing an order debits the account and records the order in one
/// transaction.
final class OrderService: Sendable {
    private let orders: OrderRepository
    private let accounts: AccountRepository
    private let unitOfWork: UnitOfWork

    init(orders: OrderRepository, accounts: AccountRepository, unitOfWork: UnitOfWork) {
        self.orders = orders
        self.accounts = accounts
        self.unitOfWork = unitOfWork
    }

    func order(id: Int) async throws -> Order {
        guard let order = try await orders.find(id: id) else { throw ShopError.notFound("order \(id)") }
        return order
    }

    func place(_ new: NewOrder, catalog: Catalog) async throws -> Order {
        guard let product = catalog.product(id: new.productID) else { throw ShopError.unknownProduct(new.productID) }
        guard (1...1_000).contains(new.quantity) else { throw ShopError.invalid("quantity must be 1 to 1000") }
        let total = product.priceCents * new.quantity
        return try await unitOfWork.transaction {
            guard try await accounts.find(id: new.accountID) != nil else {
                throw ShopError.notFound("account \(new.accountID)")
            }
            guard try await accounts.debit(id: new.accountID, cents: total) else {
                throw ShopError.insufficientFunds(accountID: new.accountID)
            }
            return try await orders.insert(
                accountID: new.accountID, productID: product.id, quantity: new.quantity, totalCents: total)
        }
    }
}

/// The reports feature: one report's figures. Made per request for the definition asked for.
final class ReportService: Sendable {
    private let definition: ReportDefinition
    private let orders: OrderRepository

    /// Throws when the definition cannot be run (a configuration error, so the server's fault).
    init(definition: ReportDefinition, orders: OrderRepository) throws {
        guard definition.windowDays >= 1 else { throw InvalidReportDefinition(definition: definition) }
        self.definition = definition
        self.orders = orders
    }

    func run() async throws -> Report {
        let summary = try await orders.summary(days: definition.windowDays)
        return Report(
            name: definition.name, windowDays: definition.windowDays, orders: summary.orders,
            revenueCents: summary.revenueCents)
    }
}

/// A report definition in the configuration that no report can be made from.
struct InvalidReportDefinition: Error, CustomStringConvertible {
    var definition: ReportDefinition
    var description: String {
        "report \(definition.name): a window of \(definition.windowDays) days; it must be at least 1"
    }
}

/// The products and their prices, read from the database once and kept for the server's life.
final class Catalog: Sendable {
    let products: [Product]
    private let byID: [Int: Product]

    init(products: [Product]) {
        self.products = products
        byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func product(id: Int) -> Product? { byID[id] }
}

/// Reads the catalog from the database, and counts how often it tried and succeeded.
final class CatalogStore: Sendable {
    private let pool: DatabasePool
    private let logger: Logger
    private let failuresLeft: Atomic<Int>
    private let attemptCount = Atomic(0)
    private let loadCount = Atomic(0)

    init(pool: DatabasePool, logger: Logger, config: AppConfig) {
        self.pool = pool
        self.logger = logger
        failuresLeft = Atomic(config.catalogLoadFailures)
    }

    /// How many loads were started, and how many succeeded.
    var counts: (attempts: Int, loads: Int) {
        (attemptCount.load(ordering: .relaxed), loadCount.load(ordering: .relaxed))
    }

    func load() async throws -> Catalog {
        attemptCount.add(1, ordering: .relaxed)
        // The fault: a load while failures are left reads a table that does not exist, and SQLite
        // answers with its own error ("no such table").
        let failing = failuresLeft.subtract(1, ordering: .relaxed).oldValue > 0
        let table = failing ? "products_unavailable" : "products"
        let products = try await pool.withConnection { db in
            try await db.query("SELECT id, name, price_cents FROM \(table) ORDER BY id").map(Product.init(row:))
        }
        loadCount.add(1, ordering: .relaxed)
        logger.info("loaded the catalog", metadata: ["products": "\(products.count)"])
        return Catalog(products: products)
    }
}
