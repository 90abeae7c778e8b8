import Foundation
import Graft
import GraftTesting
import Testing

private final class Part0 {}
private final class Part1 {}
private final class Part2 {}
private final class Part3 {}
private final class Part4 {}
private final class Part5 {}
private final class Part6 {}
private final class Part7 {}
private final class Part8 {}
private final class Part9 {}

/// Twenty-one parameters, one more than fixed-arity autoregistration offered.
private final class Wide21 {
    let parts: [AnyObject]
    init(
        _ a: Part0, _ b: Part1, _ c: Part2, _ d: Part3, _ e: Part4, _ f: Part5, _ g: Part6, _ h: Part7, _ i: Part8,
        _ j: Part9, _ k: Part0, _ l: Part1, _ m: Part2, _ n: Part3, _ o: Part4, _ p: Part5, _ q: Part6, _ r: Part7,
        _ s: Part8, _ t: Part9, _ u: Part0
    ) {
        parts = [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u]
    }
}

private final class Wide30 {
    let parts: [AnyObject]
    init(
        _ a: Part0, _ b: Part1, _ c: Part2, _ d: Part3, _ e: Part4, _ f: Part5, _ g: Part6, _ h: Part7, _ i: Part8,
        _ j: Part9, _ k: Part0, _ l: Part1, _ m: Part2, _ n: Part3, _ o: Part4, _ p: Part5, _ q: Part6, _ r: Part7,
        _ s: Part8, _ t: Part9, _ u: Part0, _ v: Part1, _ w: Part2, _ x: Part3, _ y: Part4, _ z: Part5,
        _ aa: Part6, _ bb: Part7, _ cc: Part8, _ dd: Part9
    ) {
        parts = [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, aa, bb, cc, dd]
    }
}

private protocol Beast: AnyObject {}
private final class Lynx: Beast {}
private final class Metronome {}
private final class Logbook {
    let clock: Metronome
    let owner: String
    let count: Int
    let copy: String
    init(owner: String, clock: Metronome, count: Int, copy: String) {
        self.clock = clock
        self.owner = owner
        self.count = count
        self.copy = copy
    }
}
private final class Shelter {
    let animal: Beast
    let label: String?
    init(animal: Beast, label: String?) {
        self.animal = animal
        self.label = label
    }
}
private final class Tracer {}
private final class Journal {
    let clock: Metronome?
    let tracer: Tracer!
    init(clock: Metronome?, tracer: Tracer!) {
        self.clock = clock
        self.tracer = tracer
    }
}
private protocol Reporting: AnyObject {}
private final class Reporter: Reporting {
    let clock: Metronome
    init(clock: Metronome) { self.clock = clock }
}
private final class Absentee {}
private final class Dashboard {
    let reporter: Reporter
    init(reporter: Reporter, missing: Absentee) { self.reporter = reporter }
}
private struct MetronomeStopped: Error {}
private final class Alarm {
    init(clock: Metronome) throws { throw MetronomeStopped() }
}
private final class Pair {
    init(first: String, second: String) {}
}
private final class Deferred {
    let clock: Lazy<Metronome>
    init(clock: Lazy<Metronome>) { self.clock = clock }
}
/// `init(clock:)` beside the synthesized `init(from:)`, which throws: one parameter each.
private struct Timetable: Decodable {
    let hours: Int
    init(clock: Metronome) { hours = 24 }
}
/// Two initializers of two parameters, the second of which throws.
private final class Almanac {
    let source: String
    init(owner: String, clock: Metronome) { source = "clock" }
    init(owner: String, path: String) throws { source = "path" }
}

private final class Workshop {
    let first: Metronome
    let second: Metronome
    let reporter: Reporter
    init(first: Metronome, second: Metronome, reporter: Reporter) {
        self.first = first
        self.second = second
        self.reporter = reporter
    }
}
private final class Compass {}
private final class Chart {
    let compass: Compass?
    init(compass: Compass?) { self.compass = compass }
}
private final class Triple {
    init(_ c: Part2, _ a: Part0, _ b: Part1) {}
}
private final class TripleWithLabel {
    init(_ b: Part1, label: String, _ a: Part0) {}
}

/// `init()` beside the memberwise `init(reading:)`.
private struct Gauge {
    var reading = 50
}

/// The order in which factories ran.
private final class Trail {
    var steps: [String] = []
}

