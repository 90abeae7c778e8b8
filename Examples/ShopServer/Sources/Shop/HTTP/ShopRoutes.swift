// Graft — MIT License.
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The request context every route uses: Hummingbird's basic one, with a body limit fit for the
/// small JSON bodies the routes take.
struct ShopContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on (``Draining`` refuses the requests that follow an answer
    /// that closed it).
    let channel: any Channel

    init(source: Source) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Bodies over 1 MiB are answered 413 before they are decoded.
    var maxUploadSize: Int { 1 << 20 }
}

/// The router of both servers, and the methods each of its paths answers, so that a known path
/// asked with another method gets `405` and `Allow` rather than `404`. Routes are added through it
/// only; `HEAD` is answered wherever `GET` is. Every error leaves it as ``APIError``'s JSON.
struct ShopRoutes {
    let router: Router<ShopContext>
    /// Whether the server is shutting down: its answers then close their connections.
    let shutdown = Draining()
    private let methods = MethodsByPath()

    init(logger: Logger) {
        router = Router(context: ShopContext.self, options: .autoGenerateHeadEndpoints)
        // First, so that they wrap every route added after them and the router's own "not found".
        router.add(middleware: shutdown)
        router.add(middleware: ErrorAnswers(methods: methods, logger: logger))
    }

    func get(
        _ path: String, use handler: @Sendable @escaping (Request, ShopContext) async throws -> some ResponseGenerator
    ) {
        router.on(RouterPath(path), method: .get, use: handler)
        methods.add([.get, .head], to: path)
    }

    func post(
        _ path: String, use handler: @Sendable @escaping (Request, ShopContext) async throws -> some ResponseGenerator
    ) {
        router.on(RouterPath(path), method: .post, use: handler)
        methods.add([.post], to: path)
    }
}

/// The methods of each route's path, filled while the routes are added, read when a request's
/// path matched no route of its method.
final class MethodsByPath: Sendable {
    /// Guarded by its mutex: written while the routes are added, then only read.
    private let routes = Mutex<[(segments: [Substring], methods: [HTTPRequest.Method])]>([])

    func add(_ methods: [HTTPRequest.Method], to path: String) {
        let segments = path.split(separator: "/")
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                routes[index].methods += methods
            } else {
                routes.append((segments, methods))
            }
        }
    }

    /// The methods of the route whose path matches `path` (a `:name` segment matches any one
    /// segment), or `nil` when no route has that path.
    func methods(for path: String) -> [HTTPRequest.Method]? {
        let asked = path.split(separator: "/")
        return routes.withLock { routes in
            routes.first { route in
                route.segments.count == asked.count
                    && zip(route.segments, asked).allSatisfy { pattern, segment in
                        pattern.hasPrefix(":") || pattern == segment
                    }
            }?.methods
        }
    }
}

/// An answer that is not the one asked for: a status and one message, sent as `{"error": "..."}`.
struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// A `503`: the client may send the same request again after `retryAfterSeconds`.
    init(_ status: HTTPResponse.Status, _ message: String, retryAfterSeconds: Int) {
        self.init(status, message, headers: [.retryAfter: "\(retryAfterSeconds)"])
    }

    /// The server's own fault; what went wrong is in its log, not in the answer.
    static let `internal` = APIError(.internalServerError, "the server failed to answer; its log says why")

    var description: String { "\(status.code) \(message)" }

    private struct Body: Encodable {
        var error: String
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(Body(error: message), from: request, context: context)
        response.status = status
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// Turns every error a route or the router throws into ``APIError``: Hummingbird's own (`400` for
/// a body that does not decode, `413`, `404`), a known path asked with a method it does not
/// answer (`405` with `Allow`), and anything else (`500`, logged).
struct ErrorAnswers: RouterMiddleware {
    typealias Context = ShopContext
    let methods: MethodsByPath
    let logger: Logger

    func handle(
        _ request: Request, context: ShopContext, next: (Request, ShopContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound, context.endpointPath == "NotFound",
                let allowed = methods.methods(for: request.uri.path)
            {
                let allow = allowed.map(\.rawValue).joined(separator: ", ")
                throw APIError(
                    .methodNotAllowed, "\(request.uri.path) answers \(allow), not \(request.method.rawValue)",
                    headers: [.allow: allow])
            }
            if error.status == .notFound, context.endpointPath == "NotFound" {
                throw APIError(.notFound, "no route answers \(request.method.rawValue) \(request.uri.path)")
            }
            throw APIError(error.status, error.body ?? error.status.reasonPhrase, headers: error.headers)
        } catch is CancellationError {
            // A request still running when the graceful shutdown's time ran out.
            throw APIError(.serviceUnavailable, "the server is shutting down; try again", retryAfterSeconds: 1)
        } catch {
            logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(error)")
            throw APIError.internal
        }
    }
}
