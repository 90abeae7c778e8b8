// Graft — MIT License.
// An HTTP service on Hummingbird and SQLite: accounts, orders, a catalog and reports, wired by
// Graft (the default) or by hand (--hand-wired). See README.md.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `shop-server` command.
package enum ShopServerCommand {
    /// Parses `arguments` (without the program's name) and serves until SIGINT or SIGTERM; exits
    /// with 2 on a wrong command line and 1 when start-up fails.
    package static func main(arguments: [String]) async {
        let options: Options
        do {
            options = try Options(arguments: arguments)
        } catch {
            if let message = error.message { printError("shop-server: \(message)") }
            printError(Options.usage)
            exit(error.message == nil ? 0 : 2)
        }
        do {
            switch options.wiring {
            case .graft: try await GraftServer(options: options).run(options: options)
            case .hand: try await HandWiredServer(options: options).run(options: options)
            }
        } catch {
            printError("shop-server: \(error)")
            exit(1)
        }
    }
}
