// Graft — MIT License.
import Hummingbird
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates the tables, and seeds a new database. Refuses, saying why, a database the server could
/// read but not write: it would serve reads and fail every write.
func prepareDatabase(_ pool: DatabasePool, logger: Logger) async throws {
    try checkDatabaseIsWritable(path: pool.path)
    var seeded = false
    // Another process writing the file (a backup, a migration) may hold its lock for a while.
    for attempt in 1...10 {
        do {
            seeded = try await Schema.prepare(pool)
            break
        } catch let busy as DatabaseBusy where attempt < 10 {
            logger.info("the database is busy; trying again", metadata: ["reason": "\(busy)"])
        } catch {
            throw StartupError(message: "cannot prepare the database \(pool.path): \(error)")
        }
    }
    if seeded {
        logger.info(
            "seeded the database",
            metadata: [
                "path": "\(pool.path)", "accounts": "\(Schema.accountCount)", "orders": "\(Schema.orderCount)",
            ])
    }
}

/// Throws, naming the file or folder, when the database at `path` could not be written: SQLite
/// writes the file and, beside it, its write-ahead log (`-wal`, `-shm`), and creates a new file in
/// the folder.
func checkDatabaseIsWritable(path: String) throws(StartupError) {
    let folder: String
    if let slash = path.lastIndex(of: "/") {
        folder = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
        folder = "."
    }
    guard access(folder, F_OK) == 0 else {
        throw StartupError(message: "cannot open the database \(path): the folder \(folder) does not exist")
    }
    let exists = access(path, F_OK) == 0
    if exists, access(path, W_OK) != 0 {
        throw StartupError(
            message: "the database file \(path) is read-only: the server writes orders and accounts to it; "
                + "make it writable, or give another --database")
    }
    guard access(folder, W_OK) == 0 else {
        throw StartupError(
            message: exists
                ? "the folder \(folder) is not writable: SQLite keeps the database's write-ahead log "
                    + "(\(path)-wal, \(path)-shm) beside it; make the folder writable"
                : "cannot create the database \(path): the folder \(folder) is not writable")
    }
}

/// Serves `routes` on 127.0.0.1 until SIGINT or SIGTERM, then shuts down gracefully, within a
/// bound: it drains (``Draining``: answers close their connections, 1 s at most), stops accepting,
/// lets the requests in flight finish until 7 s after the signal, then cancels those left (their
/// connections close); ``Shutdown`` ends the process if anything still holds it 9.5 s after the
/// signal.
func serve(routes: ShopRoutes, options: Options, logger: Logger) async throws {
    let application = Application(
        router: routes.router,
        // A connection that sends nothing for 30 s (an idle keep-alive, a client that stalls
        // between bytes of its request) is closed, so stalled clients cannot hold every descriptor.
        server: .http1(configuration: .init(idleTimeout: .seconds(30))),
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "shop-server"),
        logger: logger)
    var configuration = ServiceGroupConfiguration(
        services: [
            .init(service: application),
            // Last, so that the group asks it to shut down first, and the server's shutdown waits
            // for it.
            .init(service: Shutdown(draining: routes.shutdown, logger: logger), successTerminationBehavior: .ignore),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = .seconds(7)
    try await ServiceGroup(configuration: configuration).run()
    logger.info("stopped serving")
}

/// The shutdown's first steps: when it begins, starts a thread of its own that ends the process
/// 9.5 s later if it has not ended by then (a bound that holds whatever the requests, the tasks
/// and their threads do), then drains the connections before the server stops accepting.
struct Shutdown: Service {
    let draining: Draining
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is ending anyway
        }
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { _ in
                var asked = timespec(tv_sec: 9, tv_nsec: 500_000_000)
                var left = timespec()
                while nanosleep(&asked, &left) != 0 { asked = left }
                printError("shop-server: shutdown still not finished 9.5 s after the signal; exiting now")
                _exit(1)
            }, nil)
        if created == 0 { pthread_detach(thread) }
        logger.info("shutting down: draining the connections")
        await draining.drain()
        logger.info("shutting down: finishing the requests in flight")
    }
}

/// Start-up could not go on.
struct StartupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Writes `text` and a newline to standard error.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            let written = write(STDERR_FILENO, rest.baseAddress, rest.count)
            guard written > 0 else { return }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}
