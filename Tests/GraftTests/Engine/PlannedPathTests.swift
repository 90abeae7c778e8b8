import GraftTesting
import Testing

@testable import Graft

// The planned path (`Container.resolvePlanned`) runs a transient or graph-scoped plain factory (or a
// throwing one without arguments) from
// inlinable code, between two out-of-line halves, after an `unsafeDowncast` of the slot's entry.
// These tests attack it from inside the factory it is running (the entry's settings, the table and
// the container change while the factory runs), and compare it with the general path on random
// programs.

@Suite struct PlannedPathTests {
    @Test func thePlanFollowsTheEntrysSettings() {
        let container = Container()
        let entry = container.register(Part.self) { _ in Part("p") }
        #expect(entry.cell.plan == InstanceCell.planGraph)
        entry.inObjectScope(.transient)
        #expect(entry.cell.plan == InstanceCell.planTransient)
        entry.inObjectScope(.container)
        #expect(entry.cell.plan == InstanceCell.planGeneral)
        entry.inObjectScope(.transient).initCompleted { _, _ in }
        #expect(entry.cell.plan == InstanceCell.planGeneral)
        let throwing = container.register(Part.self, name: "t") { _ throws in Part("t") }
        #expect(throwing.cell.plan == InstanceCell.planGraph)
        throwing.inObjectScope(.transient)
        #expect(throwing.cell.plan == InstanceCell.planTransient)
        let throwingWithArgument = container.register(Part.self, name: "ta") { (_, label: String) throws in
            Part(label)
        }
        #expect(throwingWithArgument.cell.plan == InstanceCell.planGeneral)
        let withArgument = container.register(Part.self, name: "a") { _, label in Part(label) }
        #expect(withArgument.cell.plan == InstanceCell.planGeneral)
        #expect(container.resolve(Part.self, name: "a", argument: "x")?.label == "x")
    }

    @Test func aFactoryThatRemovesEverythingStillReturnsItsInstance() {
        let container = Container()
        container.register(Part.self) { _ in
            container.removeAll()
            return Part("made while removed")
        }
        .inObjectScope(.transient)
        #expect(container.resolve(Part.self)?.label == "made while removed")
        #expect(container.resolve(Part.self) == nil)
        container.register(Part.self) { _ in Part("again") }
        #expect(container.resolve(Part.self)?.label == "again")
    }

    @Test func aFactoryThatReplacesItsOwnRegistrationFinishesWithTheOldEntry() {
        let container = Container()
        var runs = 0
        container.register(Part.self) { _ in
            runs += 1
            container.register(Part.self) { _ in Part("new") }.inObjectScope(.container)
            return Part("old")
        }
        #expect(container.resolve(Part.self)?.label == "old")
        let kept = container.resolve(Part.self)
        #expect(kept?.label == "new")
        #expect(container.resolve(Part.self) === kept)
        #expect(runs == 1)
    }

    // A top-level request of a plain factory holds its entry unretained: an entry its factory (or
    // one nested in it) replaces or removes is released when the outermost request ends, not
    // before. Debug builds check after the factory that something besides the request holds it.
    // A throwing factory holds its entry unretained for the call too; only its failure, which
    // runs user code, retains it. Here the outer factory and its dependency may throw, each after
    // the outer entry was replaced or removed (a dependency that throws under `resolve` is `nil`
    // to the factory, which goes on).

