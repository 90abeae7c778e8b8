// swift-format-ignore-file
// Each documentation example appears here line for line, as the articles show it
// (`documentationMatchesTheseExamples` checks it); reformatting would split those lines.
import Foundation
import Graft  // was: import Swinject
import GraftTesting
import Testing

// The code of every ```swift block in Documentation/ appears below, line for line (indentation
// aside), so the articles compile and run; `documentationMatchesTheseExamples` checks it.

// MARK: ThreadSafety.md

final class Config: Sendable {}
final class Database: Sendable {
    let config: Config
    init(config: Config) { self.config = config }
}

// MARK: GettingStarted.md

enum AppDependencies {
    static let shared = Container().synchronize()
}

protocol MessageStore: AnyObject {
    func save(_ message: String)
}

final class MemoryStore: MessageStore {
    private(set) var saved: [String] = []
    func save(_ message: String) { saved.append(message) }
}

final class Mailer {
    let store: MessageStore
    init(store: MessageStore) { self.store = store }
}

final class Greeting {
    let text: String
    init(name: String, excited: Bool) { text = "Hello, \(name)" + (excited ? "!" : ".") }
}

final class Outbox {
    var mailer: Mailer?
}

// MARK: ObjectScopes.md

final class UnitOfWork {}
final class Accounts {
    let work: UnitOfWork
    init(work: UnitOfWork) { self.work = work }
}
final class Ledger {
    let work: UnitOfWork
    let accounts: Accounts
    init(work: UnitOfWork, accounts: Accounts) { self.work = work; self.accounts = accounts }
}

final class Settings {}
final class Session {}
final class Cart {}

// MARK: ContainerHierarchy.md

protocol Logger: AnyObject { var label: String { get } }
final class LabelledLogger: Logger {
    let label: String
    init(label: String) { self.label = label }
}
final class Checkout {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

// MARK: Assemblies.md

protocol Clock { func now() -> Int }
struct FixedClock: Clock { func now() -> Int { 42 } }
final class Scheduler {
    let clock: Clock
    init(clock: Clock) { self.clock = clock }
}

struct CoreAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Clock.self) { _ in FixedClock() }
    }
}

struct SchedulingAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Scheduler.self) { r in Scheduler(clock: r.resolve(Clock.self)!) }
            .inObjectScope(.container)
    }

    func loaded(resolver: Resolver) {
        _ = resolver.resolve(Scheduler.self)  // start it once everything is registered
    }
}

final class Report {
    let scheduler: Scheduler
    init(scheduler: Scheduler) { self.scheduler = scheduler }
}

struct ReportingAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Report.self) { r in Report(scheduler: r.resolve(Scheduler.self)!) }
    }
}

protocol PaymentClient { func charge(_ cents: Int) -> Bool }
struct LivePaymentClient: PaymentClient { func charge(_ cents: Int) -> Bool { true } }
struct DecliningPaymentClient: PaymentClient { func charge(_ cents: Int) -> Bool { false } }
final class OrderService {
    let payments: PaymentClient
    init(payments: PaymentClient) { self.payments = payments }
}

struct SharedPaymentsAssembly: Assembly {  // applied to the application's container
    func assemble(container: Container) {
        container.register(PaymentClient.self) { _ in LivePaymentClient() }.inObjectScope(.container)
    }
}

struct OrdersAssembly: Assembly {
    func assemble(container: Container) {
        container.register(OrderService.self) { r in OrderService(payments: r.resolve(PaymentClient.self)!) }
    }
}

// MARK: Collections.md

protocol HealthCheck: AnyObject { var isHealthy: Bool { get } }
final class DatabaseCheck: HealthCheck { var isHealthy: Bool { true } }
final class CacheCheck: HealthCheck { var isHealthy: Bool { true } }
final class BillingCheck: HealthCheck { var isHealthy: Bool { false } }
final class HealthEndpoint {
    let checks: [any HealthCheck]
    init(checks: [any HealthCheck]) { self.checks = checks }
}

struct AppAssembly: Assembly {
    func assemble(container: Container) {
        container.register(HealthEndpoint.self) { r in
            try HealthEndpoint(checks: r.requireAll((any HealthCheck).self))
        }
    }
}

struct BillingContributions: Assembly {
    func assemble(container: Container) {
        container.register((any HealthCheck).self, name: "billing") { _ in BillingCheck() }
    }
}

// MARK: DiagnosingFailures.md

final class UserRepository {
    let database: Database
    init(database: Database) { self.database = database }
}
final class UserService {
    let repository: UserRepository
    init(repository: UserRepository) { self.repository = repository }
}

