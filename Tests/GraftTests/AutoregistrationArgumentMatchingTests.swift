import Graft
import Testing

private final class Notebook {}
private final class Tally {
    let count: Int?
    let logger: Notebook?
    init(count: Int?, logger: Notebook?) {
        self.count = count
        self.logger = logger
    }
}

private class Creature: CustomStringConvertible {
    let tag: String
    init(_ tag: String) { self.tag = tag }
    var description: String { "Creature(\(tag))" }
}
private final class Hound: Creature {
    override var description: String { "Hound(\(tag))" }
}
private final class Kennel {
    let hound: Hound
    let creature: Creature
    init(hound: Hound, creature: Creature) {
        self.hound = hound
        self.creature = creature
    }
}

/// The parameters an initializer received, each as `String(describing:)` prints it.
private final class Probe {
    let received: [String]
    init(_ received: [String]) { self.received = received }
}

/// A type parameters and arguments may have, with the value passed when it is an argument and
/// how each value prints: as the argument, and as resolved from the container.
private struct Candidate {
    let type: Any.Type
    let argument: Any
    let asArgument: String
    let asResolved: String
}

/// Registered for every type a candidate resolves through (an `Optional` resolves its wrapped type).
private func containerOfResolvedValues() -> Container {
    let container = Container()
    container.register(Creature.self) { _ in Creature("resolved") }
    container.register(Hound.self) { _ in Hound("resolved") }
    container.register(Int.self) { _ in 1 }
    container.register(String.self) { _ in "resolved" }
    return container
}

private var candidates: [Candidate] {
    [
        Candidate(
            type: Creature.self, argument: Creature("argument"), asArgument: "Creature(argument)",
            asResolved: "Creature(resolved)"),
        Candidate(
            type: Hound.self, argument: Hound("argument"), asArgument: "Hound(argument)",
            asResolved: "Hound(resolved)"),
        Candidate(type: Int.self, argument: 42, asArgument: "42", asResolved: "1"),
        Candidate(type: Int?.self, argument: Int?.none as Any, asArgument: "nil", asResolved: "Optional(1)"),
        Candidate(type: String.self, argument: "argument", asArgument: "argument", asResolved: "resolved"),
        Candidate(
            type: String?.self, argument: String?.none as Any, asArgument: "nil",
            asResolved: "Optional(\"resolved\")"),
        Candidate(
            type: Creature?.self, argument: Creature?.none as Any, asArgument: "nil",
            asResolved: "Optional(Creature(resolved))"),
    ]
}

/// Autoregisters a `Probe` of three parameters with one argument, and resolves it with `first`.
private func received<A, B, C, First>(
    _: A.Type, _: B.Type, _: C.Type, argument first: First.Type, value: Any
) -> [String]? {
    func make(_ a: A, _ b: B, _ c: C) -> Probe {
        Probe([String(describing: a), String(describing: b), String(describing: c)])
    }
    let container = containerOfResolvedValues()
    container.autoregister(Probe.self, argument: First.self, initializer: make)
    return container.resolve(Probe.self, argument: value as! First)?.received
}

/// Autoregisters a `Probe` of three parameters with two arguments, and resolves it with them.
private func received<A, B, C, First, Second>(
    _: A.Type, _: B.Type, _: C.Type, arguments first: First.Type, _ second: Second.Type, values: (Any, Any)
) -> [String]? {
    func make(_ a: A, _ b: B, _ c: C) -> Probe {
        Probe([String(describing: a), String(describing: b), String(describing: c)])
    }
    let container = containerOfResolvedValues()
    container.autoregister(Probe.self, arguments: First.self, Second.self, initializer: make)
    return container.resolve(Probe.self, arguments: values.0 as! First, values.1 as! Second)?.received
}

/// An argument of `autoregister` reaches the initializer's parameters of exactly its declared
/// type, and no other: every other parameter is resolved, whatever the argument's value casts to.
@Suite struct AutoregistrationArgumentMatchingTests {
    @Test func nilOptionalArgumentLeavesAnotherOptionalParameterToTheContainer() throws {
        let container = Container()
        let logger = Notebook()
        container.register(Notebook.self) { _ in logger }
        container.autoregister(Tally.self, argument: Int?.self, initializer: Tally.init(count:logger:))

        let tally = try #require(container.resolve(Tally.self, argument: Int?.none))

        #expect(tally.count == nil)
        #expect(tally.logger === logger)
        #expect(container.resolve(Tally.self, argument: Int?.some(3))?.count == 3)
    }

    @Test func subclassArgumentLeavesASuperclassParameterToTheContainer() throws {
        let container = Container()
        let registered = Creature("registered")
        container.register(Creature.self) { _ in registered }
        container.autoregister(Kennel.self, argument: Hound.self, initializer: Kennel.init(hound:creature:))
        let hound = Hound("argument")

        let kennel = try #require(container.resolve(Kennel.self, argument: hound))

        #expect(kennel.hound === hound)
        #expect(kennel.creature === registered)
    }

    @Test func subclassArgumentIsNotPassedToASuperclassParameterThatCannotBeResolved() {
        let container = Container()
        container.autoregister(Kennel.self, argument: Hound.self, initializer: Kennel.init(hound:creature:))

        #expect(container.resolve(Kennel.self, argument: Hound("argument")) == nil)
        #expect(throws: ResolutionError.self) { try container.require(Kennel.self, argument: Hound("argument")) }
    }

    /// Random lists of parameter and argument types: each parameter gets the argument of exactly
    /// its type if one is listed, and the container's value otherwise.
    @Test(arguments: [UInt64(1), 2, 3])
    func parametersTakeOnlyTheArgumentOfExactlyTheirType(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let candidates = candidates
        for _ in 0..<60 {
            let parameters = (0..<3).map { _ in candidates[random.below(candidates.count)] }
            let first = random.below(candidates.count)
            var second = random.below(candidates.count - 1)
            if second >= first { second += 1 }
            let twoArguments = random.next() % 2 == 0
            let arguments = twoArguments ? [candidates[first], candidates[second]] : [candidates[first]]

            let expected = parameters.map { parameter in
                arguments.contains { $0.type == parameter.type } ? parameter.asArgument : parameter.asResolved
            }
            let outcome =
                twoArguments
                ? received(
                    parameters[0].type, parameters[1].type, parameters[2].type,
                    arguments: arguments[0].type, arguments[1].type,
                    values: (arguments[0].argument, arguments[1].argument))
                : received(
                    parameters[0].type, parameters[1].type, parameters[2].type,
                    argument: arguments[0].type, value: arguments[0].argument)

            #expect(
                outcome == expected,
                "parameters \(parameters.map { "\($0.type)" }), arguments \(arguments.map { "\($0.type)" })")
        }
    }
}