    @Test(arguments: EntryDrop.allCases, FactoryKind.allCases)
    func anEntryDroppedWhileItsFactoryRunsLivesUntilTheRequestEnds(_ drop: EntryDrop, _ kind: FactoryKind) {
        for nestedThrows in kind == .plain ? [false] : [false, true] {
            let root = Container()
            let child = Container(parent: root)
            let resolver: Resolver = drop.throughView ? child.synchronize() : child
            weak var oldFactoryContext: Marker?
            var aliveWhenTheFactoryReturned: Bool?
            do {
                let marker = Marker()
                oldFactoryContext = marker
                kind.register(in: root, name: "dependency") { _ in
                    if drop.fromNestedFactory { drop.apply(to: root) }
                    if nestedThrows { throw PlanFailure() }
                    return Part("dependency")
                }
                kind.register(in: root, name: nil) { r in
                    withExtendedLifetime(marker) {}
                    if !drop.fromNestedFactory { drop.apply(to: root) }
                    let dependency = r.resolve(Part.self, name: "dependency")
                    aliveWhenTheFactoryReturned = oldFactoryContext != nil
                    if kind == .throwingThatFails { throw PlanFailure() }
                    return Part("old", [dependency])
                }
            }
            let made = resolver.resolve(Part.self)
            #expect(made?.label == (kind == .throwingThatFails ? nil : "old"))
            if made != nil {
                #expect((made?.children.first ?? nil)?.label == (nestedThrows || drop == .removed ? nil : "dependency"))
            }
            #expect(aliveWhenTheFactoryReturned == true)
            #expect(oldFactoryContext == nil, "the dropped entry (and its factory) is released once the request ends")
            #expect(resolver.resolve(Part.self)?.label == drop.labelAfter)
            #expect(resolver.resolve(Part.self)?.label == drop.labelAfter)
        }
    }

    // A planned construction refused by its checks (here the depth limit, met on the leaf) logs
    // its failure from its first half, where the entry is held unretained and no frame of its is
    // pushed: a logging function that registers over that entry must not free it while it is
    // held so (it is told once the request has ended).

    @Test func aLoggingFunctionThatReplacesTheRefusedEntryDoesNotFreeIt() {
        let container = Container()
        container.register(Part.self, name: "chain") { (r: Resolver, levels: Int) -> Part in
            levels > 0
                ? Part("chain", [r.resolve(Part.self, name: "chain", argument: levels - 1)])
                : Part("chain", [r.resolve(Part.self, name: "leaf")])
        }
        .inObjectScope(.transient)
        expectTheRefusedEntryOutlivesItsReplacement(in: container, named: "leaf", whenLogging: "leaf") {
            #expect(container.resolve(Part.self, name: "chain", argument: SharedState.maximumDepth - 1) == nil)
        }
    }

    // A planned construction that opens a request of its own (in a `withObjectGraph` scope inside
    // a factory) is refused when the request around it has failed as a whole, and ends that
    // request from its first half, where the entry is held unretained. The end logs the failures
    // factories handled since: a logging function that registers over the refused entry there must
    // not free it.

