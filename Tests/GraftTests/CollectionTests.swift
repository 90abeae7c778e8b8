import Graft
import GraftTesting
import Testing

private protocol Check: AnyObject { var id: String { get } }
private final class NamedCheck: Check {
    let id: String
    init(_ id: String) { self.id = id }
}
private final class CheckTimer {}
private final class ClockedCheck: Check {
    let id: String
    let clock: CheckTimer
    init(_ id: String, clock: CheckTimer) { (self.id, self.clock) = (id, clock) }
}
private struct Boom: Error {}
private final class Monitor {
    let checks: [any Check]
    init(checks: [any Check]) { self.checks = checks }
}
private final class Dashboard {
    let checks: [any Check]
    let clock: CheckTimer
    init(checks: [any Check], clock: CheckTimer) { (self.checks, self.clock) = (checks, clock) }
}

/// A resolver of the application's own, which cannot list registrations.
private struct OwnResolver: Resolver {
    func resolve<Service>(_ serviceType: Service.Type) -> Service? { nil }
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? { nil }
    func resolve<Service, each Argument>(
        _ serviceType: Service.Type, name: String?, arguments: repeat each Argument
    ) -> Service? { nil }
}

private func ids(_ checks: [any Check]?) -> [String]? { checks?.map(\.id) }

@Suite(.capturedLog) struct CollectionTests {
    @Test func anEmptyCollectionIsEmptyNotNil() throws {
        let container = Container()
        #expect(ids(container.resolveAll((any Check).self)) == [])
        #expect(try container.requireAll((any Check).self).isEmpty)
        #expect(CapturedLog.current?.messages == [])
    }

    @Test func ancestorsComeFirstThenRegistrationOrderAndAReplacementKeepsItsPlace() {
        let root = Container()
        root.register((any Check).self, name: "b") { _ in NamedCheck("root b") }
        root.register((any Check).self) { _ in NamedCheck("root unnamed") }
        root.register((any Check).self, name: "a") { _ in NamedCheck("root a") }
        let child = Container(parent: root)
        child.register((any Check).self, name: "z") { _ in NamedCheck("child z") }
        child.register((any Check).self, name: "a") { _ in NamedCheck("child a") }
        root.register((any Check).self, name: "b") { _ in NamedCheck("root b again") }

        #expect(ids(root.resolveAll((any Check).self)) == ["root b again", "root unnamed", "root a"])
        // The child's "a" hides its parent's and takes its place; its own come after the parent's.
        #expect(ids(child.resolveAll((any Check).self)) == ["root b again", "root unnamed", "child a", "child z"])
        #expect(ids(child.synchronize().resolveAll((any Check).self)) == ids(child.resolveAll((any Check).self)))
    }

    @Test func onlyRegistrationsTakingTheArgumentTypesAreElements() throws {
        let container = Container()
        container.register((any Check).self, name: "plain") { _ in NamedCheck("plain") }
        container.register((any Check).self, name: "one") { (_, tag: String) in NamedCheck("one " + tag) }
        container.register((any Check).self, name: "two") { (_, tag: String, n: Int) in NamedCheck("two \(tag)\(n)") }
        container.register((any Check).self, name: "other") { (_, n: Int) in NamedCheck("other \(n)") }

        #expect(ids(container.resolveAll((any Check).self)) == ["plain"])
        #expect(ids(container.resolveAll((any Check).self, argument: "x")) == ["one x"])
        #expect(ids(container.resolveAll((any Check).self, arguments: "x", 2)) == ["two x2"])
        #expect(try container.requireAll((any Check).self, argument: 7).map(\.id) == ["other 7"])
        #expect(try container.requireAll((any Check).self, arguments: "y", 3).map(\.id) == ["two y3"])
    }

    @Test func forwardedTypesAreElements() {
        let container = Container()
        container.register(NamedCheck.self, name: "forwarded") { _ in NamedCheck("forwarded") }
            .implements((any Check).self)
        container.register((any Check).self, name: "own") { _ in NamedCheck("own") }
        #expect(ids(container.resolveAll((any Check).self)) == ["forwarded", "own"])
    }

