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
        try await unitOfWork.run { db in
            try await db.query(
                "SELECT id, name, email, balance_cents FROM accounts WHERE id = ?", [.integer(id)]
            ).first.map(Account.init(row:))
        }
    }

    func insert(_ new: NewAccount) async throws -> Account {
        try await unitOfWork.run { db in
            let rows = try await db.query(
                """
                INSERT INTO accounts (name, email, balance_cents) VALUES (?, ?, ?)
                RETURNING id, name, email, balance_cents
                """,
                [.text(new.name), .text(new.email), .integer(new.balanceCents)])
            guard let row = rows.first else { throw RowDecodingError(column: "id") }
            return try Account(row: row)
        }
    }

    /// Takes `cents` from the account; `false` when its balance is too low.
    func debit(id: Int, cents: Int) async throws -> Bool {
        try await unitOfWork.run { db in
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
        try await unitOfWork.run { db in
            try await db.query(
                "SELECT id, account_id, product_id, quantity, total_cents, created_at FROM orders WHERE id = ?",
                [.integer(id)]
            ).first.map(Order.init(row:))
        }
    }

    func insert(accountID: Int, productID: Int, quantity: Int, totalCents: Int) async throws -> Order {
        try await unitOfWork.run { db in
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

    /// How many orders, and their total, in the last `days` days.
    func summary(days: Int) async throws -> (orders: Int, revenueCents: Int) {
        try await unitOfWork.run { db in
            let rows = try await db.query(
                """
                SELECT COUNT(*) AS orders, COALESCE(SUM(total_cents), 0) AS revenue
                FROM orders WHERE created_at >= unixepoch() - ? * 86400
                """,
                [.integer(days)])
            guard let row = rows.first else { throw RowDecodingError(column: "orders") }
            return (try row.int("orders"), try row.int("revenue"))
        }
    }
}