    @Test func aRequestEndThatReplacesTheRefusedEntryDoesNotFreeIt() {
        let container = Container()
        container.register(Part.self, name: "failing") { _ throws in throw PlanFailure() }.inObjectScope(.transient)
        container.register(Part.self, name: "handles") { r in
            Part("handles", [try? r.require(Part.self, name: "failing")])
        }
        .inObjectScope(.transient)
        container.register(Part.self, name: "outer") { r in
            let handled = r.resolve(Part.self, name: "handles")
            let cycle = r.resolve(Part.self, name: "outer")  // fails the whole request
            let refused = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Part.self, name: "refused") }
            return Part("outer", [handled, cycle, refused])
        }
        .inObjectScope(.transient)
        expectTheRefusedEntryOutlivesItsReplacement(in: container, named: "refused", whenLogging: "failing") {
            #expect(container.resolve(Part.self, name: "outer") == nil)
        }
    }

    /// Registers a transient `Part` named `name` in `container`, then runs `request`, which must
    /// have that registration refused, under a logging function that registers over it on the
    /// message naming the registration `logged`: the function is told once, the refused entry is
    /// released once the request ends, and the new registration stays in place.
    private func expectTheRefusedEntryOutlivesItsReplacement(
        in container: Container, named name: String, whenLogging logged: String, request: () -> Void
    ) {
        let probe = RefusalProbe(container)
        probe.refused = container.register(Part.self, name: name) { _ in Part(name) }.inObjectScope(.transient)
        let log: @Sendable (String) -> Void = { message in
            guard message.contains("(name: \"\(logged)\")") else { return }
            probe.container.register(Part.self, name: name) { _ in Part("new") }.inObjectScope(.transient)
            probe.aliveWhileLogged.append(probe.refused != nil)
        }
        Container.withLoggingFunction(log, operation: request)
        #expect(probe.aliveWhileLogged.count == 1, "the logging function is told once")
        #expect(probe.refused == nil, "the refused entry, replaced, is released once the request ends")
        #expect(container.resolve(Part.self, name: name)?.label == "new")
    }

    // An argument factory and a throwing one are read from the entry's extras without retaining
    // their captures (release builds): a factory whose entry it replaces or removes, in a scope the
    // general path constructs, still has its captures when it returns, and they are released once
    // the request ends. Each kind is resolved at the top level and from inside another factory.

    @Test(arguments: [false, true], [false, true])
    func aFactoryReadFromTheExtrasKeepsItsCapturesWhileItRuns(removes: Bool, nested: Bool) {
        for kind in 0..<3 {
            let container = Container()
            weak var capture: Marker?
            var aliveWhenTheFactoryReturned: Bool?
            func drop() {
                if removes {
                    container.removeAll()
                } else {
                    container.register(Part.self, name: "own") { _ in Part("new") }
                    container.register(Part.self, name: "own") { (_, label: String) in Part(label) }
                }
            }
            do {
                let marker = Marker()
                capture = marker
                switch kind {
                case 0:
                    container.register(Part.self, name: "own") { (_, label: String) in
                        drop()
                        aliveWhenTheFactoryReturned = capture != nil
                        return withExtendedLifetime(marker) { Part(label) }
                    }
                case 1:
                    container.register(Part.self, name: "own") { (_, label: String) throws in
                        drop()
                        aliveWhenTheFactoryReturned = capture != nil
                        return withExtendedLifetime(marker) { Part(label) }
                    }
                default:
                    container.register(Part.self, name: "own") { _ throws in
                        drop()
                        aliveWhenTheFactoryReturned = capture != nil
                        return withExtendedLifetime(marker) { Part("old") }
                    }
                    .inObjectScope(.container)
                }
            }
            let resolve: (Resolver) -> Part? = { r in
                kind == 2 ? r.resolve(Part.self, name: "own") : r.resolve(Part.self, name: "own", argument: "old")
            }
            if nested {
                container.register(Part.self, name: "outer") { r in Part("outer", [resolve(r)]) }
            }
            let made = nested ? container.resolve(Part.self, name: "outer")?.children.first ?? nil : resolve(container)
            #expect(made?.label == "old", "kind \(kind)")
            #expect(aliveWhenTheFactoryReturned == true, "kind \(kind)")
            #expect(capture == nil, "released once the request ends (kind \(kind))")
        }
    }

    // A nested construction of a plain factory holds its entry unretained too, through its second
    // half when it opens no request of its own. An entry whose own factory replaces or removes it
    // (transient or graph-scoped, nested in a factory or in a `withObjectGraph` scope, where it
    // opens a request) lives until the outermost request ends.

    @Test(arguments: [false, true], [false, true])
    func aNestedEntryDroppedByItsOwnFactoryLivesUntilTheRequestEnds(inGraphScope: Bool, removes: Bool) {
        for scope in [ObjectScope.transient, .graph] {
            let container = Container()
            weak var droppedContext: Marker?
            var aliveWhenTheFactoryReturned: Bool?
            do {
                let marker = Marker()
                droppedContext = marker
                container.register(Part.self, name: "dependency") { _ in
                    withExtendedLifetime(marker) {}
                    if removes {
                        container.removeAll()
                    } else {
                        container.register(Part.self, name: "dependency") { _ in Part("new") }.inObjectScope(scope)
                    }
                    aliveWhenTheFactoryReturned = droppedContext != nil
                    return Part("old")
                }
                .inObjectScope(scope)
            }
            container.register(Part.self) { r in Part("outer", [r.resolve(Part.self, name: "dependency")]) }
                .inObjectScope(.transient)
            let made =
                inGraphScope
                ? container.withObjectGraph(GraphIdentifier()) { $0.resolve(Part.self, name: "dependency") }
                : container.resolve(Part.self)?.children.first ?? nil
            #expect(made?.label == "old", "\(scope)")
            #expect(aliveWhenTheFactoryReturned == true, "\(scope)")
            #expect(droppedContext == nil, "the dropped entry is released once the request ends (\(scope))")
            #expect(container.resolve(Part.self, name: "dependency")?.label == (removes ? nil : "new"), "\(scope)")
        }
    }

    /// Only an entry whose factory is running outlives its replacement: a resolution (or a
    /// `withObjectGraph` scope) that replaces registrations again and again keeps none of them.
    @Test(arguments: [false, true])
    func aRegistrationReplacedWhileItsFactoryIsNotRunningIsReleasedAtOnce(inGraphScope: Bool) {
        let container = Container()
        var releasedAtOnce: [Bool] = []
        func replaceTwice() {
            weak var replacedContext: Marker?
            do {
                let marker = Marker()
                replacedContext = marker
                container.register(Part.self, name: "other") { _ in
                    withExtendedLifetime(marker) {}
                    return Part("first")
                }
            }
            container.register(Part.self, name: "other") { _ in Part("second") }
            releasedAtOnce.append(replacedContext == nil)
        }
        container.register(Part.self) { r in
            replaceTwice()
            return Part("outer", [r.resolve(Part.self, name: "other")])
        }
        .inObjectScope(.transient)
        if inGraphScope {
            container.withObjectGraph(GraphIdentifier()) { _ in replaceTwice() }
        } else {
            #expect(container.resolve(Part.self)?.children.first??.label == "second")
        }
        #expect(releasedAtOnce == [true])
    }

    @Test func aReplacedEntryResolvedAgainInsideItsOwnFactoryRunsTheNewFactory() {
        let container = Container()
        var inner: Part?
        container.register(Part.self) { r in
            container.register(Part.self) { _ in Part("new") }.inObjectScope(.transient)
            inner = r.resolve(Part.self)
            return Part("old")
        }
        .inObjectScope(.transient)
        #expect(container.resolve(Part.self)?.label == "old")
        #expect(inner?.label == "new")
        #expect(container.resolve(Part.self)?.label == "new")
    }

    @Test func aFactoryThatChangesItsOwnScopeIsKeptAsTheNewScopeSays() {
        let container = Container()
        var entry: ServiceEntry<Part>?
        entry = container.register(Part.self) { _ in
            entry?.inObjectScope(.container)
            return Part("kept")
        }
        .inObjectScope(.transient)
        let first = container.resolve(Part.self)
        #expect(first != nil)
        #expect(container.resolve(Part.self) === first)
        #expect(entry?.cell.plan == InstanceCell.planGeneral)
        entry = nil
    }

    @Test func anActionAddedByTheFactoryRunsForThatInstance() {
        let container = Container()
        var entry: ServiceEntry<Part>?
        var completed: [String] = []
        entry = container.register(Part.self) { _ in
            entry?.initCompleted { _, part in completed.append(part.label) }
            return Part("first")
        }
        .inObjectScope(.transient)
        #expect(container.resolve(Part.self)?.label == "first")
        #expect(completed == ["first"])
        entry = nil
    }

    @Test func aCycleThroughPlannedEntriesFailsAndLeavesTheContainerUsable() {
        let container = Container()
        // Each factory throws the failure of the other on: the cycle fails the outermost resolution.
        container.register(Part.self, name: "a") { r in Part("a", [try r.require(Part.self, name: "b")]) }
            .inObjectScope(.transient)
        container.register(Part.self, name: "b") { r in Part("b", [try r.require(Part.self, name: "a")]) }
        #expect(container.resolve(Part.self, name: "a") == nil)
        let error = #expect(throws: ResolutionError.self) { try container.require(Part.self, name: "a") }
        #expect(error?.reason.description == "circular dependency")
        container.register(Part.self, name: "b") { _ in Part("b") }
        #expect(container.resolve(Part.self, name: "a")?.children.first??.label == "b")
    }

    /// Deeper than the frame stack's first buffer (32 frames): the stack grows while frames are
    /// open, and the cycle's message reads every frame after the growth.
    @Test func aCycleDeepInAChainNamesEveryFrame() {
        let container = Container()
        let levels = 70
        for level in 0..<levels {
            container.register(Part.self, name: "\(level)") { r in
                Part("\(level)", [try r.require(Part.self, name: "\((level + 1) % levels)")])
            }
        }
        let error = #expect(throws: ResolutionError.self) { try container.require(Part.self, name: "0") }
        #expect(error?.path.count == levels + 1)
        #expect(error?.description.contains("(name: \"68\") -> Part (name: \"69\") -> Part (name: \"0\").") == true)
        #expect(error?.description.contains("circular dependency: Part (name: \"0\") -> Part (name: \"1\")") == true)
        container.register(Part.self, name: "\(levels - 1)") { _ in Part("end") }
        #expect(container.resolve(Part.self, name: "0")?.label == "0")
    }

    @Test func aDeinitThatResolvesWhileTheGraphEndsGetsANewGraph() {
        let container = Container()
        var echoes = 0
        container.register(Part.self) { _ in Part("leaf") }
        container.register(Echo.self) { r in
            let leaf = r.resolve(Part.self)
            return Echo {
                echoes += 1
                // The graph that held `leaf` is ending: this is a new request, with a new leaf.
                if echoes == 1 { #expect(container.resolve(Part.self) !== leaf) }
            }
        }
        .inObjectScope(.transient)
        _ = container.resolve(Echo.self)
        #expect(echoes == 1)
        #expect(container.resolve(Part.self) != nil)
    }

    @Test func validationKeepsThePlansAndTheScopes() {
        let container = Container()
        container.register(Part.self, name: "t") { _ in Part("t") }.inObjectScope(.transient)
        container.register(Part.self, name: "g") { r in
            Part("g", [r.resolve(Part.self, name: "t"), r.resolve(Part.self, name: "t")])
        }
        #expect(container.validate().isValid)
        let g = container.resolve(Part.self, name: "g")
        #expect(g?.children.count == 2)
        #expect(g?.children[0] !== g?.children[1])
        #expect(container.registrations.first { $0.name == "t" }?.resolutionCount ?? 0 >= 2)
    }

    /// Random programs of named registrations (each scope, factories resolving others, some cycles;
    /// plain factories, throwing ones that `require` their dependencies, and some that throw),
    /// resolved twice from each of two containers built from the same program: one on the planned
    /// path, one forced onto the general path by an empty `initCompleted` action on every entry.
    /// The instances' sharing and the failures (by `resolve`, and the error `require` throws) must
    /// be the same.
    @Test func plannedAndGeneralPathsAgreeOnRandomPrograms() {
        var generator = SplitMix64(seed: 0x9A4F_13C7)
        for program in 0..<400 {
            let count = 2 + Int(generator.next() % 6)
            var scopes: [ObjectScope] = []
            var dependencies: [[Int]] = []
            // 0: a plain factory; 1: a throwing one that requires its dependencies; 2: one that throws.
            var kinds: [Int] = []
            for index in 0..<count {
                scopes.append([ObjectScope.transient, .graph, .graph, .container][Int(generator.next() % 4)])
                kinds.append([0, 0, 1, 1, 2][Int(generator.next() % 5)])
                var dependsOn: [Int] = []
                for other in 0..<count where other != index && generator.next() % 3 == 0 {
                    // Mostly later services; an earlier one now and then makes a cycle possible.
                    if other > index || generator.next() % 4 == 0 { dependsOn.append(other) }
                }
                dependencies.append(dependsOn)
            }
            func build(forcingGeneralPath: Bool) -> Container {
                let container = Container()
                for index in 0..<count {
                    let dependsOn = dependencies[index]
                    let entry: ServiceEntry<Part>
                    switch kinds[index] {
                    case 0:
                        entry = container.register(Part.self, name: "s\(index)") { r in
                            Part("s\(index)", dependsOn.map { r.resolve(Part.self, name: "s\($0)") })
                        }
                    case 1:
                        entry = container.register(Part.self, name: "s\(index)") { r throws in
                            try Part("s\(index)", dependsOn.map { try r.require(Part.self, name: "s\($0)") })
                        }
                    default:
                        entry = container.register(Part.self, name: "s\(index)") { r throws in
                            _ = dependsOn.map { r.resolve(Part.self, name: "s\($0)") }
                            throw Refused(index: index)
                        }
                    }
                    entry.inObjectScope(scopes[index])
                    if forcingGeneralPath { entry.initCompleted { _, _ in } }
                }
                return container
            }
            let planned = build(forcingGeneralPath: false)
            let general = build(forcingGeneralPath: true)
            var plannedShapes = ShapeRecorder()
            var generalShapes = ShapeRecorder()
            for round in 0..<2 {
                for index in 0..<count {
                    let name = "s\(index)"
                    let p = plannedShapes.shape(of: planned.resolve(Part.self, name: name))
                    let g = generalShapes.shape(of: general.resolve(Part.self, name: name))
                    #expect(p == g, "program \(program), round \(round), \(name): \(p) vs \(g)")
                    if p != g { return }
                    let plannedError = requireFailure { try planned.require(Part.self, name: name) }
                    let generalError = requireFailure { try general.require(Part.self, name: name) }
                    #expect(plannedError == generalError, "program \(program), round \(round), require \(name)")
                    if plannedError != generalError { return }
                }
            }
        }
    }
}

