// Graft — MIT License.
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// A fixed number of SQLite connections to one database file, opened on first use and shared by
/// every request. Made without opening anything, so it can be built (and validated) synchronously.
final class DatabasePool: Sendable {
    let path: String
    let size: Int
    private let logger: Logger
    private let threadPool: NIOThreadPool
    private let eventLoopGroup: any EventLoopGroup
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var idle: [SQLiteConnection] = []
        var opened = 0
        var waiters: [CheckedContinuation<SQLiteConnection, any Error>] = []
        var isClosed = false
    }

    private enum Lease {
        case ready(SQLiteConnection)
        case open
        case wait
        case closed
    }

    init(
        path: String, size: Int, logger: Logger,
        threadPool: NIOThreadPool = .singleton,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        precondition(size > 0, "DatabasePool: size must be at least 1")
        self.path = path
        self.size = size
        self.logger = logger
        self.threadPool = threadPool
        self.eventLoopGroup = eventLoopGroup
    }

    /// Runs `body` with a connection of its own, returned to the pool afterwards.
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection = try await lease()
        defer { release(connection) }
        return try await body(connection)
    }

    /// Closes the idle connections; a connection in use is closed when it comes back.
    func close() async {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { try? await connection.close() }
    }

    private func lease() async throws -> SQLiteConnection {
        let next: Lease = state.withLock { state in
            if state.isClosed { return .closed }
            if let connection = state.idle.popLast() { return .ready(connection) }
            if state.opened < size {
                state.opened += 1
                return .open
            }
            return .wait
        }
        switch next {
        case .ready(let connection):
            return connection
        case .closed:
            throw PoolClosed()
        case .open:
            do {
                return try await open()
            } catch {
                // With no connection left open, no release would ever wake the waiters: fail them.
                let stranded = state.withLock { state in
                    state.opened -= 1
                    guard state.opened == 0 else { return [CheckedContinuation<SQLiteConnection, any Error>]() }
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in stranded { waiter.resume(throwing: error) }
                throw error
            }
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                let handed: SQLiteConnection? = state.withLock { state in
                    // A connection may have come back between the two locks.
                    if let connection = state.idle.popLast() { return connection }
                    state.waiters.append(continuation)
                    return nil
                }
                if let handed { continuation.resume(returning: handed) }
            }
        }
    }

    private func release(_ connection: SQLiteConnection) {
        let waiter: CheckedContinuation<SQLiteConnection, any Error>?
        let closing: Bool
        (waiter, closing) = state.withLock { state in
            if !state.waiters.isEmpty { return (state.waiters.removeFirst(), false) }
            if state.isClosed {
                state.opened -= 1
                return (nil, true)
            }
            state.idle.append(connection)
            return (nil, false)
        }
        if let waiter {
            waiter.resume(returning: connection)
        } else if closing {
            Task { try? await connection.close() }
        }
    }

    private func open() async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(
            storage: .file(path: path), threadPool: threadPool, logger: logger, on: eventLoopGroup.any())
        do {
            // Readers never wait for the writer, and a commit does not wait for the disk.
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
        } catch {
            try? await connection.close()
            throw error
        }
        logger.debug("opened a database connection", metadata: ["path": "\(path)"])
        return connection
    }
}

/// A connection asked of a pool that has been closed.
struct PoolClosed: Error, CustomStringConvertible {
    var description: String { "the database pool is closed" }
}
