import Graft
import GraftTesting
import Testing

private protocol Companion: AnyObject {}
private final class Kitten: Companion {
    let name: String
    init(name: String = "Mimi") { self.name = name }
}
private final class Bowl {}
private final class Keeper {
    let pet: Companion
    let bowl: Bowl
    init(pet: Companion, bowl: Bowl) {
        self.pet = pet
        self.bowl = bowl
    }
}
private final class Tag {
    let text: String
    init(text: String) { self.text = text }
}
private final class Sum {
    let total: Int
    init(total: Int) { self.total = total }
}
private final class Wanderer {}
private final class Gate {
    let wanderer: Wanderer
    init(wanderer: Wanderer) { self.wanderer = wanderer }
}
private final class SendableWanderer: Sendable {}
private final class SendableGate: Sendable {
    let wanderer: SendableWanderer
    init(wanderer: SendableWanderer) { self.wanderer = wanderer }
}
private final class Yard {
    let gate: Gate
    init(gate: Gate) { self.gate = gate }
}

private func makeContainer() -> Container {
    let container = Container()
    container.register(Companion.self) { _ in Kitten() }
    container.register(Companion.self, name: "named") { _ in Kitten(name: "Named") }
    container.register(Bowl.self) { _ in Bowl() }.inObjectScope(.container)
    container.register(Tag.self) { _, text in Tag(text: text) }
    container.register(Tag.self, name: "loud") { (_, text: String) in Tag(text: text.uppercased()) }
    container.register(Tag.self) { (_, text: String, count: Int) in Tag(text: String(repeating: text, count: count)) }
    container.register(Tag.self, name: "loud") { (_, text: String, count: Int) in
        Tag(text: String(repeating: text.uppercased(), count: count))
    }
    container.register(Sum.self) {
        (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int) in
        Sum(total: a + b + c + d + e + f + g + h + i + j)
    }
    return container
}

@Suite(.capturedLog) struct ResolverOperatorTests {
    @Test func postfixOperatorResolvesTheParameterType() throws {
        let container = makeContainer()
        container.register(Keeper.self) { r in Keeper(pet: r~>, bowl: r~>) }

        let keeper = try #require(container.resolve(Keeper.self))

        #expect(keeper.bowl === container.resolve(Bowl.self))
        #expect((keeper.pet as? Kitten)?.name == "Mimi")
    }

    @Test func infixOperatorResolvesATypeOrANamedRegistration() {
        let container = makeContainer()

        let pet = container ~> Companion.self
        let named = container ~> (Companion.self, name: "named")

        #expect((pet as? Kitten)?.name == "Mimi")
        #expect((named as? Kitten)?.name == "Named")
    }

    @Test func infixOperatorPassesArguments() {
        let container = makeContainer()

        #expect((container ~> (Tag.self, argument: "a")).text == "a")
        #expect((container ~> (Tag.self, name: "loud", argument: "a")).text == "A")
        #expect((container ~> (Tag.self, arguments: ("ab", 2))).text == "abab")
        #expect((container ~> (Tag.self, name: "loud", arguments: ("ab", 2))).text == "ABAB")
        #expect((container ~> (Sum.self, arguments: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10))).total == 55)
    }

    @Test func operatorsWorkThroughAnyResolver() {
        let container = makeContainer()
        // A resolver of its own as well: the operators take any `Resolver`.
        let resolvers: [any Resolver] = [container, container.synchronize(), PackForwarder(base: container)]

        for resolver in resolvers {
            let bowl: Bowl = resolver~>
            #expect(bowl === container.resolve(Bowl.self))
            #expect(((resolver ~> (Companion.self, name: "named")) as? Kitten)?.name == "Named")
            #expect((resolver ~> (Tag.self, arguments: ("x", 3))).text == "xxx")
        }
    }