    @Test func eachElementKeepsItsScopeAndOneCallSharesOneGraph() throws {
        let container = Container()
        container.register(CheckTimer.self) { _ in CheckTimer() }  // graph scope
        container.register((any Check).self, name: "one") { r in ClockedCheck("one", clock: r.resolve(CheckTimer.self)!)
        }
        container.register((any Check).self, name: "two") { r in ClockedCheck("two", clock: r.resolve(CheckTimer.self)!)
        }
        container.register((any Check).self, name: "kept") { _ in NamedCheck("kept") }.inObjectScope(.container)

        let first = try #require(container.resolveAll((any Check).self))
        let second = try #require(container.resolveAll((any Check).self))
        let clocks = first.prefix(2).map { ($0 as! ClockedCheck).clock }
        #expect(clocks[0] === clocks[1])
        #expect((second[0] as! ClockedCheck).clock !== clocks[0])
        #expect(first[2] === second[2])
        #expect(first[0] !== second[0])
    }

    @Test func aFactoryResolvingACollectionSharesTheGraphInFlight() throws {
        let container = Container()
        container.register(CheckTimer.self) { _ in CheckTimer() }
        container.register((any Check).self, name: "one") { r in ClockedCheck("one", clock: r.resolve(CheckTimer.self)!)
        }
        container.register(Dashboard.self) { r in
            Dashboard(checks: r.resolveAll((any Check).self) ?? [], clock: r.resolve(CheckTimer.self)!)
        }
        let dashboard = try #require(container.synchronize().resolve(Dashboard.self))
        #expect((dashboard.checks[0] as! ClockedCheck).clock === dashboard.clock)
    }

    @Test func aFailingElementIsNeverDroppedSilently() {
        let container = Container()
        container.register((any Check).self, name: "good") { _ in NamedCheck("good") }
        container.register((any Check).self, name: "bad") { _ throws -> any Check in throw Boom() }
        container.register(Monitor.self) { r in Monitor(checks: r.resolveAll((any Check).self) ?? []) }

        #expect(container.resolveAll((any Check).self) == nil)
        #expect(CapturedLog.current?.messages.contains { $0.contains("bad") } == true)
        #expect(throws: ResolutionError.self) { try container.requireAll((any Check).self) }
        do {
            _ = try container.requireAll((any Check).self)
        } catch {
            #expect(error.path.last?.contains("bad") == true, "\(error)")
            guard case .factoryFailed = error.reason else { Issue.record("\(error.reason)"); return }
        }
        // A factory that handles the `nil` still has the failure logged.
        let before = CapturedLog.current?.messages.count ?? 0
        #expect(container.resolve(Monitor.self)?.checks.isEmpty == true)
        #expect((CapturedLog.current?.messages.count ?? 0) > before)
        // And the container is as usable as before.
        container.register((any Check).self, name: "bad") { _ in NamedCheck("fixed") }
        #expect(ids(container.resolveAll((any Check).self)) == ["good", "fixed"])
    }

    @Test func aFailingElementFailsRequireAllInAFactoryWithItsPath() {
        let container = Container()
        container.register((any Check).self, name: "bad") { _ throws -> any Check in throw Boom() }
        container.register(Monitor.self) { r in try Monitor(checks: r.requireAll((any Check).self)) }
        do {
            _ = try container.require(Monitor.self)
            Issue.record("resolved")
        } catch {
            #expect(error.path.first == "Monitor", "\(error)")
            #expect(error.path.last?.contains("bad") == true, "\(error)")
        }
    }

    @Test func featuresContributeToTheCollectionOfTheContainerTheConsumerResolvesFrom() {
        struct AppAssembly: Assembly {
            func assemble(container: Container) {
                container.register(Monitor.self) { r in Monitor(checks: r.resolveAll((any Check).self) ?? []) }
            }
        }
        struct BillingContributions: Assembly {
            func assemble(container: Container) {
                container.register((any Check).self, name: "billing") { _ in NamedCheck("billing") }
            }
        }
        struct BillingAssembly: Assembly {
            func assemble(container: Container) {
                container.register((any Check).self, name: "billing-internal") { _ in NamedCheck("internal") }
            }
        }
        struct SearchContributions: Assembly {
            func assemble(container: Container) {
                container.register((any Check).self, name: "search") { _ in NamedCheck("search") }
            }
        }
        let app = Container()
        let assembler = ContainerAssembler(container: app)
        assembler.apply(assemblies: [AppAssembly(), BillingContributions(), SearchContributions()])
        let billing = Container(parent: app)
        ContainerAssembler(container: billing).apply(assembly: BillingAssembly())

        #expect(ids(app.resolve(Monitor.self)?.checks) == ["billing", "search"])
        // A registration in the feature's own child stays the feature's.
        #expect(ids(billing.resolveAll((any Check).self)) == ["billing", "search", "internal"])
        #expect(ids(billing.resolve(Monitor.self)?.checks) == ["billing", "search", "internal"])
    }

