import Foundation
import Graft
import Testing

/// Runs the examples of Documentation/ so they cannot drift from the API.
@Suite struct DocumentationExamplesTests {
    final class Config: Sendable {}
    final class Database: Sendable {
        let config: Config
        init(config: Config) { self.config = config }
    }

    @Test func threadSafetyExample() async {
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        container.register(Database.self) { r in Database(config: r.resolve(Config.self)!) }

        let resolver = container.synchronize()
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                for _ in 0..<1_000 {
                    let database = resolver.resolve(Database.self)!
                    precondition(database.config === resolver.resolve(Config.self)!)
                }
                group.leave()
            }.start()
        }
        group.wait()

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = resolver.resolve(Database.self) }
            }
        }
        #expect(resolver.resolve(Database.self)?.config === container.resolve(Config.self))
    }
}
