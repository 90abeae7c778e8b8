// Graft — MIT License.
import Hummingbird
import Synchronization

/// The first step of the server's shutdown. Closing a keep-alive connection between two requests
/// races the client's next request: it may already be on its way, and the client then sees the
/// connection reset, not knowing whether its write ran. So, before the server stops accepting
/// connections, it drains: for a short while it keeps answering, each answer saying
/// `Connection: close`, so that clients end their connections themselves after their answer
/// (and `GET /health` answers 503, for a load balancer).
final class Draining: RouterMiddleware, Sendable {
    typealias Context = ShopContext

    /// Set once the shutdown began; guarded by being atomic.
    private let draining = Atomic(false)
    /// When the last request arrived, in nanoseconds of `clock`; atomic.
    private let lastArrival = Atomic<Int64>(0)
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
        do {
            var response = try await next(request, context)
            if isDraining { response.headers[.connection] = "close" }
            return response
        } catch var error as APIError {
            if isDraining { error.headers[.connection] = "close" }
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