    @Test func autoregisteredArrayParametersTakeTheCollection() {
        let container = Container()
        container.register((any Check).self, name: "a") { _ in NamedCheck("a") }
        container.register((any Check).self, name: "b") { _ in NamedCheck("b") }
        container.register(CheckTimer.self) { _ in CheckTimer() }
        container.autoregister(Dashboard.self, initializer: Dashboard.init(checks:clock:))
        #expect(ids(container.resolve(Dashboard.self)?.checks) == ["a", "b"])

        // A registration of the array itself answers instead.
        container.register([any Check].self) { _ in [NamedCheck("registered")] }
        #expect(ids(container.resolve(Dashboard.self)?.checks) == ["registered"])
        // `resolve` of an array keeps its meaning: the registration of the array, or nothing.
        #expect(ids(Container().resolve([any Check].self)) == nil)
        // A collection type other than an array (a `String`) is no collection of services.
        final class Titled { init(title: String) {} }
        container.autoregister(Titled.self, initializer: Titled.init(title:))
        #expect(container.resolve(Titled.self) == nil)
    }

    @Test func anAutoregisteredCollectionWithAFailingElementFailsTheRegistration() {
        let container = Container()
        container.register((any Check).self, name: "bad") { _ throws -> any Check in throw Boom() }
        container.autoregister(Monitor.self, initializer: Monitor.init(checks:))
        #expect(container.resolve(Monitor.self) == nil)
        #expect(throws: ResolutionError.self) { try container.require(Monitor.self) }
    }

    @Test func aResolverOfTheApplicationsOwnCannotListItsRegistrations() {
        let resolver = OwnResolver()
        #expect(resolver.resolveAll((any Check).self) == nil)
        #expect(CapturedLog.current?.messages.contains { $0.contains("cannot list") } == true)
        #expect(throws: ResolutionError.self) { try resolver.requireAll((any Check).self, argument: 1) }
        let existential: any Resolver = Container()
        #expect(ids(existential.resolveAll((any Check).self)) == [])
    }

    @Test func mainActorElementsResolveOnlyOnTheMainActor() async {
        let container = Container()
        container.register((any Check).self, name: "plain") { _ in NamedCheck("plain") }
        container.registerMain((any Check).self, name: "main") { _ in NamedCheck("main") }
        let view = container.synchronize()
        let onMain = await MainActor.run { view.resolveAll((any Check).self)?.map(\.id) }
        #expect(onMain == ["plain", "main"])
        let offMain = await Task.detached { view.resolveAll((any Check).self)?.map(\.id) }.value
        #expect(offMain == nil)
        let thrown = await Task.detached { () -> ResolutionError? in
            do {
                _ = try view.requireAll((any Check).self)
                return nil
            } catch { return error as? ResolutionError }
        }.value
        guard case .notOnMainActor? = thrown?.reason else {
            Issue.record("\(String(describing: thrown))")
            return
        }
    }

    @Test func asyncElementsAreElementsOnceBuilt() async throws {
        final class Remote: Check, Sendable { let id = "remote" }
        let view = Container().synchronize()
        view.register((any Check).self, name: "local") { _ in NamedCheck("local") }
        view.registerAsync(Remote.self) { _ in Remote() }
        view.register((any Check).self, name: "remote") { r in try r.require(Remote.self) }
        #expect(view.resolveAll((any Check).self) == nil)
        _ = try await view.resolveAsync(Remote.self)
        #expect(ids(view.resolveAll((any Check).self)) == ["local", "remote"])
    }

    @Test func validationAndTheDependencyGraphShowTheElements() {
        let container = Container()
        // The failing element first: validation goes on to the elements after it.
        container.register((any Check).self, name: "bad") { _ throws -> any Check in throw Boom() }
        container.register((any Check).self, name: "good") { _ in NamedCheck("good") }
        container.register(Monitor.self) { r in try Monitor(checks: r.requireAll((any Check).self)) }
        let report = container.validate()
        let monitor = report.graph.nodes.first { $0.serviceType == "Monitor" }
        let requested = report.graph.edges.filter { $0.from == monitor?.id }.map(\.requested)
        #expect(requested.contains { $0.contains("good") } && requested.contains { $0.contains("bad") }, "\(requested)")
        #expect(report.failures.contains { $0.path.first == "Monitor" }, "\(report)")
    }

