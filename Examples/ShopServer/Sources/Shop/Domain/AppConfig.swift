// Graft — MIT License.

/// The application's settings: one instance, made from the command line at start-up.
final class AppConfig: Sendable {
    let databasePath: String
    let poolSize: Int
    /// How many of the catalog's first loads fail (a fault the load test switches on).
    let catalogLoadFailures: Int
    /// The reports `GET /reports/:name` serves, by name.
    let reports: [String: ReportDefinition]

    init(options: Options) {
        databasePath = options.databasePath
        poolSize = options.poolSize
        catalogLoadFailures = options.faults.contains(.catalogFirstBuild) ? 1 : 0
        var reports = [
            "daily": ReportDefinition(name: "daily", windowDays: 1),
            "weekly": ReportDefinition(name: "weekly", windowDays: 7),
        ]
        if options.faults.contains(.brokenReport) {
            reports["broken"] = ReportDefinition(name: "broken", windowDays: 0)
        }
        self.reports = reports
    }
}

/// A report over the orders of the last `windowDays` days.
struct ReportDefinition: Sendable {
    var name: String
    var windowDays: Int
}
