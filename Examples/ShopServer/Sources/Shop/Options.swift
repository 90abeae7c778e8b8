// Graft — MIT License.

/// What the command line asks for.
struct Options: Sendable {
    /// How the server builds its objects.
    enum Wiring: String, Sendable {
        /// Through Graft: assemblies, a container per feature, `withResolver` and `@Injected`.
        case graft
        /// By hand, in `HandWiredServer`.
        case hand
    }

    /// Faults the load test switches on, each to show how the server copes.
    enum Fault: String, Sendable, CaseIterable {
        /// The catalog's first load reads a table that does not exist (a real SQLite error).
        case catalogFirstBuild = "catalog-first-build"
        /// The configuration holds a report definition that `ReportService`'s initialiser rejects:
        /// `GET /reports/broken` fails in a factory.
        case brokenReport = "broken-report"
        /// The application assembly leaves out the logger's registration: validation fails and
        /// the server refuses to start. Graft-wired server only.
        case missingRegistration = "missing-registration"
    }

    var host = "127.0.0.1"
    var port = 8080
    var databasePath = "shop.sqlite"
    var poolSize = 4
    var wiring = Wiring.graft
    var printGraph = false
    var faults: Set<Fault> = []

    static let usage = """
        usage: shop-server [--port N] [--database PATH] [--pool-size N] [--hand-wired]
                           [--print-graph] [--fault \(Fault.allCases.map(\.rawValue).joined(separator: "|"))]
          --port N         listen on 127.0.0.1:N (default 8080)
          --database PATH  the SQLite file, created and seeded when new (default shop.sqlite)
          --pool-size N    database connections, 1 to 64 (default 4)
          --hand-wired     build every object by hand instead of through Graft
          --print-graph    print the validation report and the dependency graph, then exit
          --fault NAME     switch on a fault (repeatable)
        """

    /// Parses `arguments` (without the program name); throws the usage on anything unknown.
    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else {
                throw UsageError(message: "\(flag) needs a positive number, not \(text)")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--port":
                port = try number(argument)
                guard port <= 65_535 else { throw UsageError(message: "--port must be 1 to 65535, not \(port)") }
            case "--database":
                databasePath = try value(argument)
                // Each connection would open a database of its own, empty and lost at exit.
                guard !databasePath.isEmpty, databasePath != ":memory:", !databasePath.hasPrefix("file:") else {
                    throw UsageError(message: "--database needs the path of a file, not \(databasePath)")
                }
            case "--pool-size":
                poolSize = try number(argument)
                // Each connection has a thread of its own (DatabasePool).
                guard poolSize <= 64 else { throw UsageError(message: "--pool-size must be 1 to 64, not \(poolSize)") }
            case "--hand-wired": wiring = .hand
            case "--print-graph": printGraph = true
            case "--fault":
                let name = try value(argument)
                guard let fault = Fault(rawValue: name) else {
                    throw UsageError(message: "unknown fault \(name)")
                }
                faults.insert(fault)
            case "--help", "-h": throw UsageError(message: nil)
            default: throw UsageError(message: "unknown option \(argument)")
            }
        }
        if wiring == .hand, faults.contains(.missingRegistration) {
            throw UsageError(
                message: "--fault missing-registration leaves a registration out of Graft's assemblies; "
                    + "the hand-wired server has none, so it cannot show it (drop --hand-wired)")
        }
    }
}

/// A command line the server does not understand.
struct UsageError: Error {
    /// What was wrong, or `nil` when the usage was asked for.
    var message: String?
}
