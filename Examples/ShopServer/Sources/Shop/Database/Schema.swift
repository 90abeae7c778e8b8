// Graft — MIT License.
import SQLiteNIO

/// The tables, and the rows a new database starts with (what the load test asks for).
enum Schema {
    static let accountCount = 1_000
    static let productCount = 20
    static let orderCount = 10_000

    /// Creates what is missing (tables, the day's totals and the trigger keeping them), seeds an
    /// empty database, all in one write transaction: a database the server cannot write to fails
    /// here, at start-up. Returns whether it seeded.
    static func prepare(_ pool: DatabasePool) async throws -> Bool {
        try await pool.withWriteConnection { db in
            try await db.beginWriting()
            do {
                let hadTotals = try await !db.query(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'daily_totals'"
                ).isEmpty
                for statement in tables { _ = try await db.query(statement) }
                let existing = try await db.query("SELECT COUNT(*) AS n FROM accounts").first?.column("n")?.integer ?? 0
                if existing == 0 {
                    for statement in seed { _ = try await db.query(statement) }
                } else if !hadTotals {
                    // A database made before the totals were kept: count its orders once.
                    _ = try await db.query(backfillTotals)
                }
                _ = try await db.query("COMMIT")
                return existing == 0
            } catch {
                _ = try? await db.query("ROLLBACK")
                throw error
            }
        }
    }

    private static let tables = [
        """
        CREATE TABLE IF NOT EXISTS accounts (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
            balance_cents INTEGER NOT NULL CHECK (balance_cents >= 0))
        """,
        """
        CREATE TABLE IF NOT EXISTS products (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS orders (
            id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts (id),
            product_id INTEGER NOT NULL REFERENCES products (id), quantity INTEGER NOT NULL,
            total_cents INTEGER NOT NULL, created_at INTEGER NOT NULL DEFAULT (unixepoch()))
        """,
        "CREATE INDEX IF NOT EXISTS orders_by_time ON orders (created_at)",
        // An email is taken whatever its case: ACCOUNT1@example.com is account1@example.com.
        "CREATE UNIQUE INDEX IF NOT EXISTS accounts_by_email ON accounts (email COLLATE NOCASE)",
        // Orders and revenue per day (UTC), kept by the trigger below in the transaction that records
        // the order, so a report reads a row per day however many orders the day holds.
        """
        CREATE TABLE IF NOT EXISTS daily_totals (
            day INTEGER PRIMARY KEY, orders INTEGER NOT NULL, revenue_cents INTEGER NOT NULL)
        """,
        """
        CREATE TRIGGER IF NOT EXISTS orders_count_in_daily_totals AFTER INSERT ON orders BEGIN
            INSERT INTO daily_totals (day, orders, revenue_cents) VALUES (NEW.created_at / 86400, 1, NEW.total_cents)
            ON CONFLICT (day) DO UPDATE SET
                orders = orders + 1, revenue_cents = revenue_cents + excluded.revenue_cents;
        END
        """,
    ]

    private static let backfillTotals = """
        INSERT INTO daily_totals (day, orders, revenue_cents)
        SELECT created_at / 86400, COUNT(*), SUM(total_cents) FROM orders WHERE true GROUP BY created_at / 86400
        ON CONFLICT (day) DO NOTHING
        """

    private static let seed = [
        """
        INSERT INTO accounts (id, name, email, balance_cents)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(accountCount))
        SELECT i, 'Account ' || i, 'account' || i || '@example.com', 10000000 FROM n
        """,
        """
        INSERT INTO products (id, name, price_cents)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(productCount))
        SELECT i, 'Product ' || i, 100 + (i * 379) % 5000 FROM n
        """,
        """
        INSERT INTO orders (id, account_id, product_id, quantity, total_cents, created_at)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(orderCount))
        SELECT i, 1 + i % \(accountCount), 1 + i % \(productCount), 1 + i % 5,
               (1 + i % 5) * (SELECT price_cents FROM products WHERE id = 1 + i % \(productCount)),
               unixepoch() - (i % 30) * 86400
        FROM n
        """,
    ]
}

extension SQLiteRow {
    /// The integer in `column`, or a decoding error naming it.
    func int(_ column: String) throws -> Int {
        guard let value = self.column(column)?.integer else { throw RowDecodingError(column: column) }
        return value
    }

    /// The text in `column`, or a decoding error naming it.
    func text(_ column: String) throws -> String {
        guard let value = self.column(column)?.string else { throw RowDecodingError(column: column) }
        return value
    }
}

/// A row without the column a query selected.
struct RowDecodingError: Error, CustomStringConvertible {
    var column: String
    var description: String { "the row has no value in column \(column)" }
}
