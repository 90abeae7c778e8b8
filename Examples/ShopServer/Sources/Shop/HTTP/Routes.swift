// Graft — MIT License.
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Account: ResponseEncodable {}
extension Order: ResponseEncodable {}
extension Report: ResponseEncodable {}
extension ProductList: ResponseEncodable {}

/// The handlers, the same for both wirings: each gets its services from `services`.
enum Routes {
    /// Every route both servers serve, on `routes`.
    static func addAll(to routes: ShopRoutes, services: some RequestServices) {
        // Tells a load balancer to stop sending requests once the server is shutting down.
        let shutdown = routes.shutdown
        routes.get("health") { _, _ in
            guard !shutdown.isDraining else {
                throw APIError(.serviceUnavailable, "the server is shutting down", retryAfterSeconds: 1)
            }
            return "ok\n"
        }
        accounts(routes, services: services)
        orders(routes, services: services)
        reports(routes, services: services)
        routes.get("products") { _, _ in
            try await handle("GET /products", services) { ProductList(products: try await catalog(services).products) }
        }
    }

    static func accounts(_ routes: ShopRoutes, services: some RequestServices) {
        routes.get("accounts/:id") { _, context in
            let id = try context.id()
            return try await handle("GET /accounts/\(id)", services) { try await services.accounts().account(id: id) }
        }
        routes.post("accounts") { request, context in
            let new = try await request.decodeJSON(as: NewAccount.self, context: context)
            let account = try await handle("POST /accounts", services) { try await services.accounts().open(new) }
            return EditedResponse(status: .created, headers: [.location: "/accounts/\(account.id)"], response: account)
        }
    }

    static func orders(_ routes: ShopRoutes, services: some RequestServices) {
        routes.get("orders/:id") { _, context in
            let id = try context.id()
            return try await handle("GET /orders/\(id)", services) { try await services.orders().order(id: id) }
        }
        routes.post("orders") { request, context in
            let new = try await request.decodeJSON(as: NewOrder.self, context: context)
            let order = try await handle("POST /orders", services) {
                let catalog = try await catalog(services)
                return try await services.orders().place(new, catalog: catalog)
            }
            return EditedResponse(status: .created, headers: [.location: "/orders/\(order.id)"], response: order)
        }
    }

    static func reports(_ routes: ShopRoutes, services: some RequestServices) {
        routes.get("reports/:name") { _, context in
            let name = try context.parameters.require("name")
            guard let definition = services.config.reports[name] else {
                throw APIError(.notFound, "no report \(name); there are \(services.config.reports.keys.sorted())")
            }
            return try await handle("GET /reports/\(name)", services) { try await services.report(definition).run() }
        }
    }

    /// The catalog, or 503 while it cannot be loaded (the next request tries again).
    private static func catalog(_ services: some RequestServices) async throws -> Catalog {
        do {
            return try await services.catalog()
        } catch let busy as DatabaseBusy {
            throw busy
        } catch {
            services.logger.error("the catalog is unavailable: \(error)")
            throw APIError(.serviceUnavailable, "the catalog is unavailable; try again", retryAfterSeconds: 1)
        }
    }

    /// Runs a handler's work: what the request asked wrongly becomes a 4xx, a database that stayed
    /// busy a 503 (nothing was written), anything else is the server's fault, logged and answered 500.
    private static func handle<T>(
        _ route: @autoclosure () -> String, _ services: some RequestServices, _ work: () async throws -> T
    ) async throws -> T {
        do {
            return try await work()
        } catch let error as ShopError {
            switch error {
            case .notFound: throw APIError(.notFound, error.description)
            case .insufficientFunds, .duplicate: throw APIError(.conflict, error.description)
            case .unknownProduct, .invalid: throw APIError(.badRequest, error.description)
            }
        } catch let error as DatabaseBusy {
            throw APIError(.serviceUnavailable, error.description, retryAfterSeconds: 1)
        } catch let error as APIError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            services.logger.error("\(route()) failed: \(error)")
            throw APIError.internal
        }
    }
}

extension ShopContext {
    /// The `:id` of the path, a whole number.
    func id() throws -> Int {
        guard let id = parameters.get("id", as: Int.self) else {
            throw APIError(.badRequest, "the id must be a whole number")
        }
        return id
    }
}

extension Request {
    /// The body as JSON: 415 unless the client said it sends JSON, 413 over the context's limit, 400
    /// with the field at fault when it is not the JSON `T` asks for.
    func decodeJSON<T: Decodable>(as type: T.Type, context: ShopContext) async throws -> T {
        let mediaType = headers[.contentType]?.split(separator: ";").first?.trimmingWhitespace().lowercased()
        guard let mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            throw APIError(.unsupportedMediaType, "send the body as application/json (Content-Type: application/json)")
        }
        // A length too large for an Int is too large too.
        if let length = headers[.contentLength], !length.isEmpty, length.allSatisfy(\.isWholeNumber),
            Int(length).map({ $0 > context.maxUploadSize }) ?? true
        {
            throw APIError(.contentTooLarge, "the body is larger than \(context.maxUploadSize) bytes")
        }
        let body: ByteBuffer
        do {
            body = try await self.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the body is larger than \(context.maxUploadSize) bytes")
        } catch {
            // The client's side: it hung up, or sent less than it announced. Nothing to log.
            throw APIError(.badRequest, "the body ended before it was complete")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, error.answer)
        }
    }
}

extension DecodingError {
    /// What a client is told: the field, and what it must be.
    fileprivate var answer: String {
        func field(_ context: Context) -> String {
            context.codingPath.isEmpty
                ? "the body" : "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        }
        switch self {
        case .keyNotFound(let key, _): return "the body has no \"\(key.stringValue)\""
        case .valueNotFound(_, let context): return "\(field(context)) must not be null"
        case .typeMismatch(let type, let context): return "\(field(context)) must be \(Self.kind(type))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The decoder tells neither apart, nor names the field.
            return "the body is not valid JSON, or a number in it is not a whole number of at most 64 bits"
        case .dataCorrupted(let context): return "\(field(context)) must be a whole number of at most 64 bits"
        @unknown default: return "the body is not the JSON this route takes"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "a whole number"
        default: "a JSON object"
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var trimmed = self
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        return trimmed
    }
}
