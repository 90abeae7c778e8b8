// Graft — MIT License.

/// What the command line asks for.
struct Options: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var connections = 64
    var seconds = 10.0
    /// How long a request may wait for its answer before it counts as a timeout.
    var timeoutSeconds = 5.0
    var mix = RequestMix.Kind.writes
    var seed: UInt64 = 1
    /// Makes the emails of the accounts this run opens unique among the runs against one database.
    var runID = "run"
    /// The folder the records are appended to; none when `nil`.
    var recordFolder: String?
    /// How many unexpected answers to print to standard error.
    var samples = 10

    static let usage = """
        usage: shop-load [--url http://127.0.0.1:PORT] [--connections N] [--seconds S] [--timeout S]
                         [--mix writes|reads|orders] [--seed N] [--run-id ID] [--record DIR]
          --url URL        the server (default http://127.0.0.1:8080)
          --connections N  connections, each sending its next request once the last one is answered (64)
          --seconds S      how long new requests are sent; then each connection finishes its own (10)
          --timeout S      how long a request waits for its answer (5)
          --mix NAME       writes: orders, new accounts and reads (default); reads: reads only;
                           orders: orders on accounts 1 to 1000 only
          --seed N         the pseudo-random sequence (each connection derives its own) (1)
          --run-id ID      part of the new accounts' emails; unique per run against one database (run)
          --record DIR     append the orders and accounts made (201), and the writes sent but never
                           answered, to DIR/orders.txt, DIR/accounts.txt and DIR/unanswered.txt
          --samples N      unexpected answers printed to standard error (10)
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
        func duration(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let seconds = Double(text), seconds > 0, seconds < 86_400 else {
                throw UsageError(message: "\(flag) needs a positive number of seconds, not \(text)")
            }
            return seconds
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--url": (host, port) = try Self.hostAndPort(try value(argument))
            case "--connections": connections = try number(argument)
            case "--seconds": seconds = try duration(argument)
            case "--timeout": timeoutSeconds = try duration(argument)
            case "--mix":
                let name = try value(argument)
                guard let kind = RequestMix.Kind(rawValue: name) else {
                    throw UsageError(message: "unknown mix \(name)")
                }
                mix = kind
            case "--seed":
                let text = try value(argument)
                guard let seed = UInt64(text) else { throw UsageError(message: "--seed needs a number, not \(text)") }
                self.seed = seed
            case "--run-id":
                runID = try value(argument)
                guard !runID.isEmpty, runID.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw UsageError(message: "--run-id takes letters, digits, - and _")
                }
            case "--record": recordFolder = try value(argument)
            case "--samples": samples = try number(argument)
            case "--help", "-h": throw UsageError(message: nil)
            default: throw UsageError(message: "unknown option \(argument)")
            }
        }
    }

    /// The host and port of an `http://HOST:PORT` URL (a path after them is not allowed).
    private static func hostAndPort(_ url: String) throws(UsageError) -> (String, Int) {
        let prefix = "http://"
        var rest = Substring(url)
        guard rest.hasPrefix(prefix) else { throw UsageError(message: "--url must start with http://, not \(url)") }
        rest = rest.dropFirst(prefix.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (1...65_535).contains(port), colon > rest.startIndex, !rest.contains("/")
        else { throw UsageError(message: "--url must be http://HOST:PORT, not \(url)") }
        return (String(rest[..<colon]), port)
    }
}

/// A command line the tool does not understand.
struct UsageError: Error {
    /// What was wrong, or `nil` when the usage was asked for.
    var message: String?
}