// MARK: SwiftConcurrency.md

protocol CheckoutAPI: Sendable {}
struct LiveCheckoutAPI: CheckoutAPI {}
struct FailingCheckoutAPI: CheckoutAPI {}
protocol Analytics: Sendable {}

final class CheckoutModel {
    @Injected var api: any CheckoutAPI
    @Injected var analytics: (any Analytics)?
}

func makeShopContainer() -> Container {
    let container = Container()
    container.register((any CheckoutAPI).self) { _ in LiveCheckoutAPI() }.inObjectScope(.container)
    return container
}

// MARK: TestingWithGraft.md (with the types above)

@Test func checkoutFailsWithoutTheTrait() {
    withResolver(makeShopContainer().synchronize()) {
        withOverrides({ $0.register((any CheckoutAPI).self) { _ in FailingCheckoutAPI() } }) {
            #expect(CheckoutModel().api is FailingCheckoutAPI)
        }
    }
}

@Test(.resolver { makeShopContainer().synchronize() },
      .overrides { $0.register((any CheckoutAPI).self) { _ in FailingCheckoutAPI() } })
func checkoutFails() {
    #expect(CheckoutModel().api is FailingCheckoutAPI)
}

@Test(.capturedLog) func aFailingCheckoutIsLogged() {
    _ = makeShopContainer().resolve(ShopDatabase.self)
    #expect(CapturedLog.current?.messages.isEmpty == false)
}

// MARK: SwiftConcurrency.md, continued

@MainActor final class ProfileViewModel {
    let api: any CheckoutAPI
    init(api: any CheckoutAPI) { self.api = api }
}

@MainActor final class ProfileScreen {
    @MainInjected var model: ProfileViewModel
}

final class ShopDatabase: Sendable {
    let api: any CheckoutAPI
    private init(api: any CheckoutAPI) { self.api = api }
    static func connect(api: any CheckoutAPI) async throws -> ShopDatabase { ShopDatabase(api: api) }
}

// MARK: CircularDependencies.md

final class Author {
    var books: [Book] = []
}
final class Book {
    let author: Author
    init(author: Author) { self.author = author }
}

final class Engine {
    let car: Car?
    init(car: Car?) { self.car = car }
}
final class Car {
    let engine: Engine?
    init(engine: Engine?) { self.engine = engine }
}

// MARK: TypeForwarding.md

protocol UserStore: AnyObject {}
protocol OrderStore: AnyObject {}
final class SQLStore: UserStore, OrderStore {}

// MARK: LazyAndProvider.md

final class Exporter {}
final class Screen {
    let exporter: Lazy<Exporter>
    let makeExporter: Provider<Exporter>
    init(exporter: Lazy<Exporter>, makeExporter: Provider<Exporter>) {
        self.exporter = exporter
        self.makeExporter = makeExporter
    }
}

// MARK: MigratingFromSwinject.md

final class Invoice {
    let total: Int
    init(total: Int) { self.total = total }
}

final class Digest {
    let mailer: Mailer
    let greeting: Greeting
    init(mailer: Mailer, greeting: Greeting) { self.mailer = mailer; self.greeting = greeting }
}