    @Test func operatorsInsideAFactoryOfASynchronizedView() async {
        let container = makeContainer()
        let resolver = container.synchronize()
        resolver.register(Keeper.self) { r in Keeper(pet: r ~> (Companion.self, name: "named"), bowl: r~>) }

        let bowls = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { resolver.resolve(Keeper.self)?.bowl === resolver.resolve(Bowl.self) }
            }
            var results: [Bool] = []
            for await result in group { results.append(result) }
            return results
        }

        #expect(bowls == Array(repeating: true, count: 8))
    }

    @Test func optionalTypeIsNilWhenItsWrappedTypeIsMissing() {
        let container = makeContainer()

        let wanderer: Wanderer? = container~>
        let bowl: Bowl? = container~>

        #expect(wanderer == nil)
        #expect(bowl != nil)
        #expect((container ~> Wanderer?.self) == nil)
    }

    @Test func optionalTypeWithANameOrArgumentsIsNilWhenItsRegistrationIsMissing() {
        let log = LogCapture()
        let container = makeContainer()

        let named = container ~> (Companion?.self, name: "named")
        let unnamed = container ~> (Companion?.self, name: "stray")
        let tagged = container ~> (Tag?.self, argument: "a")
        let counted: Tag! = container ~> (Tag?.self, arguments: ("a", 2))
        let mistyped = container ~> (Tag?.self, name: "stray", argument: 1)

        #expect((named as? Kitten)?.name == "Named")
        #expect(unnamed == nil)
        #expect(tagged?.text == "a")
        #expect(counted.text == "aa")
        #expect(mistyped == nil)
        #expect(log.messages(mentioning: "stray").isEmpty)  // an absent optional is not a failure
    }

    @Test func validationSeesWhatTheOperatorsResolve() {
        let container = makeContainer()
        container.register(Keeper.self) { r in Keeper(pet: r ~> (Companion.self, name: "named"), bowl: r~>) }

        let report = container.validate()

        #expect(report.isValid)
        let keeper = report.graph.nodes.first { $0.serviceType == "Keeper" }?.id
        let requested = Set(report.graph.edges.filter { $0.from == keeper && $0.to != nil }.map(\.requested))
        #expect(requested == ["Bowl", "Companion (name: \"named\")"])
    }

    @Test func unresolvableDependencyStopsNamingItAndTheServiceBeingMade() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Gate.self) { r in Gate(wanderer: r~>) }
            container.register(Yard.self) { r in Yard(gate: r ~> Gate.self) }
            _ = container.resolve(Yard.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("r~> could not resolve Wanderer while making Gate"))
        #expect(stderr.contains("no registration of Wanderer taking no arguments"))
        #expect(stderr.contains("Path: Yard -> Gate -> Wanderer"))
        #expect(stderr.contains("try r.require(Wanderer.self)"))
    }

    @Test func unresolvableDependencyOfAMainActorServiceStopsWithThePathToTheDependency() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.registerMain(Gate.self) { r in Gate(wanderer: r~>) }
            container.register(Yard.self) { r in Yard(gate: r ~> Gate.self) }
            await MainActor.run { _ = container.resolve(Yard.self) }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("r~> could not resolve Wanderer while making Gate"))
        #expect(stderr.contains("Path: Yard -> Gate -> Wanderer\n"))
    }

    /// In an async factory the message names the service being built and its path, as the error
    /// of its request would.
    @Test func unresolvableDependencyInAnAsyncFactoryStopsNamingTheServiceBeingBuilt() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.registerAsync(SendableGate.self) { r in SendableGate(wanderer: r~>) }
            _ = try? await container.synchronize().resolveAsync(SendableGate.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("r~> could not resolve SendableWanderer while making SendableGate"))
        #expect(stderr.contains("Path: SendableGate -> SendableWanderer\n"))
    }

    /// A `~>` run after its request failed (a cycle below its factory) says so, with its own path,
    /// and the earlier failure under it.
    @Test func aDependencyAskedAfterTheRequestFailedStopsSayingSo() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Yard.self) { r in
                _ = r.resolve(Gate.self)
                return Yard(gate: r ~> Gate.self)
            }
            container.register(Gate.self) { r in
                _ = r.resolve(Yard.self)
                return Gate(wanderer: Wanderer())
            }
            _ = container.resolve(Yard.self)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("r ~> Gate.self could not resolve Gate while making Yard"))
        #expect(stderr.contains("Gate was not resolved: the resolution it is part of had failed (circular dependency"))
        #expect(stderr.contains("Path: Yard -> Gate -> Yard)"))
        #expect(stderr.contains("Path: Yard -> Gate\n"))
    }

    @Test func unresolvableServiceOutsideAFactoryStopsNamingIt() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tag = Container() ~> (Tag.self, name: "quiet", argument: 1)
            print(tag.text)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("r ~> (Tag.self, name:, argument:) could not resolve Tag;"))
        #expect(stderr.contains("no registration of Tag named \"quiet\" taking arguments (Int)"))
    }

    @available(*, deprecated, message: "exercises the deprecated comma-separated argument forms")
    @Test func deprecatedCommaSeparatedArgumentsStillResolve() {
        let container = makeContainer()
        container.register(Sum.self) { (_, a: Int, b: Int, c: Int) in Sum(total: a + b + c) }
        container.register(Sum.self, name: "named") { (_, a: Int, b: Int, c: Int) in Sum(total: a * b * c) }

        #expect((container ~> (Sum.self, arguments: 1, 2, 3)).total == 6)
        #expect((container ~> (Sum.self, name: "named", arguments: 2, 3, 4)).total == 24)
    }
}