private struct PlanFailure: Error {}

/// What a logging function of a test reads and records. Unchecked: the test runs on one thread,
/// and the logging function is called on it.
private final class RefusalProbe: @unchecked Sendable {
    let container: Container
    weak var refused: ServiceEntry<Part>?
    var aliveWhileLogged: [Bool] = []
    init(_ container: Container) { self.container = container }
}

/// How a test's transient factory is registered: plain (it must not throw), or throwing, and
/// whether the outer one then fails.
enum FactoryKind: CaseIterable, CustomTestStringConvertible {
    case plain, throwing, throwingThatFails

    var testDescription: String { "\(self)" }

    func register(in container: Container, name: String?, _ body: @escaping (Resolver) throws -> Part) {
        if self == .plain {
            // A plain factory's body never throws here.
            container.register(Part.self, name: name) { r in try! body(r) }.inObjectScope(.transient)
        } else {
            container.register(Part.self, name: name) { r throws in try body(r) }.inObjectScope(.transient)
        }
    }
}

/// What a factory of the random programs throws.
private struct Refused: Error {
    let index: Int
}

/// The error `require` threw, as its reason, path and message, or `nil` if it returned.
private func requireFailure(_ body: () throws -> Part) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        guard let error = error as? ResolutionError else { return "not a ResolutionError: \(error)" }
        return "\(error.reason) \(error.path) \(error.description)"
    }
}

