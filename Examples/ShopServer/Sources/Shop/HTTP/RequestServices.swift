// Graft — MIT License.
import Logging

/// What the handlers ask for: app-wide objects, and a request's services made for it. The one
/// seam between the handlers and the wiring: Graft's (`GraftServices`) or the hand-written one
/// (`HandWiredServices`).
protocol RequestServices: Sendable {
    /// The app-wide configuration.
    var config: AppConfig { get }
    /// The app-wide logger.
    var logger: Logger { get }
    /// The accounts feature's service, made for this request.
    func accounts() throws -> AccountService
    /// The orders feature's service, made for this request.
    func orders() throws -> OrderService
    /// The report made from `definition`, for this request; throws when it cannot be made.
    func report(_ definition: ReportDefinition) throws -> ReportService
    /// The catalog: loaded on first use, then the same one; a failed load is tried again next time.
    func catalog() async throws -> Catalog
}
