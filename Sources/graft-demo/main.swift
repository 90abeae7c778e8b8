// Graft — MIT License.
// Assembles a small service graph, resolves it from 8 worker threads, reports what was built, then
// resolves an async service from 100 tasks (built once), validates one feature's container and
// writes its dependency graph to graph.dot.
import Foundation
import Graft

/// Counts instances made per kind, from any thread.
final class Census: @unchecked Sendable {  // `counts` is only touched under `lock`
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func made(_ kind: String) {
        lock.lock()
        counts[kind, default: 0] += 1
        lock.unlock()
    }

    var snapshot: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}

let census = Census()

// The services share one shape on purpose: each holds its dependencies and counts itself in the census.
final class AppConfig: Sendable {
    let databaseURL = "postgres://localhost/graft"
    init() { census.made("AppConfig") }
}

final class Logger: Sendable {
    let label: String
    init(label: String) {
        self.label = label
        census.made("Logger(\(label))")
    }
}

final class DatabaseClient: Sendable {
    let config: AppConfig
    let logger: Logger
    init(config: AppConfig, logger: Logger) {
        self.config = config
        self.logger = logger
        census.made("DatabaseClient")
    }
}

final class UnitOfWork: Sendable {
    let database: DatabaseClient
    init(database: DatabaseClient) {
        self.database = database
        census.made("UnitOfWork")
    }
}

final class UserRepository: Sendable {
    let unitOfWork: UnitOfWork
    let logger: Logger
    init(unitOfWork: UnitOfWork, logger: Logger) {
        self.unitOfWork = unitOfWork
        self.logger = logger
        census.made("UserRepository")
    }
}

final class OrderRepository: Sendable {
    let unitOfWork: UnitOfWork
    let users: UserRepository
    init(unitOfWork: UnitOfWork, users: UserRepository) {
        self.unitOfWork = unitOfWork
        self.users = users
        census.made("OrderRepository")
    }
}

// The application's container: shared infrastructure.
let app = Container()
app.register(AppConfig.self) { _ in AppConfig() }.inObjectScope(.container)
app.register(Logger.self) { _ in Logger(label: "app") }.inObjectScope(.container)
app.register(DatabaseClient.self) { r in
    DatabaseClient(config: r.resolve(AppConfig.self)!, logger: r.resolve(Logger.self)!)
}.inObjectScope(.container)
app.register(UnitOfWork.self) { r in UnitOfWork(database: r.resolve(DatabaseClient.self)!) }  // graph
app.register(UserRepository.self) { r in
    UserRepository(unitOfWork: r.resolve(UnitOfWork.self)!, logger: r.resolve(Logger.self)!)
}.inObjectScope(.transient)
app.register(OrderRepository.self) { r in
    OrderRepository(unitOfWork: r.resolve(UnitOfWork.self)!, users: r.resolve(UserRepository.self)!)
}.inObjectScope(.transient)

// One child container per feature, each overriding the logger with its own.
let features = ["checkout", "accounts"].map { name in
    (
        name,
        Container(parent: app) { feature in
            feature.register(Logger.self) { _ in Logger(label: name) }.inObjectScope(.container)
        }
    )
}

print("Registrations in the application container:")
print(app)
for (name, feature) in features {
    print("Feature '\(name)' overrides:")
    print(feature)
}

let resolvers = [app.synchronize()] + features.map { $0.1.synchronize() }
let threads = 8
let perThread = 2_500
let mismatches = Census()
let group = DispatchGroup()
for thread in 0..<threads {
    group.enter()
    Thread {
        let resolver = resolvers[thread % resolvers.count]
        for _ in 0..<perThread {
            let orders = resolver.resolve(OrderRepository.self)!
            if orders.unitOfWork !== orders.users.unitOfWork { mismatches.made("graph not shared") }
        }
        group.leave()
    }.start()
}
group.wait()

let counts = census.snapshot
let resolutions = threads * perThread
print("\nResolved OrderRepository \(resolutions) times from \(threads) threads through synchronize().")
print("Instances created, by type:")
for (kind, count) in counts.sorted(by: { $0.key < $1.key }) {
    print("  \(kind.padding(toLength: 20, withPad: " ", startingAt: 0)) \(count)")
}
let scopes = [
    ("container", ["AppConfig", "DatabaseClient", "Logger(app)", "Logger(checkout)", "Logger(accounts)"]),
    ("graph", ["UnitOfWork"]),
    ("transient", ["UserRepository", "OrderRepository"]),
]
print("Instances created, by scope:")
for (scope, kinds) in scopes {
    print(
        "  \(scope.padding(toLength: 20, withPad: " ", startingAt: 0)) \(kinds.map { counts[$0, default: 0] }.reduce(0, +))"
    )
}
let singletons = scopes[0].1
let onceEach = singletons.allSatisfy { counts[$0] == 1 }
print("Container-scoped services created exactly once each: \(onceEach ? "yes" : "NO")")
print("Each resolution shared one UnitOfWork across its graph: \(mismatches.snapshot.isEmpty ? "yes" : "NO")")

// An async service: a connection opened with `await`, resolved by 100 tasks at once, built once.
final class PaymentGateway: Sendable {
    let url: String
    private init(url: String) {
        self.url = url
        census.made("PaymentGateway")
    }
    static func connect(config: AppConfig) async -> PaymentGateway {
        await Task.yield()  // stands for the handshake
        return PaymentGateway(url: config.databaseURL)
    }
}
app.registerAsync(PaymentGateway.self) { r in await PaymentGateway.connect(config: r.resolve(AppConfig.self)!) }
let asyncResolver = app.synchronize()
let gateways = await withTaskGroup(of: ObjectIdentifier?.self) { group in
    for _ in 0..<100 {
        group.addTask { (try? await asyncResolver.resolveAsync(PaymentGateway.self)).map(ObjectIdentifier.init) }
    }
    var seen = Set<ObjectIdentifier?>()
    for await identity in group { seen.insert(identity) }
    return seen
}
let gatewayBuilds = census.snapshot["PaymentGateway", default: 0]
print(
    "\nResolved the async PaymentGateway from 100 tasks: built \(gatewayBuilds) time(s), \(gateways.count) instance(s)."
)
let asyncOnce = gatewayBuilds == 1 && gateways.count == 1 && !gateways.contains(nil)

// Validation of one feature's container: every registration resolved once, in a throwaway graph
// (after the counts above: validation runs the factories), then the graph it observed.
let (featureName, feature) = features[0]
let report = feature.validate()
print("\nValidation of feature '\(featureName)':")
// The feature overrides Logger on purpose, to show the warning validation gives for it: said
// before the report, so that a reader does not take it for a fault of the demo.
print(
    "(Expected: the WARNING \"parent captures child\" below is this demo's deliberate example. The feature "
        + "registers its own Logger, and DatabaseClient, a singleton of the application container, is made "
        + "with it when resolved through the feature.)")
print(report)
print("\nDependency graph:")
print(report.graph)
let dotPath = "graph.dot"
do {
    try report.graph.dot.write(toFile: dotPath, atomically: true, encoding: .utf8)
    print("\nWrote \(dotPath); draw it with: dot -Tsvg \(dotPath) -o graph.svg")
} catch {
    print("\nCould not write \(dotPath): \(error)")
}
exit(onceEach && mismatches.snapshot.isEmpty && asyncOnce && report.isValid ? 0 : 1)