/// A container with every `PartN` registered in the container scope.
private func containerWithParts() -> Container {
    let container = Container()
    container.autoregister(Part0.self, initializer: Part0.init).inObjectScope(.container)
    container.autoregister(Part1.self, initializer: Part1.init).inObjectScope(.container)
    container.autoregister(Part2.self, initializer: Part2.init).inObjectScope(.container)
    container.autoregister(Part3.self, initializer: Part3.init).inObjectScope(.container)
    container.autoregister(Part4.self, initializer: Part4.init).inObjectScope(.container)
    container.autoregister(Part5.self, initializer: Part5.init).inObjectScope(.container)
    container.autoregister(Part6.self, initializer: Part6.init).inObjectScope(.container)
    container.autoregister(Part7.self, initializer: Part7.init).inObjectScope(.container)
    container.autoregister(Part8.self, initializer: Part8.init).inObjectScope(.container)
    container.autoregister(Part9.self, initializer: Part9.init).inObjectScope(.container)
    return container
}

/// The instances of `PartN` the container keeps, in order, repeated to `count`.
private func expectedParts(_ container: Container, count: Int) -> [ObjectIdentifier] {
    let parts: [AnyObject] = [
        container.resolve(Part0.self)!, container.resolve(Part1.self)!, container.resolve(Part2.self)!,
        container.resolve(Part3.self)!, container.resolve(Part4.self)!, container.resolve(Part5.self)!,
        container.resolve(Part6.self)!, container.resolve(Part7.self)!, container.resolve(Part8.self)!,
        container.resolve(Part9.self)!,
    ]
    return (0..<count).map { ObjectIdentifier(parts[$0 % parts.count]) }
}

@Suite(.capturedLog) struct AutoregistrationTests {
    @Test func initializerWithTwentyOneParametersGetsEachResolved() throws {
        let container = containerWithParts()
        container.autoregister(Wide21.self, initializer: Wide21.init)

        let wide = try #require(container.resolve(Wide21.self))

        #expect(wide.parts.map(ObjectIdentifier.init) == expectedParts(container, count: 21))
    }

    @Test func initializerWithThirtyParametersGetsEachResolved() throws {
        let container = containerWithParts()
        container.autoregister(Wide30.self, initializer: Wide30.init)

        let wide = try #require(container.resolve(Wide30.self))

        #expect(wide.parts.map(ObjectIdentifier.init) == expectedParts(container, count: 30))
    }