    /// Random hierarchies of registrations, replaced and removed, checked against a model of the
    /// order: the root's names first, each container's in the order first registered, a child's
    /// name taking the place of its ancestor's.
    @Test func randomHierarchiesListTheirElementsAsTheModelSays() {
        var generator = SplitMix64(seed: 0x5EED)  // the model-based programs' generator
        for _ in 0..<300 {
            var containers = [Container()]
            var parents: [Int?] = [nil]  // each container's parent index
            var registered: [[String?]] = [[]]  // per container, names in first-registration order
            var made: [[String?: String]] = [[:]]  // per container, name → id of its latest factory
            for step in 0..<Int(generator.next() % 24) {
                let level = Int(generator.next() % UInt64(containers.count))
                switch generator.next() % 8 {
                case 0 where containers.count < 4:
                    containers.append(Container(parent: containers[level]))
                    registered.append([])
                    made.append([:])
                    parents.append(level)
                case 1:
                    containers[level].removeAll()
                    registered[level] = []
                    made[level] = [:]
                default:
                    let name: String? = generator.next() % 4 == 0 ? nil : "n\(generator.next() % 5)"
                    let id = "c\(level)s\(step)"
                    containers[level].register((any Check).self, name: name) { _ in NamedCheck(id) }
                    if !registered[level].contains(name) { registered[level].append(name) }
                    made[level][name] = id
                }
            }
            for (index, container) in containers.enumerated() {
                var chain = [index]
                while let parent = parents[chain.last!] { chain.append(parent) }
                var names: [String?] = []
                var ids: [String?: String] = [:]
                for level in chain.reversed() {
                    for name in registered[level] where !names.contains(name) { names.append(name) }
                    for (name, id) in made[level] { ids[name] = id }
                }
                let expected = names.map { ids[$0]! }
                #expect(container.resolveAll((any Check).self)?.map(\.id) == expected)
            }
        }
    }
}

/// What a collection answers at its edges: validation of elements that take arguments, samples
/// through forwards, collections asked where they cannot be listed, and many names.
@Suite(.capturedLog) struct CollectionEdgeTests {
    @Test func validationReportsEveryFailingElementThatTakesArguments() {
        let container = Container()
        container.register((any Check).self, name: "b1") { (_, _: String) throws -> any Check in throw Boom() }
        container.register((any Check).self, name: "ok") { (_, tag: String) in NamedCheck(tag) }
        container.register((any Check).self, name: "b2") { (_, _: String) throws -> any Check in throw Boom() }
        container.register(Monitor.self) { (r, tag: String) in
            try Monitor(checks: r.requireAll((any Check).self, argument: tag))
        }
        let report = container.validate(samples: [ValidationSample(Monitor.self, argument: "x")])
        let failed = report.failures.compactMap(\.path.last)
        #expect(failed.contains { $0.contains("b1") } && failed.contains { $0.contains("b2") }, "\(report)")
        #expect(report.failures.count == 2, "\(report)")
    }

    @Test func aSampleOfAForwardedTypeValidatesTheRegistrationItLeadsTo() {
        let container = Container()
        container.register(NamedCheck.self, name: "f") { (_, n: Int) in NamedCheck("\(n)") }
            .implements((any Check).self, name: "f")
        let report = container.validate(samples: [ValidationSample((any Check).self, name: "f", argument: 3)])
        #expect(report.isValid, "\(report)")
        #expect(report.skipped.isEmpty, "\(report)")
    }

    @Test func anAutoregisteredCollectionIsNoAbsentDependency() {
        let container = Container()
        container.register((any Check).self, name: "a") { _ in NamedCheck("a") }
        container.autoregister(Monitor.self, initializer: Monitor.init(checks:))
        let report = container.validate()
        #expect(report.isValid && report.absentDependencies.isEmpty, "\(report)")
        #expect(report.graph.edges.allSatisfy { $0.to != nil }, "\(report.graph)")
    }

    @Test func theUnboundCurrentResolverSaysHowToBindInsteadOfAnEmptyCollection() {
        #expect(SynchronizedResolver.current.resolveAll((any Check).self) == nil)
        #expect(CapturedLog.current?.messages.contains { $0.contains("no resolver bound") } == true)
        #expect(throws: ResolutionError.self) { try SynchronizedResolver.current.requireAll((any Check).self) }
    }

    @Test func aCollectionOfAWrapperTypeSaysToAskForTheWrappedType() {
        let container = Container()
        container.register((any Check).self, name: "a") { _ in NamedCheck("a") }
        #expect(container.resolveAll(Lazy<any Check>.self) == nil)
        #expect(CapturedLog.current?.messages.contains { $0.contains("wrapper Graft makes") } == true)
        #expect(throws: ResolutionError.self) { try container.requireAll(Optional<any Check>.self) }
        // A registration of an `Optional` type itself is an element as any other.
        container.register(Optional<any Check>.self, name: "maybe") { _ in nil }
        #expect(container.resolveAll(Optional<any Check>.self)?.count == 1)
    }

