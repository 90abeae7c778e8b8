// Graft — MIT License.
import Hummingbird
import Logging
import Synchronization

/// The same server with every object built by hand: the app-wide objects once, in `init`, a
/// request's services in ``HandWiredServices``. The handlers are the same (`Routes`); what the
/// load test compares is the cost of getting the services through Graft.
struct HandWiredServer {
    let services: HandWiredServices

    init(options: Options) {
        let config = AppConfig(options: options)
        var logger = Logger(label: "shop")
        logger.logLevel = .info
        let pool = DatabasePool(path: config.databasePath, size: config.poolSize, logger: logger)
        let store = CatalogStore(pool: pool, logger: logger, config: config)
        services = HandWiredServices(
            config: config, logger: logger, pool: pool, catalogCache: CatalogCache(store: store))
    }

    func run(options: Options) async throws {
        if options.printGraph {
            print("The hand-wired server has no container to validate and no dependency graph to print.")
            return
        }
        let pool = services.pool
        try await prepareDatabase(pool, logger: services.logger)

        let routes = ShopRoutes(logger: services.logger)
        Routes.addAll(to: routes, services: services)

        try await serve(routes: routes, options: options, logger: services.logger)
        await pool.close()
    }
}

/// How the handlers get their services when they are built by hand.
struct HandWiredServices: RequestServices {
    let config: AppConfig
    let logger: Logger
    let pool: DatabasePool
    let catalogCache: CatalogCache

    func accounts() -> AccountService {
        AccountService(accounts: AccountRepository(unitOfWork: UnitOfWork(pool: pool)), logger: logger)
    }

    func orders() -> OrderService {
        let unitOfWork = UnitOfWork(pool: pool)
        return OrderService(
            orders: OrderRepository(unitOfWork: unitOfWork), accounts: AccountRepository(unitOfWork: unitOfWork),
            unitOfWork: unitOfWork)
    }

    func report(_ definition: ReportDefinition) throws -> ReportService {
        try ReportService(definition: definition, orders: OrderRepository(unitOfWork: UnitOfWork(pool: pool)))
    }

    func catalog() async throws -> Catalog {
        try await catalogCache.catalog()
    }
}

/// The catalog built once by hand, as `registerAsync` builds it for the Graft server: one load
/// however many requests ask at once, a failed load not kept.
final class CatalogCache: Sendable {
    private let store: CatalogStore
    private let state = Mutex<(built: Catalog?, loading: Task<Catalog, any Error>?)>((nil, nil))

    init(store: CatalogStore) {
        self.store = store
    }

    func catalog() async throws -> Catalog {
        let (built, task): (Catalog?, Task<Catalog, any Error>?) = state.withLock { state in
            if let built = state.built { return (built, nil) }
            if let loading = state.loading { return (nil, loading) }
            let store = store
            let loading = Task { try await store.load() }
            state.loading = loading
            return (nil, loading)
        }
        if let built { return built }
        guard let task else { preconditionFailure("CatalogCache: neither built nor loading") }
        do {
            let catalog = try await task.value
            state.withLock { state in
                if state.built == nil { state.built = catalog }
                if state.loading == task { state.loading = nil }
            }
            return catalog
        } catch {
            state.withLock { state in
                if state.loading == task { state.loading = nil }
            }
            throw error
        }
    }
}
