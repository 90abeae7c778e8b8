// Graft — MIT License.
import Hummingbird
import Synchronization

/// The first step of the server's shutdown. Closing a keep-alive connection between two requests
/// races the client's next request: it may already be on its way, and the client then sees the
/// connection reset, not knowing whether its write ran. So, before the server stops accepting
/// connections, it drains: for a short while it keeps answering, each answer saying
/// `Connection: close` and then closing the connection's input, so that clients end their
/// connections after their answer (and `GET /health` answers 503, for a load balancer). A request
/// that still arrives on a connection after such an answer (one the client sent before reading
/// it) is not run: it is answered 503, so a client that sends it again does not write twice.
final class Draining: RouterMiddleware, Sendable {
    typealias Context = ShopContext

    /// Set once the shutdown began; guarded by being atomic.
    private let draining = Atomic(false)
    /// When the last request arrived, in nanoseconds of `clock`; atomic.
    private let lastArrival = Atomic<Int64>(0)
    /// The connections whose answer said `Connection: close`; guarded by its mutex, filled only
    /// while draining (at most one entry per connection open then).
    private let closing = Mutex<Set<ObjectIdentifier>>([])
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    init() {
        start = clock.now
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    func handle(
        _ request: Request, context: ShopContext, next: (Request, ShopContext) async throws -> Response
    ) async throws -> Response {
        lastArrival.store((clock.now - start).nanoseconds, ordering: .relaxed)
        guard isDraining else { return try await next(request, context) }
        let connection = ObjectIdentifier(context.channel)
        let alreadyClosing = closing.withLock { !$0.insert(connection).inserted }
        // Hummingbird keeps reading a connection whose answer said `close`; stop it reading more.
        defer { context.channel.close(mode: .input, promise: nil) }
        if alreadyClosing {
            throw APIError(
                .serviceUnavailable, "the server is shutting down; this request was not run",
                headers: [.retryAfter: "1", .connection: "close"])
        }
        do {
            var response = try await next(request, context)
            response.headers[.connection] = "close"
            return response
        } catch var error as APIError {
            error.headers[.connection] = "close"
            throw error
        }
    }

    /// Drains: returns once no request arrived for `quiet`, or after `longest`.
    func drain(quiet: Duration = .milliseconds(100), longest: Duration = .seconds(1)) async {
        draining.store(true, ordering: .releasing)
        let began = clock.now
        while clock.now - began < longest {
            let sinceLast = (clock.now - start).nanoseconds - lastArrival.load(ordering: .relaxed)
            if sinceLast > quiet.nanoseconds { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
