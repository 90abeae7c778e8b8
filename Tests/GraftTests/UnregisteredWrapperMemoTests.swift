import Testing

@testable import Graft

private final class Registered {}
private final class Unregistered {}
private final class RegisteredLater {}

/// A type resolved without a registration is remembered as no wrapper, to skip the runtime's
/// conformance lookup the next time: that memo must never change an answer. Random sequences of
/// misses, wrappers of missing and registered types, and late registrations, each answered by the
/// container that remembers and compared with a new container with the same registrations, which
/// remembers nothing.
@Suite struct UnregisteredWrapperMemoTests {
    @Test(arguments: 0..<20)
    func aRememberedMissNeverChangesAnAnswer(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let container = Container()
        var registersLater = false
        func registered(_ container: Container, later: Bool) {
            container.register(Registered.self) { _ in Registered() }
            if later { container.register(RegisteredLater.self) { _ in RegisteredLater() } }
        }
        registered(container, later: false)
        let asks: [(Container) -> String] = [
            { "\($0.resolve(Unregistered.self) != nil)" },
            { "\($0.resolve(RegisteredLater.self) != nil)" },
            { "\($0.resolve(Unregistered?.self).map { $0 != nil } as Any)" },
            { "\($0.resolve(RegisteredLater?.self).map { $0 != nil } as Any)" },
            { "\($0.resolve(Lazy<Unregistered>.self) != nil)" },
            { "\($0.resolve(Provider<RegisteredLater>.self)?.instance != nil)" },
            { "\($0.resolve(Lazy<Registered>.self)?.instance != nil)" },
            { "\($0.resolve(Registered?.self).map { $0 != nil } as Any)" },
            { "\($0.resolve(Registered.self) != nil)" },
        ]
        for step in 0..<60 {
            if !registersLater && random.below(20) == 0 {
                registersLater = true
                container.register(RegisteredLater.self) { _ in RegisteredLater() }
            }
            let ask = asks[random.below(asks.count)]
            let fresh = Container()
            registered(fresh, later: registersLater)
            #expect(ask(container) == ask(fresh), "seed \(seed), step \(step)")
        }
    }
}
