import Graft

// Services that the task-local resolver, `@Injected` and `withOverrides` tests resolve.

final class Beacon: Sendable {}
final class Ticker: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}
final class Stream: Sendable {
    let clock: Ticker
    init(clock: Ticker) { self.clock = clock }
}

/// A container whose `Ticker` answers `id`, as a `.container` singleton, and a `Stream` using it.
func clockContainer(clock id: Int) -> Container {
    let container = Container()
    container.register(Ticker.self) { _ in Ticker(id: id) }.inObjectScope(.container)
    container.register(Stream.self) { r in Stream(clock: r.resolve(Ticker.self)!) }.inObjectScope(.container)
    return container
}