/// Describes an instance tree by identity: each distinct instance gets the next number the first
/// time it is seen (across every call), so equal shapes mean equal sharing. Every instance seen is
/// kept alive, so no address is reused for another.
private struct ShapeRecorder {
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var seen: [Part] = []

    mutating func shape(of part: Part?) -> String {
        guard let part else { return "nil" }
        let id = ObjectIdentifier(part)
        let number = numbers[id] ?? numbers.count
        numbers[id] = number
        seen.append(part)
        let children = part.children.map { shape(of: $0) }
        return "\(part.label)#\(number)" + (children.isEmpty ? "" : "(" + children.joined(separator: ",") + ")")
    }
}

/// How a test drops the entry whose factory is running: replaced by a registration or removed with
/// every other by `removeAll`, in its own factory or in one nested in it, resolved through a child
/// of the registration's container or through a synchronized view of that child.
enum EntryDrop: CaseIterable, CustomTestStringConvertible {
    case replaced, removed, replacedByNestedFactory, removedByNestedFactory, replacedThroughView

    var fromNestedFactory: Bool { self == .replacedByNestedFactory || self == .removedByNestedFactory }
    var throughView: Bool { self == .replacedThroughView }
    var removes: Bool { self == .removed || self == .removedByNestedFactory }
    var labelAfter: String? { removes ? nil : "new" }
    var testDescription: String { "\(self)" }

