// Graft — MIT License.
import Graft
import Logging

/// The application's own objects, in the application container: the configuration, the logger, the
/// database pool and the catalog's store are app-wide singletons; the catalog itself is built by an
/// async factory on first use.
struct AppAssembly: Assembly {
    let options: Options

    func assemble(container: Container) {
        let options = options
        container.register(AppConfig.self) { _ in AppConfig(options: options) }.inObjectScope(.container)
        if !options.faults.contains(.missingRegistration) {
            container.register(Logger.self) { _ in
                var logger = Logger(label: "shop")
                logger.logLevel = .info
                return logger
            }.inObjectScope(.container)
        }
        container.register(DatabasePool.self) { r in
            let config = try r.require(AppConfig.self)
            return DatabasePool(path: config.databasePath, size: config.poolSize, logger: try r.require(Logger.self))
        }.inObjectScope(.container)
        container.register(CatalogStore.self) { r in
            CatalogStore(
                pool: try r.require(DatabasePool.self), logger: try r.require(Logger.self),
                config: try r.require(AppConfig.self))
        }.inObjectScope(.container)
        // Built once, on the first request that needs it; a load that throws is not kept, and the
        // next request builds again.
        container.registerAsync(Catalog.self) { r in try await r.require(CatalogStore.self).load() }
    }
}

/// Data access, in the application container so every feature shares it: one unit of work per
/// request (the graph scope), shared by the repositories that request makes.
struct PersistenceAssembly: Assembly {
    func assemble(container: Container) {
        container.register(UnitOfWork.self) { r in UnitOfWork(pool: try r.require(DatabasePool.self)) }
            .inObjectScope(.graph)
        container.register(AccountRepository.self) { r in AccountRepository(unitOfWork: try r.require(UnitOfWork.self))
        }
        .inObjectScope(.graph)
        container.register(OrderRepository.self) { r in OrderRepository(unitOfWork: try r.require(UnitOfWork.self)) }
            .inObjectScope(.graph)
    }
}

/// The accounts feature, in its own child of the application container.
struct AccountsAssembly: Assembly {
    func assemble(container: Container) {
        container.register(AccountService.self) { r in
            AccountService(accounts: try r.require(AccountRepository.self), logger: try r.require(Logger.self))
        }.inObjectScope(.graph)
    }
}

/// The orders feature, in its own child of the application container.
struct OrdersAssembly: Assembly {
    func assemble(container: Container) {
        container.register(OrderService.self) { r in
            OrderService(
                orders: try r.require(OrderRepository.self), accounts: try r.require(AccountRepository.self),
                unitOfWork: try r.require(UnitOfWork.self))
        }.inObjectScope(.graph)
    }
}

/// The reports feature, in its own child of the application container. Its service takes the
/// definition asked for as an argument, and its factory throws when that definition is invalid.
struct ReportsAssembly: Assembly {
    func assemble(container: Container) {
        container.register(ReportService.self) { (r: Resolver, definition: ReportDefinition) in
            try ReportService(definition: definition, orders: r.require(OrderRepository.self))
        }.inObjectScope(.graph)
    }
}