    @Test func argumentsReachTheirParametersByTypeWhateverTheOrder() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init).inObjectScope(.container)
        container.autoregister(Logbook.self, arguments: Int.self, String.self, initializer: Logbook.init)

        let ledger = try #require(container.resolve(Logbook.self, arguments: 7, "Ada"))

        #expect(ledger.count == 7)
        #expect(ledger.owner == "Ada" && ledger.copy == "Ada")  // one argument, both parameters of its type
        #expect(ledger.clock === container.resolve(Metronome.self))
        // The order listed is the order `resolve` passes them in, as for `register`.
        #expect(container.resolve(Logbook.self, arguments: "Ada", 7) == nil)
    }

    @Test func oneArgumentGoesToTheParameterOfItsType() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Logbook.self, argument: String.self) { (owner: String, clock: Metronome) in
            Logbook(owner: owner, clock: clock, count: 1, copy: owner)
        }

        let ledger = try #require(container.resolve(Logbook.self, argument: "Grace"))

        #expect(ledger.owner == "Grace")
        #expect(container.resolve(Logbook.self) == nil)
    }

    @Test func argumentThatOnlyCastsToAParameterTypeIsNotPassedToIt() throws {
        let container = Container()
        let registered = Lynx()
        container.register(Beast.self) { _ in registered }
        // Neither the `Lynx` argument for the `Beast` parameter nor the `String` for the `String?` one.
        container.autoregister(Shelter.self, arguments: Lynx.self, String.self, initializer: Shelter.init)

        let shelter = try #require(container.resolve(Shelter.self, arguments: Lynx(), "north"))

        #expect(shelter.animal === registered)
        #expect(shelter.label == nil)  // `String` is not registered
    }

    @Test func argumentOfExactlyTheParameterTypeIsPreferredToOneThatCasts() throws {
        let container = Container()
        let first = Lynx()
        let second = Lynx()
        container.autoregister(Shelter.self, arguments: Lynx.self, Beast.self, String.self, initializer: Shelter.init)

        let shelter = try #require(container.resolve(Shelter.self, arguments: first, second as Beast, "east"))

        #expect(shelter.animal === second)  // the `Beast` argument, though the `Lynx` one comes first and casts
    }

    @Test func argumentsOfTheSameTypeStopWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container().autoregister(Pair.self, arguments: String.self, Int.self, String.self) {
                (a: String, b: String) in
                Pair(first: a, second: b)
            }
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("autoregister(Pair.self, arguments: String.self, Int.self, String.self) lists String"))
        #expect(stderr.contains("register(_:name:factory:)"))
    }

    @Test func initializerOfASubtypeRegistersTheType() {
        let container = Container()
        container.autoregister(Beast.self, initializer: Lynx.init)

        #expect(container.resolve(Beast.self) is Lynx)
    }

    @Test func parametersAreResolvedInTheirOrder() {
        let trail = Trail()
        let container = Container()
        container.register(Part0.self) { _ in
            trail.steps.append("Part0"); return Part0()
        }
        container.register(Part1.self) { _ in
            trail.steps.append("Part1"); return Part1()
        }
        container.register(Part2.self) { _ in
            trail.steps.append("Part2"); return Part2()
        }
        container.autoregister(Triple.self, initializer: Triple.init)
        container.autoregister(TripleWithLabel.self, argument: String.self, initializer: TripleWithLabel.init)

        _ = container.resolve(Triple.self)
        _ = container.resolve(TripleWithLabel.self, argument: "label")

        #expect(trail.steps == ["Part2", "Part0", "Part1", "Part1", "Part0"])
    }

    @Test func parametersShareAGraphScopedDependency() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init).inObjectScope(.graph)
        container.autoregister(Reporter.self, initializer: Reporter.init)
        container.autoregister(Workshop.self, initializer: Workshop.init)

        let workshop = try #require(container.resolve(Workshop.self))
        let next = try #require(container.resolve(Workshop.self))

        #expect(workshop.first === workshop.second && workshop.first === workshop.reporter.clock)
        #expect(next.first !== workshop.first)
    }

    @Test func namedRegistrationWithArgumentsResolvesUnderItsNameOnly() {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Logbook.self, name: "audit", arguments: Int.self, String.self, initializer: Logbook.init)
        container.autoregister(Logbook.self, name: "audit", argument: String.self) { (owner: String) in
            Logbook(owner: owner, clock: Metronome(), count: 0, copy: owner)
        }

        #expect(container.resolve(Logbook.self, name: "audit", arguments: 3, "Ada")?.count == 3)
        #expect(container.resolve(Logbook.self, name: "audit", argument: "Ada")?.count == 0)
        #expect(container.resolve(Logbook.self, arguments: 3, "Ada") == nil)
        #expect(container.resolve(Logbook.self, argument: "Ada") == nil)
    }

    @Test func optionalParameterOfAnUnregisteredTypeLogsNothing() throws {
        let log = LogCapture()
        let container = Container()
        container.autoregister(Chart.self, initializer: Chart.init)

        let chart = try #require(log.capturing { container.resolve(Chart.self) })

        #expect(chart.compass == nil)
        #expect(log.messages(mentioning: "Compass").isEmpty)
    }

    @Test func namedRegistrationResolvesUnderItsNameOnly() {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Reporter.self, name: "nightly", initializer: Reporter.init)

        #expect(container.resolve(Reporter.self, name: "nightly") != nil)
        #expect(container.resolve(Reporter.self) == nil)
    }

    @Test func optionalAndImplicitlyUnwrappedParametersResolveOptionally() throws {
        let container = Container()
        container.autoregister(Journal.self, initializer: Journal.init)
        container.autoregister(Tracer.self, initializer: Tracer.init)

        let journal = try #require(container.resolve(Journal.self))

        #expect(journal.clock == nil)  // not registered: nil, not a failure
        #expect(journal.tracer != nil)
        #expect(try container.require(Journal.self).clock == nil)
        container.autoregister(Metronome.self, initializer: Metronome.init)
        #expect(container.resolve(Journal.self)?.clock != nil)
    }

    @Test func entryChainsScopeInitCompletedAndImplements() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        var completed = 0
        container.autoregister(Reporter.self, initializer: Reporter.init)
            .inObjectScope(.container)
            .initCompleted { _, _ in completed += 1 }
            .implements(Reporting.self)

        let reporter = try #require(container.resolve(Reporter.self))

        #expect(container.resolve(Reporter.self) === reporter)
        #expect(container.resolve(Reporting.self) === reporter)
        #expect(completed == 1)
    }

    @Test func parameterOfAWrapperTypeGetsTheWrapper() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init).inObjectScope(.container)
        container.autoregister(Deferred.self, initializer: Deferred.init)

        let deferred = try #require(container.resolve(Deferred.self))

        #expect(deferred.clock.instance === container.resolve(Metronome.self))
    }

    @Test func registeringAndResolvingThroughASynchronizedView() async throws {
        let container = Container()
        let resolver = container.synchronize()
        resolver.autoregister(Metronome.self, initializer: Metronome.init).inObjectScope(.container)
        resolver.autoregister(Reporter.self, initializer: Reporter.init)
        resolver.autoregister(Logbook.self, arguments: String.self, Int.self, initializer: Logbook.init)

        let clocks = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    guard let ledger = resolver.resolve(Logbook.self, arguments: "task", index), ledger.count == index,
                        let reporter = resolver.resolve(Reporter.self), reporter.clock === ledger.clock
                    else { return nil }
                    return ObjectIdentifier(ledger.clock)
                }
            }
            var seen: [ObjectIdentifier?] = []
            for await clock in group { seen.append(clock) }
            return seen
        }

        #expect(clocks.count == 8)
        #expect(Set(clocks).count == 1)  // one container-scoped Metronome, no failure
        #expect(clocks.first == container.resolve(Metronome.self).map(ObjectIdentifier.init))
    }

    @Test func missingDependencyFailsWithItsPath() throws {
        let log = LogCapture()
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Reporter.self, initializer: Reporter.init)
        container.autoregister(Dashboard.self, initializer: Dashboard.init)

        #expect(log.capturing { container.resolve(Dashboard.self) } == nil)
        #expect(!log.messages(mentioning: "no registration of Absentee").isEmpty)
        let error = try #require(#expect(throws: ResolutionError.self) { try container.require(Dashboard.self) })
        guard case .notRegistered = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(error.path == ["Dashboard", "Absentee"])
        #expect(error.description.contains("no registration of Absentee taking no arguments"))
        #expect(error.description.contains("Path: Dashboard -> Absentee"))
    }

    @Test func initializerThatDoesNotThrowIsChosenOverOneThatThrows() {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Timetable.self, initializer: Timetable.init)
        container.autoregister(Almanac.self, argument: String.self, initializer: Almanac.init)
        container.autoregister(Almanac.self, arguments: String.self, Int.self, initializer: Almanac.init)

        #expect(container.resolve(Timetable.self)?.hours == 24)
        #expect(container.resolve(Almanac.self, argument: "Ada")?.source == "clock")
        #expect(container.resolve(Almanac.self, arguments: "Ada", 7)?.source == "clock")
    }

    @Test func initializerOfAStructWithDefaultsIsTheOneWithoutParameters() {
        let container = Container()
        container.register(Int.self) { _ in 7 }
        container.autoregister(Gauge.self, initializer: Gauge.init)
        container.autoregister(Gauge.self, name: "memberwise", initializer: Gauge.init(reading:))

        #expect(container.resolve(Gauge.self)?.reading == 50)
        #expect(container.resolve(Gauge.self, name: "memberwise")?.reading == 7)
    }

    @Test func throwingInitializerFailsTheResolution() throws {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Alarm.self, initializer: Alarm.init)

        #expect(container.resolve(Alarm.self) == nil)
        let error = try #require(#expect(throws: ResolutionError.self) { try container.require(Alarm.self) })
        guard case .factoryFailed(let thrown) = error.reason else { Issue.record("reason \(error.reason)"); return }
        #expect(thrown is MetronomeStopped)
        #expect(error.path == ["Alarm"])
    }

    @Test func validationListsAMissingDependencyAndSkipsArguments() {
        let container = Container()
        container.autoregister(Metronome.self, initializer: Metronome.init)
        container.autoregister(Reporter.self, initializer: Reporter.init)
        container.autoregister(Dashboard.self, initializer: Dashboard.init)
        container.autoregister(Logbook.self, arguments: String.self, Int.self, initializer: Logbook.init)

        let report = container.validate()

        #expect(report.failures.map(\.path) == [["Dashboard", "Absentee"]])
        #expect(report.skipped.count == 1 && report.skipped[0].hasPrefix("Logbook"))
        #expect(report.graph.edges.contains { $0.to == nil && $0.requested == "Absentee" })
        #expect(container.resolve(Reporter.self) != nil)
    }
}
