// Graft — MIT License.
import Hummingbird
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates the tables, and seeds a new database.
func prepareDatabase(_ pool: DatabasePool, logger: Logger) async throws {
    if try await Schema.prepare(pool) {
        logger.info(
            "seeded the database",
            metadata: [
                "path": "\(pool.path)", "accounts": "\(Schema.accountCount)", "orders": "\(Schema.orderCount)",
            ])
    }
}

/// Serves `router` on 127.0.0.1 until SIGINT or SIGTERM.
func serve(router: Router<ShopContext>, options: Options, logger: Logger) async throws {
    let application = Application(
        router: router,
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "shop-server"),
        logger: logger)
    try await application.runService()
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

extension Routes {
    /// `GET /health`: answers while the server runs.
    static func health(_ router: Router<ShopContext>) {
        router.get("health") { _, _ in "ok\n" }
    }
}
