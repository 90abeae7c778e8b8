// Graft — MIT License.
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// A fixed number of SQLite connections to one database file, opened on first use and shared by
/// every request. Made without opening anything, so it can be built (and validated) synchronously.
///
/// Two rules keep it from locking up, whatever its size and the machine's number of cores:
/// - **One writer at a time, decided here.** SQLite lets one connection write at a time; a write
///   (``withWriteConnection(_:)``) first takes the writer's turn, waiting without a thread, so no
///   two connections ever wait on SQLite's own lock while holding threads the holder needs.
/// - **A thread per connection.** The connections run their statements on a thread pool of their
///   own, one thread per connection, so a connection's next statement never waits for a thread that
///   another connection's statement holds.
///
/// With two connections or more, one of them is the writer's own: a write never queues behind
/// reads for a connection, so a flood of reads cannot starve the writes.
///
/// Every wait is bounded (``maximumWait``): a request that cannot get a connection, or the writer's
/// turn, in time is told ``DatabaseBusy`` before anything of it ran, and SQLite's own lock waits
/// (another process writing the file) sleep and give up after a second (`busy_timeout`) instead
/// of retrying at full speed.
final class DatabasePool: Sendable {
    let path: String
    let size: Int
    /// How long a request waits for a connection, and for the writer's turn, before it gives up.
    let maximumWait: Duration
    /// How long SQLite waits for a lock another process holds before it gives up (`busy_timeout`).
    static let busyTimeout = Duration.seconds(1)
    private let logger: Logger
    /// The connections' own threads: `size` of them, started when the first connection opens.
    private let threadPool: NIOThreadPool
    private let eventLoopGroup: any EventLoopGroup
    /// One per connection the readers share (all but the writer's own): a request holds one while
    /// it uses a connection.
    private let connections: Permits
    /// The writer's turn: held for the whole of a write, from `BEGIN` to `COMMIT`, with the
    /// writer's own connection.
    private let writer: Permits
    /// Whether the writer has a connection of its own (`size` of two or more).
    private let writerHasOwnConnection: Bool
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var idle: [SQLiteConnection] = []
        /// The writer's own connection, once opened; used only by the holder of the writer's turn.
        var writerConnection: SQLiteConnection?
        var threadsStarted = false
        var isClosed = false
    }

    init(
        path: String, size: Int, logger: Logger, maximumWait: Duration = .seconds(2),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        precondition(size > 0, "DatabasePool: size must be at least 1")
        self.path = path
        self.size = size
        self.maximumWait = maximumWait
        self.logger = logger
        self.threadPool = NIOThreadPool(numberOfThreads: size)
        self.eventLoopGroup = eventLoopGroup
        writerHasOwnConnection = size >= 2
        connections = Permits(count: writerHasOwnConnection ? size - 1 : size, eventLoopGroup: eventLoopGroup)
        writer = Permits(count: 1, eventLoopGroup: eventLoopGroup)
    }

    /// Runs `body` with a connection of its own, returned to the pool afterwards, or closed when
    /// `body` throws ``UnusableConnection``. Throws ``DatabaseBusy`` when no connection came free
    /// within ``maximumWait``.
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await withConnection(ahead: false, body)
    }

    /// ``withConnection(_:)``, its wait `ahead` of the others' or not.
    private func withConnection<T: Sendable>(
        ahead: Bool, _ body: (SQLiteConnection) async throws -> T
    ) async throws -> T {
        try await connections.acquire(waitingAtMost: maximumWait, ahead: ahead)
        let connection: SQLiteConnection
        do {
            connection = try await take()
        } catch {
            connections.release()
            throw error
        }
        do {
            let result = try await body(connection)
            giveBack(connection)
            return result
        } catch let error as UnusableConnection {
            giveBack(connection, usable: false)
            throw error
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// Runs `body` with the writer's connection while it holds the writer's turn. Throws
    /// ``DatabaseBusy``, before `body` runs, when the turn (or, in a pool of one, the connection)
    /// did not come within ``maximumWait``.
    func withWriteConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await writer.acquire(waitingAtMost: maximumWait)
        defer { writer.release() }
        // A pool of one: the writer waits for the connection ahead of the readers, so that a
        // flood of reads cannot starve the writes.
        guard writerHasOwnConnection else { return try await withConnection(ahead: true, body) }
        let connection = try await writersConnection()
        do {
            return try await body(connection)
        } catch let error as UnusableConnection {
            let closing = state.withLock { state in
                defer { state.writerConnection = nil }
                return state.writerConnection
            }
            if let closing { Task { try? await closing.close() } }
            throw error
        }
    }

    /// The writer's own connection, opened on first use; the caller holds the writer's turn.
    private func writersConnection() async throws -> SQLiteConnection {
        let kept: SQLiteConnection? = try state.withLock { state in
            if state.isClosed { throw PoolClosed() }
            startThreads(&state)
            return state.writerConnection
        }
        if let kept { return kept }
        let opened = try await open()
        let closed = state.withLock { state in
            if !state.isClosed { state.writerConnection = opened }
            return state.isClosed
        }
        if closed {
            try? await opened.close()
            throw PoolClosed()
        }
        return opened
    }

    /// Ends every wait, closes the idle connections and then the connections' threads, once the
    /// statements running on them end. A connection in use is closed when it comes back.
    func close() async {
        connections.close()
        writer.close()
        let (idle, threadsStarted) = state.withLock { state in
            state.isClosed = true
            defer {
                state.idle = []
                state.writerConnection = nil
            }
            return (state.idle + (state.writerConnection.map { [$0] } ?? []), state.threadsStarted)
        }
        for connection in idle { try? await connection.close() }
        if threadsStarted { try? await threadPool.shutdownGracefully() }
    }

    /// An idle connection, or a new one; the caller holds a permit of `connections`.
    private func take() async throws -> SQLiteConnection {
        let idle: SQLiteConnection? = try state.withLock { state in
            if state.isClosed { throw PoolClosed() }
            if let connection = state.idle.popLast() { return connection }
            startThreads(&state)
            return nil
        }
        if let idle { return idle }
        return try await open()
    }

    private func startThreads(_ state: inout State) {
        guard !state.threadsStarted else { return }
        state.threadsStarted = true
        threadPool.start()
    }

    /// Returns `connection` to the idle ones, or closes it when the pool is closed or it is not
    /// `usable`; the next request that needs one opens a new one.
    private func giveBack(_ connection: SQLiteConnection, usable: Bool = true) {
        let closing = state.withLock { state in
            if state.isClosed || !usable { return true }
            state.idle.append(connection)
            return false
        }
        connections.release()
        if closing { Task { try? await connection.close() } }
    }

    private func open() async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(
            storage: .file(path: path), threadPool: threadPool, logger: logger, on: eventLoopGroup.any())
        do {
            // Readers never wait for the writer, and a commit does not wait for the disk. A lock
            // SQLite still meets (a checkpoint) is waited for by sleeping, a second at most.
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
            _ = try await connection.query("PRAGMA busy_timeout = \(Self.busyTimeout.nanoseconds / 1_000_000)")
            _ = try await connection.query("PRAGMA foreign_keys = ON")
        } catch {
            try? await connection.close()
            throw error
        }
        logger.debug("opened a database connection", metadata: ["path": "\(path)"])
        return connection
    }
}

/// A connection left in a state the next request must not inherit (a transaction it could not roll
/// back): the pool closes it instead of keeping it.
struct UnusableConnection: Error, CustomStringConvertible {
    /// The error that ended the request.
    var error: any Error
    /// Why the connection cannot be used again.
    var rollbackError: any Error
    var description: String { "\(error) (and the rollback failed, so the connection was closed: \(rollbackError))" }
}