    func apply(to container: Container) {
        if removes {
            container.removeAll()
        } else {
            container.register(Part.self) { _ in Part("new") }.inObjectScope(.transient)
        }
    }
}

private final class Marker {}

private final class DeinitProbe {}
private struct DeinitProbeFailure: Error {}
/// Resolves, when released, a type with no registration and one whose factory throws.
private final class ResolvesWhenReleased: Error, @unchecked Sendable {  // immutable; one thread
    let resolve: () -> Void
    init(_ resolve: @escaping () -> Void) { self.resolve = resolve }
    deinit { resolve() }
}

@Suite(.capturedLog) struct ReleasesInsideARequireTests {
    /// A `require` whose factory removes its own registration, makes a graph instance whose
    /// `deinit` resolves and requires, and throws: the teardown's `deinit` starts requests and
    /// calls of its own, which must not release what the `require` still borrows (the
    /// registration, past its last reference in the table). Released there, the registration's captures ran their `deinit`
    /// inside the `require`: its misses went unlogged, and the `require` threw their failure.
    @Test(arguments: [false, true])
    func aRequireThrowsItsOwnFailureWhenItsTeardownsDeinitsResolve(throughView: Bool) {
        let log = LogCapture()
        let container = Container()
        let child = Container(parent: container)
        container.register(DeinitProbe.self, name: "throws") { (_: Resolver) throws -> DeinitProbe in
            throw DeinitProbeFailure()
        }
        func probes(_ from: Container) -> () -> Void {
            { [unowned from] in
                _ = try? from.require(DeinitProbe.self, name: "throws")  // a call of its own, which throws
                _ = from.resolve(DeinitProbe.self)
                _ = from.resolve(DeinitProbe.self, name: "throws")
            }
        }
        container.register(ResolvesWhenReleased.self) { _ in ResolvesWhenReleased(probes(container)) }
        do {
            let captured = ResolvesWhenReleased(probes(child))
            child.register(Part.self) { (r: Resolver) throws -> Part in
                withExtendedLifetime(captured) {}
                child.removeAll()
                _ = r.resolve(ResolvesWhenReleased.self)
                throw ResolvesWhenReleased(probes(child))
            }
        }
        let resolver: Resolver = throughView ? child.synchronize() : child
        var thrown: (path: [String], message: String)?
        log.capturing {
            // Only the error's text is kept: the error it holds is released inside the capture.
            do { _ = try resolver.require(Part.self) } catch let error as ResolutionError {
                thrown = (error.path, error.message)
            } catch {}
        }
        #expect(thrown?.path == ["Part"])
        #expect(thrown?.message.contains("the factory of Part threw") == true)
        // Three `deinit`s (the graph's instance, the registration's captures, the factory's
        // error) each log a miss and a failure of their own.
        #expect(log.messages(mentioning: "no registration of DeinitProbe").count == 3)
        #expect(log.messages(mentioning: "the factory of DeinitProbe (name: \"throws\") threw").count == 3)
    }
}
