// Graft — MIT License.
import Graft
import Hummingbird
import Logging

/// The server wired by Graft. The application container holds the app-wide objects and data
/// access; each feature's assembly is applied to a child of it. At start-up the server validates
/// every feature's container and refuses to serve if one is broken, then captures one synchronized
/// view per feature. A request gets its services with the feature's view bound (`withResolver`),
/// and resolves through it (`@Injected`, `require`); the catalog comes through the application
/// container's view (`resolveAsync`).
struct GraftServer {
    let app = Container()
    let accounts: Container
    let orders: Container
    let reports: Container

    init(options: Options) {
        _ = ContainerAssembler([AppAssembly(options: options), PersistenceAssembly()], container: app)
        accounts = Self.feature(AccountsAssembly(), parent: app)
        orders = Self.feature(OrdersAssembly(), parent: app)
        reports = Self.feature(ReportsAssembly(), parent: app)
    }

    /// A child of `parent` with `assembly` applied.
    private static func feature(_ assembly: any Assembly, parent: Container) -> Container {
        let feature = Container(parent: parent)
        _ = ContainerAssembler([assembly], container: feature)
        return feature
    }

    var features: [(name: String, container: Container)] {
        [("accounts", accounts), ("orders", orders), ("reports", reports)]
    }

    /// Every feature's validation report (each covers the application container too). The reports
    /// feature's service takes the definition asked for: it is validated with a sample one.
    func validate() -> [(name: String, report: ValidationReport)] {
        let reportSample = ValidationSample(
            ReportService.self, argument: ReportDefinition(name: "sample", windowDays: 7))
        return features.map { name, container in
            (name, container.validate(samples: name == "reports" ? [reportSample] : []))
        }
    }

    /// The validation reports and dependency graphs, as `--print-graph` prints them.
    static func describe(_ reports: [(name: String, report: ValidationReport)]) -> String {
        reports.map { name, report in
            "Feature '\(name)':\n\(report)\nDependency graph:\n\(report.graph)"
        }.joined(separator: "\n\n")
    }

    func run(options: Options) async throws {
        // Graft's diagnostics join the server's log, at debug level: each failure they describe
        // reaches the log anyway, in the validation report or in the handler's error.
        let diagnostics = Logger(label: "graft")
        Container.loggingFunction = { message in diagnostics.debug("\(message)") }
        let validation = validate()
        if options.printGraph {
            print(Self.describe(validation))
            return
        }
        guard validation.allSatisfy(\.report.isValid) else {
            printError(Self.describe(validation.filter { !$0.report.isValid }))
            throw StartupError(message: "the dependency graph is broken; refusing to serve")
        }

        // Start-up: the app-wide objects, through the application container's synchronized view.
        let appView = app.synchronize()
        let services = try self.services()
        let logger = services.logger
        let pool = try appView.require(DatabasePool.self)
        try await prepareDatabase(pool, logger: logger)

        let routes = ShopRoutes(logger: logger)
        Routes.addAll(to: routes, services: services)
        routes.get("admin/registrations") { _, _ in Self.registrationCounts(appView) }

        try await serve(routes: routes, options: options, logger: logger)
        await pool.close()
    }

    /// What the handlers get their services from: the app-wide objects they keep, and one
    /// synchronized view per feature, captured once.
    func services() throws -> GraftServices {
        let appView = app.synchronize()
        return GraftServices(
            config: try appView.require(AppConfig.self), logger: try appView.require(Logger.self),
            appView: appView, accountsView: accounts.synchronize(), ordersView: orders.synchronize(),
            reportsView: reports.synchronize())
    }

    /// The application container's singletons with how many instances each factory made, and the
    /// catalog's builds; what the load test checks (one instance each).
    static func registrationCounts(_ appView: SynchronizedResolver) -> String {
        var lines: [String] = []
        for info in appView.registrations
        where info.containerLevel == 0 && info.objectScope === ObjectScope.container {
            lines.append(
                "\(info.serviceType) container instances=\(info.instanceCount) resolutions=\(info.resolutionCount)")
        }
        if let store = appView.resolve(CatalogStore.self) {
            let counts = store.counts
            lines.append("Catalog async instances=\(counts.loads) attempts=\(counts.attempts)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// How the handlers get their services through Graft: each request binds its feature's view
/// (`withResolver`) while its services are made, so `@Injected` and `SynchronizedResolver.current`
/// resolve there.
struct GraftServices: RequestServices {
    let config: AppConfig
    let logger: Logger
    let appView: SynchronizedResolver
    let accountsView: SynchronizedResolver
    let ordersView: SynchronizedResolver
    let reportsView: SynchronizedResolver

    // The feature's graph is validated at start-up, so these resolve (a failure would stop the
    // server with the reason, as `@Injected` does).
    func accounts() -> AccountService { withResolver(accountsView) { AccountsRequest().service } }
    func orders() -> OrderService { withResolver(ordersView) { OrdersRequest().service } }

    // Its factory may throw (a definition the configuration got wrong): `require` says why.
    func report(_ definition: ReportDefinition) throws -> ReportService {
        try withResolver(reportsView) {
            try SynchronizedResolver.current.require(ReportService.self, argument: definition)
        }
    }

    func catalog() async throws -> Catalog {
        try await appView.resolveAsync(Catalog.self)
    }
}

/// A request of the accounts feature: its service, resolved through the resolver bound to the request.
struct AccountsRequest {
    @Injected var service: AccountService
}

/// A request of the orders feature: its service, resolved through the resolver bound to the request.
struct OrdersRequest {
    @Injected var service: OrderService
}
