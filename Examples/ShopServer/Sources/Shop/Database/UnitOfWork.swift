// Graft — MIT License.
import SQLiteNIO
import Synchronization

/// The database work of one request. The repositories of a request share it, so that work they do
/// inside ``transaction(_:)`` runs on the transaction's connection and commits or rolls back as one.
///
/// Every statement goes through ``read(_:)`` or ``write(_:)``; a write outside a transaction opens
/// one of its own, so no write reaches SQLite without the pool's writer's turn.
final class UnitOfWork: Sendable {
    private let pool: DatabasePool
    /// The connection of the open transaction, if any.
    private let open = Mutex<SQLiteConnection?>(nil)

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body`, which only reads, on the open transaction's connection or on one of the pool.
    func read<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        if let connection = open.withLock({ $0 }) { return try await body(connection) }
        return try await pool.withConnection(body)
    }

    /// Runs `body`, which writes, in the open transaction, or in a transaction of its own.
    func write<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        if let connection = open.withLock({ $0 }) { return try await body(connection) }
        return try await transaction { try await write(body) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Throws
    /// ``DatabaseBusy`` before anything began when the writer's turn did not come in time.
    func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await pool.withWriteConnection { connection in
            try await connection.beginWriting()
            open.withLock { $0 = connection }
            defer { open.withLock { $0 = nil } }
            do {
                let result = try await body()
                _ = try await connection.query("COMMIT")
                return result
            } catch {
                do {
                    _ = try await connection.query("ROLLBACK")
                } catch let rollbackError {
                    throw UnusableConnection(error: error, rollbackError: rollbackError)
                }
                throw error
            }
        }
    }
}

extension SQLiteConnection {
    /// `BEGIN IMMEDIATE`: takes SQLite's write lock, or throws ``DatabaseBusy`` (nothing began)
    /// when another process held it past `busy_timeout`.
    func beginWriting() async throws {
        do {
            _ = try await query("BEGIN IMMEDIATE")
        } catch let error as SQLiteError where error.reason == .busy || error.reason == .busyTimeout {
            throw DatabaseBusy(waited: DatabasePool.busyTimeout)
        }
    }
}
