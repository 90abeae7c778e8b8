// Graft — MIT License.
import SQLiteNIO

// One repository per table, each holding the request's unit of work: the same opening repeats on
// purpose, as it would in an application's own repositories.

/// Accounts in the database, read and written through the request's unit of work.
final class AccountRepository: Sendable {
    private let unitOfWork: UnitOfWork

    init(unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    func find(id: Int) async throws -> Account? {
        try await unitOfWork.read { db in
            try await db.query(
                "SELECT id, name, email, balance_cents FROM accounts WHERE id = ?", [.integer(id)]
            ).first.map(Account.init(row:))
        }
    }

    /// Adds the account; throws ``ShopError/duplicate(_:)`` when its email is taken.
    func insert(_ new: NewAccount) async throws -> Account {
        try await unitOfWork.write { db in
            let rows: [SQLiteRow]
            do {
                rows = try await db.query(
                    """
                    INSERT INTO accounts (name, email, balance_cents) VALUES (?, ?, ?)
                    RETURNING id, name, email, balance_cents
                    """,
                    [.text(new.name), .text(new.email), .integer(new.balanceCents)])
            } catch let error as SQLiteError where error.message.contains("UNIQUE constraint failed: accounts.email") {
                throw ShopError.duplicate("an account with email \(new.email) already exists")
            }
            guard let row = rows.first else { throw RowDecodingError(column: "id") }
            return try Account(row: row)
        }
    }

    /// Takes `cents` from the account; `false` when its balance is too low.
    func debit(id: Int, cents: Int) async throws -> Bool {
        try await unitOfWork.write { db in
            try await !db.query(
                """
                UPDATE accounts SET balance_cents = balance_cents - ?1 WHERE id = ?2 AND balance_cents >= ?1
                RETURNING id
                """,
                [.integer(cents), .integer(id)]
            ).isEmpty
        }
    }
}

/// Orders in the database, read and written through the request's unit of work.
final class OrderRepository: Sendable {
    private let unitOfWork: UnitOfWork

    init(unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    func find(id: Int) async throws -> Order? {
        try await unitOfWork.read { db in
            try await db.query(
                "SELECT id, account_id, product_id, quantity, total_cents, created_at FROM orders WHERE id = ?",
                [.integer(id)]
            ).first.map(Order.init(row:))
        }
    }

    /// Records the order; the day's totals follow it (a trigger, ``Schema``).
    func insert(accountID: Int, productID: Int, quantity: Int, totalCents: Int) async throws -> Order {
        try await unitOfWork.write { db in
            let rows = try await db.query(
                """
                INSERT INTO orders (account_id, product_id, quantity, total_cents) VALUES (?, ?, ?, ?)
                RETURNING id, account_id, product_id, quantity, total_cents, created_at
                """,
                [.integer(accountID), .integer(productID), .integer(quantity), .integer(totalCents)])
            guard let row = rows.first else { throw RowDecodingError(column: "id") }
            return try Order(row: row)
        }
    }

    /// How many orders, and their total, on the last `days` days (UTC), today included: read from
    /// the totals kept per day, so the cost does not grow with the number of orders.
    func summary(days: Int) async throws -> (orders: Int, revenueCents: Int) {
        try await unitOfWork.read { db in
            let rows = try await db.query(
                """
                SELECT COALESCE(SUM(orders), 0) AS orders, COALESCE(SUM(revenue_cents), 0) AS revenue
                FROM daily_totals WHERE day > unixepoch() / 86400 - ?
                """,
                [.integer(days)])
            guard let row = rows.first else { throw RowDecodingError(column: "orders") }
            return (try row.int("orders"), try row.int("revenue"))
        }
    }
}