@Suite struct DocumentationExamplesTests {
    @Test func threadSafety() async {
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        container.register(Database.self) { r in Database(config: r.resolve(Config.self)!) }

        let resolver = container.synchronize()          // Sendable: safe to share with threads
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                for _ in 0..<1_000 {
                    let database = resolver.resolve(Database.self)!
                    precondition(database.config === resolver.resolve(Config.self)!)  // one Config
                }
                group.leave()
            }.start()
        }
        group.wait()
        print("8,000 resolutions, one Config")

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = resolver.resolve(Database.self) }
            }
        }
        #expect(resolver.resolve(Database.self)?.config === container.resolve(Config.self))
    }

    @Test func gettingStarted() {
        let container = Container()
        container.register(MessageStore.self) { _ in MemoryStore() }
        container.register(Mailer.self) { r in Mailer(store: r.resolve(MessageStore.self)!) }

        let mailer = container.resolve(Mailer.self)!
        #expect(mailer.store is MemoryStore)

        container.register(MessageStore.self, name: "archive") { _ in MemoryStore() }
        let archive = container.resolve(MessageStore.self, name: "archive")
        #expect(archive != nil && archive !== mailer.store)

        container.register(Greeting.self) { (_, name: String, excited: Bool) in Greeting(name: name, excited: excited) }
        let greeting = container.resolve(Greeting.self, arguments: "Ada", true)!
        // greeting.text == "Hello, Ada!"
        #expect(greeting.text == "Hello, Ada!")

        container.register(Outbox.self) { _ in Outbox() }
            .initCompleted { r, outbox in outbox.mailer = r.resolve(Mailer.self) }
        #expect(container.resolve(Outbox.self)?.mailer != nil)
    }

    @Test func objectScopes() {
        let container = Container()
        container.register(UnitOfWork.self) { _ in UnitOfWork() }  // .graph is the default
        container.register(Accounts.self) { r in Accounts(work: r.resolve(UnitOfWork.self)!) }
        container.register(Ledger.self) { r in
            Ledger(work: r.resolve(UnitOfWork.self)!, accounts: r.resolve(Accounts.self)!)
        }

        let ledger = container.resolve(Ledger.self)!
        // ledger.work === ledger.accounts.work: one UnitOfWork within the resolution
        // container.resolve(Ledger.self)!.work !== ledger.work: the next resolution makes a new one
        #expect(ledger.work === ledger.accounts.work)
        #expect(container.resolve(Ledger.self)!.work !== ledger.work)

        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let settings = container.resolve(Settings.self)!
        // container.resolve(Settings.self)! === settings
        #expect(container.resolve(Settings.self)! === settings)

        container.register(Session.self) { _ in Session() }.inObjectScope(.weak)
        var session: Session? = container.resolve(Session.self)
        // while `session` is held, resolving again returns it; once released, the next resolve makes a new one
        #expect(container.resolve(Session.self) === session)
        weak let released = session
        session = nil
        #expect(released == nil)

        container.resetObjectScope(.container, serviceType: Settings.self)
        #expect(container.resolve(Settings.self) !== settings)

        let userSession = ObjectScope(storageFactory: PermanentStorage.init, description: "userSession")
        container.register(Cart.self) { _ in Cart() }.inObjectScope(userSession)
        let cart = container.resolve(Cart.self)!
        // the same cart until the user logs out:
        #expect(container.resolve(Cart.self) === cart)
        container.resetObjectScope(userSession)
        #expect(container.resolve(Cart.self) !== cart)
    }

    @Test func containerHierarchy() {
        let app = Container()
        app.register(Logger.self) { _ in LabelledLogger(label: "app") }.inObjectScope(.container)
        app.register(Checkout.self) { r in Checkout(logger: r.resolve(Logger.self)!) }

        let checkoutFeature = Container(parent: app)
        checkoutFeature.register(Logger.self) { _ in LabelledLogger(label: "checkout") }

        let inFeature = checkoutFeature.resolve(Checkout.self)!  // inFeature.logger.label == "checkout"
        let inApp = app.resolve(Checkout.self)!                  // inApp.logger.label == "app"
        #expect(inFeature.logger.label == "checkout")
        #expect(inApp.logger.label == "app")
    }

    @Test func assemblies() {
        let assembler = ContainerAssembler([SchedulingAssembly(), CoreAssembly()])
        let scheduler = assembler.resolver.resolve(Scheduler.self)!
        #expect(scheduler.clock.now() == 42)

        let reporting = ContainerAssembler([ReportingAssembly()], parent: assembler)
        let report = reporting.resolver.resolve(Report.self)!  // uses the application's Scheduler
        #expect(report.scheduler === scheduler)
    }

    @Test func featureUsingAnotherFeaturesServices() {
        let application = ContainerAssembler([SharedPaymentsAssembly()])
        let orders = ContainerAssembler([OrdersAssembly()], parent: application)
        #expect(orders.resolver.resolve(OrderService.self)?.payments.charge(100) == true)

        let ordersResolver = (orders.resolver as! Container).synchronize()
        withResolver(ordersResolver) {
            withOverrides({ $0.register(PaymentClient.self) { _ in DecliningPaymentClient() } }) {
                let service = SynchronizedResolver.current.resolve(OrderService.self)!
                // service.payments is the DecliningPaymentClient: OrderService resolved it through `r`
                #expect(service.payments is DecliningPaymentClient)
            }
        }

        // Through a payments container the orders registration captured, the override does not reach.
        let payments = Container(parent: application.resolver as? Container)
        payments.register(PaymentClient.self) { _ in LivePaymentClient() }
        let capturing = Container(parent: application.resolver as? Container)
        capturing.register(OrderService.self) { _ in OrderService(payments: payments.resolve(PaymentClient.self)!) }
        withResolver(capturing.synchronize()) {
            withOverrides({ $0.register(PaymentClient.self) { _ in DecliningPaymentClient() } }) {
                #expect(SynchronizedResolver.current.resolve(OrderService.self)?.payments is LivePaymentClient)
            }
        }
    }

    @Test func circularDependencies() {
        let container = Container()
        container.register(Author.self) { _ in Author() }
            .initCompleted { r, author in author.books = [r.resolve(Book.self)!] }
        container.register(Book.self) { r in Book(author: r.resolve(Author.self)!) }

        let author = container.resolve(Author.self)!
        // author.books[0].author === author
        #expect(author.books[0].author === author)

        container.register(Engine.self) { r in Engine(car: try r.require(Car.self)) }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }

        let car = container.resolve(Car.self)
        // car == nil, and the log says: "Graft: circular dependency: Car -> Engine -> Car. ..."
        #expect(car == nil)

        container.register(Engine.self) { r in Engine(car: r.resolve(Car.self)) }
        let throughOptional = container.resolve(Car.self)
        // throughOptional == nil: a cycle fails the whole request, whatever the factories do with `nil`
        #expect(throughOptional == nil)
        #expect(container.resolve(Author.self) != nil)
    }

    @Test func typeForwarding() {
        let container = Container()
        container.register(SQLStore.self) { _ in SQLStore() }
            .inObjectScope(.container)
            .implements(UserStore.self, OrderStore.self)

        let users = container.resolve(UserStore.self)!
        let orders = container.resolve(OrderStore.self)!
        // users === orders === container.resolve(SQLStore.self)!
        #expect(users === orders)
        #expect(orders === container.resolve(SQLStore.self)!)
    }

    @Test func lazyAndProvider() {
        let container = Container()
        container.register(Exporter.self) { _ in Exporter() }
        container.register(Screen.self) { r in
            Screen(exporter: r.resolve(Lazy<Exporter>.self)!, makeExporter: r.resolve(Provider<Exporter>.self)!)
        }

        let screen = container.resolve(Screen.self)!   // no Exporter made yet
        let exporter = screen.exporter.instance        // made now; the same one on every later access
        let fresh = screen.makeExporter.instance       // a new resolution on every access
        #expect(screen.exporter.instance === exporter)
        #expect(fresh !== exporter)
    }

    @Test func migratingFromSwinject() {
        let container = Container()
        container.register(Invoice.self) { (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int) in
            Invoice(total: a + b + c + d + e + f + g + h + i + j)
        }
        let invoice = container.resolve(Invoice.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)!
        // invoice.total == 55
        #expect(invoice.total == 55)
    }

    @Test func usingSwinjectAutoregistration() {
        let container = Container()
        container.register(MessageStore.self) { _ in MemoryStore() }.inObjectScope(.container)
        container.autoregister(Mailer.self, initializer: Mailer.init)  // resolves its MessageStore
        container.autoregister(Greeting.self, arguments: Bool.self, String.self, initializer: Greeting.init)
        container.register(Digest.self) { r in Digest(mailer: r~>, greeting: r ~> (Greeting.self, arguments: (true, "Ada"))) }

        let digest = container.resolve(Digest.self)!
        // digest.greeting.text == "Hello, Ada!"
        #expect(digest.greeting.text == "Hello, Ada!")
        #expect(digest.mailer.store === container.resolve(MessageStore.self))
    }

    // MARK: DiagnosingFailures.md

    @Test func diagnosingFailures() throws {
        let container = Container()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        container.register(Database.self, name: "primary") { _ in Database(config: Config()) }
        container.register(UserRepository.self) { r in try UserRepository(database: r.require(Database.self)) }
        container.register(UserService.self) { r in try UserService(repository: r.require(UserRepository.self)) }

        do {
            _ = try container.require(UserService.self)
        } catch {
            print("reason:", error.reason)
            print("path:", error.path)
            print(error)
        }
        #expect(printed[0] == "reason: not registered")
        #expect(printed[1] == "path: [\"UserService\", \"UserRepository\", \"Database\"]")
        #expect(printed[2].hasSuffix("Path: UserService -> UserRepository -> Database"))
    }

    @Test func applicationAssemblyIsValid() {
        let container = Container()
        let assembler = ContainerAssembler(container: container)
        assembler.apply(assemblies: [CoreAssembly(), SchedulingAssembly(), ReportingAssembly()])

        let report = container.validate()
        #expect(report.isValid, "\(report)")
    }

    @Test func forceUnwrapDuringValidationIsExplainedFirst() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.loggingFunction = nil
            let container = Container()
            container.register(Database.self, name: "primary") { _ in Database(config: Config()) }
            // Every failure in the report: `require` throws, and validation goes on.
            container.register(UserRepository.self) { r in try UserRepository(database: r.require(Database.self)) }
            precondition(container.validate().failures.map(\.path) == [["UserRepository", "Database"]])
            // The first failure stops the process, its reason written just before the stop.
            container.register(UserRepository.self) { r in UserRepository(database: r.resolve(Database.self)!) }
            _ = container.validate()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            stderr.hasPrefix(
                """
                Graft: resolution failed: no registration of Database taking no arguments.
                Registrations of Database that exist:
                    { Service: Database, Name: "primary", Factory: Resolver -> Database, ObjectScope: graph } in this container
                Path: UserRepository -> Database
                """))
        #if DEBUG  // optimized builds trap on a force unwrap without printing its message
            #expect(stderr.contains("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #endif
    }

    @Test func inspectingRegistrations() {
        let container = Container()
        container.register(Database.self) { _ in Database(config: Config()) }
        var neverResolved: [String] = []
        func print(_ items: Any...) { neverResolved.append(items.map { "\($0)" }.joined(separator: " ")) }
        for info in container.registrations where info.resolutionCount == 0 {
            print("never resolved:", info.serviceType, info.name ?? "")
        }
        #expect(neverResolved == ["never resolved: Database "])
    }

    // MARK: SwiftConcurrency.md

    @Test func bootstrapInItsOwnProcess() async {
        await #expect(processExitsWith: .success) {
            let container = makeShopContainer()
            SynchronizedResolver.bootstrap(container.synchronize())   // once, at start-up
            precondition(SynchronizedResolver.current.resolve((any CheckoutAPI).self) is LiveCheckoutAPI)
        }
    }

    @Test func bindingAResolverToATask() async {
        let container = makeShopContainer()
        await withResolver(container.synchronize()) {
            let api = SynchronizedResolver.current.resolve((any CheckoutAPI).self)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = SynchronizedResolver.current.resolve((any CheckoutAPI).self) }  // inherited
            }
            #expect(api is LiveCheckoutAPI)
        }
        let done = DispatchSemaphore(value: 0)
        withResolver(container.synchronize()) {
            withEscapedResolver { escaped in
                DispatchQueue.global().async {
                    escaped.yield { _ = SynchronizedResolver.current.resolve((any CheckoutAPI).self) }
                    done.signal()
                }
            }
        }
        done.wait()
    }

    @Test func injectedCapturedWhenTheObjectIsMade() {
        withResolver(makeShopContainer().synchronize()) {
            let model = withOverrides({ $0.register((any CheckoutAPI).self) { _ in FailingCheckoutAPI() } }) {
                CheckoutModel()
            }
            let api = model.api   // FailingCheckoutAPI, after the scope has ended
            #expect(api is FailingCheckoutAPI)
            #expect(model.analytics == nil)
        }
    }

    @MainActor @Test func mainActorServices() {
        let container = makeShopContainer()
        container.registerMain(ProfileViewModel.self) { r in ProfileViewModel(api: r.resolve((any CheckoutAPI).self)!) }
            .inObjectScope(.container)   // one view model per container
        let resolver = container.synchronize()

        @MainActor func showProfile() {
            let model = resolver.resolveMain(ProfileViewModel.self)
            #expect(model?.api is LiveCheckoutAPI)
        }
        showProfile()
        let screen = withResolver(resolver) { ProfileScreen() }
        #expect(screen.model === resolver.resolveMain(ProfileViewModel.self))
    }

    @Test func asyncServices() async throws {
        let container = makeShopContainer()
        let resolver = container.synchronize()
        container.registerAsync(ShopDatabase.self) { r in
            try await ShopDatabase.connect(api: r.require((any CheckoutAPI).self))
        }
        let database = try await resolver.resolveAsync(ShopDatabase.self)
        #expect(database.api is LiveCheckoutAPI)
    }

    /// GettingStarted.md: the app's container kept as a `static let`, at the view's type.
    @Test func oneContainerForTheWholeApp() {
        AppDependencies.shared.register(Mailer.self) { _ in Mailer(store: MemoryStore()) }
        let shared = AppDependencies.shared.resolve(Mailer.self)
        #expect(shared?.store is MemoryStore)
    }

    /// ThreadSafety.md: a registration published whole, with its settings, while the view is shared.
    @Test func aRegistrationPublishedWhole() {
        final class Settings { var ready = false }
        let view = Container().synchronize()      // workers resolve Settings through it meanwhile
        view.registerAtomically { container in    // a configuration reload
            container.register(Settings.self) { _ in Settings() }
                .inObjectScope(.container)
                .initCompleted { _, settings in settings.ready = true }
        }
        #expect(view.resolve(Settings.self)?.ready == true)
    }

    /// Autoregistration.md: initializers registered, arguments and `~>`.
    @Test func autoregisteredForecast() {
        final class Thermometer { init() {} }
        final class Forecast {
            let city: String
            init(city: String, thermometer: Thermometer) { self.city = city }
        }
        final class Dashboard {
            let forecast: Forecast
            init(forecast: Forecast) { self.forecast = forecast }
        }
        let container = Container()
        container.autoregister(Thermometer.self, initializer: Thermometer.init)
        container.autoregister(Forecast.self, argument: String.self, initializer: Forecast.init(city:thermometer:))
        container.register(Dashboard.self) { r in Dashboard(forecast: r ~> (Forecast.self, argument: "Oslo")) }

        let forecast = container.resolve(Forecast.self, argument: "Lima")   // its Thermometer resolved
        #expect(forecast?.city == "Lima")
        #expect(container.resolve(Dashboard.self)?.forecast.city == "Oslo")
    }

    /// DiagnosingFailures.md: a registration with arguments validated with a sample.
    @Test func validationWithASample() {
        struct Invoice { let number: Int }
        final class InvoiceHandler { init(invoice: Invoice, clock: Clock) {} }
        let container = Container()
        container.register(Clock.self) { _ in FixedClock() }
        container.register(InvoiceHandler.self) { (r, invoice: Invoice) in
            InvoiceHandler(invoice: invoice, clock: r.resolve(Clock.self)!)
        }
        let report = container.validate(samples: [
            ValidationSample(InvoiceHandler.self, argument: Invoice(number: 1)),
        ])
        #expect(report.isValid, "\(report)")
        #expect(report.skipped.isEmpty)
    }

    /// Collections.md: contributions under names, one consumer taking them all.
    @Test func healthChecksCollected() throws {
        let container = Container()
        container.register((any HealthCheck).self, name: "database") { _ in DatabaseCheck() }
        container.register((any HealthCheck).self, name: "cache") { _ in CacheCheck() }
        container.register(HealthEndpoint.self) { r in
            try HealthEndpoint(checks: r.requireAll((any HealthCheck).self))
        }
        let endpoint = try container.require(HealthEndpoint.self)
        #expect(endpoint.checks.map { $0 is DatabaseCheck } == [true, false])

        container.autoregister(HealthEndpoint.self, initializer: HealthEndpoint.init(checks:))
        #expect(container.resolve(HealthEndpoint.self)?.checks.count == 2)
    }

    /// Collections.md: a feature's contributions applied to the container the consumer resolves from.
    @Test func aFeatureContributesToTheAppsCollection() {
        let app = Container()
        ContainerAssembler(container: app).apply(assemblies: [AppAssembly(), BillingContributions()])
        let billing = Container(parent: app)    // the feature's own services
        #expect(app.resolve(HealthEndpoint.self)?.checks.first is BillingCheck)
        #expect(billing.resolveAll((any HealthCheck).self)?.count == 1)
    }

    /// Every line of every ```swift block in Documentation/ appears, in order, in this file.
    @Test func documentationMatchesTheseExamples() throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let root = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let examples = try String(contentsOf: thisFile, encoding: .utf8)
            .split(separator: "\n").map { normalized(String($0)) }
        let folder = root.appendingPathComponent("Documentation")
        let articles = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }
        #expect(articles.count >= 9)
        for article in articles {
            let text = try String(contentsOf: folder.appendingPathComponent(article), encoding: .utf8)
            for block in swiftBlocks(in: text) {
                var position = examples.startIndex
                for line in block {
                    guard let found = examples[position...].firstIndex(of: line) else {
                        Issue.record("\(article): this line of a swift block is not exercised here: \(line)")
                        break
                    }
                    position = found + 1
                }
            }
        }
    }

    private func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if !trimmed.isEmpty {
                current?.append(normalized(trimmed))
            }
        }
        return blocks
    }

    /// Trimmed, and without a trailing `// comment` on a line of code.
    private func normalized(_ line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("//"), let comment = trimmed.range(of: "  //") else { return trimmed }
        return trimmed[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
    }
}
