// Graft — MIT License.
import Hummingbird

/// The request context every route uses.
typealias ShopContext = BasicRequestContext

extension Account: ResponseEncodable {}
extension Order: ResponseEncodable {}
extension Report: ResponseEncodable {}
extension ProductList: ResponseEncodable {}

/// The handlers, the same for both wirings: each gets its services from `services`.
enum Routes {
    /// Every route both servers serve, on `router`.
    static func addAll(to router: Router<ShopContext>, services: some RequestServices) {
        health(router)
        accounts(router.group("accounts"), services: services)
        orders(router.group("orders"), services: services)
        reports(router.group("reports"), services: services)
        products(router.group("products"), services: services)
    }

    static func accounts(_ group: RouterGroup<ShopContext>, services: some RequestServices) {
        group.get(":id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            return try await handle("GET /accounts/\(id)", services) {
                try await services.accounts().account(id: id)
            }
        }
        group.post { request, context in
            let new = try await request.decode(as: NewAccount.self, context: context)
            let account = try await handle("POST /accounts", services) { try await services.accounts().open(new) }
            return EditedResponse(status: .created, response: account)
        }
    }

    static func orders(_ group: RouterGroup<ShopContext>, services: some RequestServices) {
        group.get(":id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            return try await handle("GET /orders/\(id)", services) { try await services.orders().order(id: id) }
        }
        group.post { request, context in
            let new = try await request.decode(as: NewOrder.self, context: context)
            let order = try await handle("POST /orders", services) {
                let catalog = try await catalog(services)
                return try await services.orders().place(new, catalog: catalog)
            }
            return EditedResponse(status: .created, response: order)
        }
    }

    static func products(_ group: RouterGroup<ShopContext>, services: some RequestServices) {
        group.get { _, _ in
            try await handle("GET /products", services) { ProductList(products: try await catalog(services).products) }
        }
    }

    static func reports(_ group: RouterGroup<ShopContext>, services: some RequestServices) {
        group.get(":name") { _, context in
            let name = try context.parameters.require("name")
            guard let definition = services.config.reports[name] else { throw HTTPError(.notFound) }
            return try await handle("GET /reports/\(name)", services) { try await services.report(definition).run() }
        }
    }

    /// The catalog, or 503 while it cannot be loaded (the next request tries again).
    private static func catalog(_ services: some RequestServices) async throws -> Catalog {
        do {
            return try await services.catalog()
        } catch {
            services.logger.error("the catalog is unavailable: \(error)")
            throw HTTPError(.serviceUnavailable, message: "the catalog is unavailable; try again")
        }
    }

    /// Runs a handler's work: what the request asked wrongly becomes a 4xx, anything else is the
    /// server's fault, logged and answered with 500.
    private static func handle<T>(
        _ route: @autoclosure () -> String, _ services: some RequestServices, _ work: () async throws -> T
    ) async throws -> T {
        do {
            return try await work()
        } catch let error as ShopError {
            switch error {
            case .notFound: throw HTTPError(.notFound, message: error.description)
            case .insufficientFunds: throw HTTPError(.conflict, message: error.description)
            case .unknownProduct, .invalid: throw HTTPError(.badRequest, message: error.description)
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            services.logger.error("\(route()) failed: \(error)")
            throw HTTPError(.internalServerError)
        }
    }
}
