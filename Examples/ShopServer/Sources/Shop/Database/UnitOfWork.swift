// Graft — MIT License.
import SQLiteNIO
import Synchronization

/// The database work of one request. The repositories of a request share it, so that work they do
/// inside ``transaction(_:)`` runs on the transaction's connection and commits or rolls back as one.
final class UnitOfWork: Sendable {
    private let pool: DatabasePool
    /// The connection of the open transaction, if any.
    private let open = Mutex<SQLiteConnection?>(nil)

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body` on the open transaction's connection, or on a connection of the pool.
    func run<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        if let connection = open.withLock({ $0 }) { return try await body(connection) }
        return try await pool.withConnection(body)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await pool.withConnection { connection in
            _ = try await connection.query("BEGIN IMMEDIATE")
            open.withLock { $0 = connection }
            defer { open.withLock { $0 = nil } }
            do {
                let result = try await body()
                _ = try await connection.query("COMMIT")
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }
}