    @Test func anElementThatRegistersWhileTheCollectionIsMadeJoinsTheNextOne() {
        let container = Container()
        container.register((any Check).self, name: "a") { r in
            (r as? Container)?.register((any Check).self, name: "late") { _ in NamedCheck("late") }
            return NamedCheck("a")
        }
        container.register((any Check).self, name: "b") { _ in NamedCheck("b") }
        #expect(ids(container.resolveAll((any Check).self)) == ["a", "b"])  // the names listed when it began
        #expect(ids(container.resolveAll((any Check).self)) == ["a", "b", "late"])
        #expect(ids(container.synchronize().resolveAll((any Check).self)) == ["a", "b", "late"])
    }

    @Test func anElementThatRemovesEveryRegistrationFailsTheCollectionAndLeavesTheContainerUsable() {
        let container = Container()
        container.register((any Check).self, name: "a") { r in
            (r as? Container)?.removeAll()
            return NamedCheck("a")
        }
        container.register((any Check).self, name: "b") { _ in NamedCheck("b") }
        #expect(container.resolveAll((any Check).self) == nil)  // "b" was removed meanwhile
        #expect(ids(container.resolveAll((any Check).self)) == [])
        container.register((any Check).self, name: "c") { _ in NamedCheck("c") }
        #expect(ids(container.resolveAll((any Check).self)) == ["c"])
    }

    @Test func aDeinitThatResolvesACollectionAndRegistersSeesAConsistentContainer() {
        final class Seen { var numbers: [[Int]?] = [] }
        final class Witness {
            let container: Container
            let seen: Seen
            init(_ container: Container, _ seen: Seen) { (self.container, self.seen) = (container, seen) }
            deinit {
                seen.numbers.append(container.resolveAll(Int.self))
                container.register(Int.self, name: "from a deinit") { _ in 3 }
            }
        }
        final class Watched: Check {
            let id: String
            let witness: Witness
            init(_ id: String, _ witness: Witness) { (self.id, self.witness) = (id, witness) }
        }
        let seen = Seen()
        let container = Container()
        container.register(Int.self, name: "one") { _ in 1 }
        container.register(Int.self, name: "two") { _ in 2 }
        container.register(Witness.self) { r in Witness(r as! Container, seen) }  // graph scope: one per call
        container.register((any Check).self, name: "a") { r in Watched("a", r.resolve(Witness.self)!) }
        container.register((any Check).self, name: "b") { r in Watched("b", r.resolve(Witness.self)!) }
        let checks = container.resolveAll((any Check).self)
        #expect(checks?.map(\.id) == ["a", "b"])
        #expect((checks?[0] as? Watched)?.witness === (checks?[1] as? Watched)?.witness)
        withExtendedLifetime(checks) {}
        _ = consume checks  // the witness goes: its deinit resolves a collection and registers
        #expect(seen.numbers.map { $0 ?? [] } == [[1, 2]])
        #expect(container.resolveAll(Int.self) == [1, 2, 3])

        // Released by the collection's own graph end: the elements do not keep it.
        container.register((any Check).self, name: "c") { r in
            _ = r.resolve(Witness.self)
            return NamedCheck("c")
        }
        seen.numbers = []
        #expect(container.resolveAll((any Check).self)?.map(\.id) == ["a", "b", "c"])
        #expect(seen.numbers.map { $0 ?? [] } == [[1, 2, 3]], "\(seen.numbers)")
        #expect(container.resolveAll(Int.self) == [1, 2, 3])
    }

    @Test func manyNamesAtTwoLevelsKeepTheirOrderAndHiding() {
        let root = Container()
        for index in 0..<600 { root.register((any Check).self, name: "n\(index)") { _ in NamedCheck("root \(index)") } }
        let child = Container(parent: root)
        for index in stride(from: 0, to: 1_200, by: 2) {
            child.register((any Check).self, name: "n\(index)") { _ in NamedCheck("child \(index)") }
        }
        let ids = child.resolveAll((any Check).self)?.map(\.id) ?? []
        #expect(ids.count == 900)
        #expect(ids.prefix(3) == ["child 0", "root 1", "child 2"])
        #expect(ids[600] == "child 600" && ids.last == "child 1198")
    }
}
