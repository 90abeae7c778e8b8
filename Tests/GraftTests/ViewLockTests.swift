import Foundation
import Testing

@testable import Graft

/// Records, each time user code run by a call asks, whether the hierarchy's mutex is held.
private final class LockProbe {
    let hierarchy: SharedState
    var held: [Bool] = []

    init(hierarchy: SharedState) { self.hierarchy = hierarchy }

    func observe() { held.append(hierarchy.isInSynchronizedCall) }
}

/// A behavior that asks the probe whenever it is told about a registration.
private struct ProbingBehavior: Behavior {
    let probe: LockProbe

    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        probe.observe()
    }
}

private protocol Marker {}

/// Made by factories that ask the probe.
private final class Made: Marker {}

/// Kept in the `.container` scope; its `deinit` asks the probe, so a call that releases it shows
/// whether it held the mutex then.
private final class Kept {
    let probe: LockProbe
    init(probe: LockProbe) { self.probe = probe }
    deinit { probe.observe() }
}

private final class Autoregistered {
    init(made: Made) {}
    init(made: Made, number: Int) {}
    init(made: Made, number: Int, text: String) {}
}

@MainActor private final class MainModel {}

/// A container, its view, and registrations whose user code asks the probe: a behavior, factories
/// with and without a name and with arguments, and a kept instance.
@MainActor private final class Fixture {
    let container = Container()
    let view: SynchronizedResolver
    let probe: LockProbe
    let entry: ServiceEntry<Made>

    init() {
        let probe = LockProbe(hierarchy: container.hierarchy)
        self.probe = probe
        view = container.synchronize()
        container.addBehavior(ProbingBehavior(probe: probe))
        entry = container.register(Made.self) { _ in
            probe.observe()
            return Made()
        }
        container.register(Made.self, name: "n") { _ in
            probe.observe()
            return Made()
        }
        container.register(Kept.self) { _ in Kept(probe: probe) }.inObjectScope(.container)
        _ = container.resolve(Kept.self)
        registerMade(Int.self)
        registerMade(Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self)
        registerMade(Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self)
        probe.held = []
    }

    /// Registers `Made` taking `arguments`, unnamed and named "n".
    private func registerMade<each Argument>(_ arguments: repeat (each Argument).Type) {
        let probe = probe
        for name in [nil, "n"] {
            container.register(Made.self, name: name) { (_: Resolver, _: repeat each Argument) -> Made in
                probe.observe()
                return Made()
            }
        }
    }

    /// Views of the view as each protocol sees it, for the protocols' own members.
    var resolver: any Resolver { view }
    var fixedArity: any FixedArityResolver { view }
}

/// One public member called through a view: its name as api/Graft.txt prints it, a part of that
/// line telling it from the member's other overloads, and whether the call runs user code that
/// asks the probe (a behavior told, a factory, a `deinit`, a closure).
private struct ViewCall {
    let member: String
    let overload: String
    let runsUserCode: Bool
    let call: @MainActor (Fixture) throws -> Void

    init(
        _ member: String, _ overload: String = "", runsUserCode: Bool = true,
        _ call: @escaping @MainActor (Fixture) throws -> Void
    ) {
        self.member = member
        self.overload = overload
        self.runsUserCode = runsUserCode
        self.call = call
    }

    /// The member, and the overload when it has others.
    var label: String { overload.isEmpty ? member : "\(member) \(overload)" }

    /// Whether this is the call of `line`, one member's line in api/Graft.txt.
    func calls(_ line: APILine) -> Bool {
        line.name == member && (overload.isEmpty || line.text.contains(overload))
    }
}

/// A member's line in api/Graft.txt: `Func name(labels:) <generics> (parameters) -> result`.
private struct APILine: Hashable {
    let text: String
    var name: String {
        let declaration = text.split(separator: " ", maxSplits: 2).dropFirst().first ?? ""
        return declaration.hasSuffix(":") ? String(declaration.dropLast()) : String(declaration)
    }
}

/// Every public member of `Container` and of `Resolver` (which `Container` conforms to), called
/// through a view, takes the hierarchy's mutex once and holds it for the whole call.
@Suite struct ViewLockTests {
    /// The members of `Container` and `Resolver`, one call each. Not here: the initializer (it
    /// makes a container, it is not called on one), `LoggingFunctionType` (a type) and the static
    /// `loggingFunction`, `printsUnhandledFailures` and `withLoggingFunction` (process-wide or of a
    /// task, of no container); see
    /// `excludedContainerMembers`.
    @MainActor private static let containerCalls: [ViewCall] = [
        ViewCall("removeAll()") { $0.view.removeAll() },
        ViewCall("registerAtomically(_:)") { fixture in fixture.view.registerAtomically { _ in fixture.probe.observe() }
        },
        ViewCall("resetObjectScope(_:)", "(Graft.ObjectScope)") { $0.view.resetObjectScope(.container) },
        ViewCall("resetObjectScope(_:)", "(any Graft.ObjectScopeProtocol)") {
            $0.view.resetObjectScope(ObjectScope.container as ObjectScopeProtocol)
        },
        ViewCall("resetObjectScope(_:serviceType:)", "(Graft.ObjectScope,") {
            $0.view.resetObjectScope(.container, serviceType: Kept.self)
        },
        ViewCall("resetObjectScope(_:serviceType:)", "(any Graft.ObjectScopeProtocol,") {
            $0.view.resetObjectScope(ObjectScope.container as ObjectScopeProtocol, serviceType: Kept.self)
        },
        ViewCall("addBehavior(_:)", runsUserCode: false) { $0.view.addBehavior(ProbingBehavior(probe: $0.probe)) },
        ViewCall("hasAnyRegistration(of:name:)", runsUserCode: false) {
            #expect($0.view.hasAnyRegistration(of: Made.self))
        },
        ViewCall("synchronize()", runsUserCode: false) { _ = $0.view.synchronize() },
        ViewCall("withObjectGraph(_:closure:)") { fixture in
            fixture.view.withObjectGraph(GraphIdentifier()) { _ in fixture.probe.observe() }
        },
        ViewCall("currentObjectGraph", runsUserCode: false) { #expect($0.view.currentObjectGraph == nil) },
        ViewCall("autoregister(_:name:initializer:)", "(repeat each Dependency) throws -> Service)") {
            $0.view.autoregister(Autoregistered.self) { (made: Made) throws in Autoregistered(made: made) }
        },
        ViewCall("autoregister(_:name:argument:initializer:)", "(repeat each Dependency) throws -> Service)") {
            $0.view.autoregister(Autoregistered.self, argument: Int.self) { (made: Made, number: Int) throws in
                Autoregistered(made: made, number: number)
            }
        },
        ViewCall("autoregister(_:name:arguments:_:initializer:)", "(repeat each Dependency) throws -> Service)") {
            $0.view.autoregister(Autoregistered.self, arguments: Int.self, String.self) {
                (made: Made, number: Int, text: String) throws in Autoregistered(made: made, number: number, text: text)
            }
        },
        ViewCall("autoregister(_:name:initializer:)", "(repeat each Dependency) -> Service)") {
            $0.view.autoregister(Autoregistered.self, initializer: Autoregistered.init(made:))
        },
        ViewCall("autoregister(_:name:argument:initializer:)", "(repeat each Dependency) -> Service)") {
            $0.view.autoregister(
                Autoregistered.self, argument: Int.self, initializer: Autoregistered.init(made:number:))
        },
        ViewCall("autoregister(_:name:arguments:_:initializer:)", "(repeat each Dependency) -> Service)") {
            $0.view.autoregister(
                Autoregistered.self, arguments: Int.self, String.self,
                initializer: Autoregistered.init(made:number:text:))
        },
        ViewCall("registerAsync(_:name:factory:)") { $0.view.registerAsync(String.self) { _ in "" } },
        ViewCall("registerMain(_:name:factory:)") { $0.view.registerMain(MainModel.self) { _ in MainModel() } },
        ViewCall("register(_:name:factory:)", "(any Graft.Resolver) -> Service)") {
            $0.view.register(Made.self, name: "r") { _ in Made() }
        },
        ViewCall("register(_:name:factory:)", "(any Graft.Resolver, repeat each Argument) -> Service)") {
            $0.view.register(Made.self, name: "r") { (_: Resolver, _: String) in Made() }
        },
        ViewCall("register(_:name:factory:)", "(any Graft.Resolver) throws -> Service)") {
            $0.view.register(Made.self, name: "r") { (_: Resolver) throws -> Made in Made() }
        },
        ViewCall("register(_:name:factory:)", "(any Graft.Resolver, repeat each Argument) throws -> Service)") {
            $0.view.register(Made.self, name: "r") { (_: Resolver, _: String) throws -> Made in Made() }
        },
        ViewCall("resolve(_:)") { #expect($0.view.resolve(Made.self) != nil) },
        ViewCall("resolve(_:name:)") { #expect($0.view.resolve(Made.self, name: "n") != nil) },
        ViewCall("resolve(_:name:arguments:)") { #expect($0.view.resolve(Made.self, name: "n", arguments: 1) != nil) },
        ViewCall("forward(_:name:to:)") { $0.view.forward(Marker.self, to: $0.entry) },
        ViewCall("description", runsUserCode: false) { #expect($0.view.description.contains("Made")) },
        ViewCall("registrations", runsUserCode: false) { #expect(!$0.view.registrations.isEmpty) },
        ViewCall("validate()") { _ = $0.view.validate() },
        ViewCall("validate(samples:)") { _ = $0.view.validate(samples: [ValidationSample(Made.self, argument: 1)]) },
    ]

    private static let excludedContainerMembers: Set<String> = [
        "init(parent:defaultObjectScope:behaviors:registeringClosure:)", "LoggingFunctionType", "loggingFunction",
        "printsUnhandledFailures", "withLoggingFunction(_:operation:)", "withLoggingFunction(_:isolation:operation:)",
    ]

    /// The members of `Resolver` (the protocol's requirements and its extensions), called on the
    /// view as a `Resolver`, or as a `FixedArityResolver` for Swinject's fixed-arity forms.
    @MainActor private static let resolverCalls: [ViewCall] = [
        ViewCall("resolve(_:)") { #expect($0.resolver.resolve(Made.self) != nil) },
        ViewCall("resolve(_:name:)") { #expect($0.resolver.resolve(Made.self, name: "n") != nil) },
        ViewCall("resolve(_:name:arguments:)") {
            #expect($0.resolver.resolve(Made.self, name: "n", arguments: 1) != nil)
        },
        ViewCall("resolve(_:argument:)", "Arg1") { #expect($0.fixedArity.resolve(Made.self, argument: 1) != nil) },
        ViewCall("resolve(_:name:argument:)", "Arg1") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", argument: 1) != nil)
        },
        ViewCall("resolve(_:arguments:_:)") { #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2) != nil) },
        ViewCall("resolve(_:name:arguments:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:)") { #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3) != nil) },
        ViewCall("resolve(_:name:arguments:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4, 5) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4, 5) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4, 5, 6) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4, 5, 6) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4, 5, 6, 7) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4, 5, 6, 7) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4, 5, 6, 7, 8) != nil)
        },
        ViewCall("resolve(_:arguments:_:_:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9) != nil)
        },
        ViewCall("resolve(_:name:arguments:_:_:_:_:_:_:_:_:)") {
            #expect($0.fixedArity.resolve(Made.self, name: "n", arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9) != nil)
        },
        ViewCall("resolveMain(_:name:)") { #expect($0.resolver.resolveMain(Made.self) != nil) },
        ViewCall("require(_:name:)") { _ = try $0.resolver.require(Made.self) },
        ViewCall("require(_:name:arguments:)") { _ = try $0.resolver.require(Made.self, arguments: 1) },
        ViewCall("require(_:name:argument:)") { _ = try $0.resolver.require(Made.self, argument: 1) },
        ViewCall("resolve(_:argument:)", "each Argument") {
            #expect($0.resolver.resolve(Made.self, argument: 1) != nil)
        },
        ViewCall("resolve(_:name:argument:)", "each Argument") {
            #expect($0.resolver.resolve(Made.self, name: "n", argument: 1) != nil)
        },
        ViewCall("resolve(_:arguments:)") { #expect($0.resolver.resolve(Made.self, arguments: 1, 2) != nil) },
        ViewCall("resolveAll(_:)") { #expect($0.resolver.resolveAll(Made.self)?.count == 2) },
        ViewCall("resolveAll(_:argument:)") {
            #expect($0.resolver.resolveAll(Made.self, argument: 1)?.isEmpty == false)
        },
        ViewCall("resolveAll(_:arguments:)") {
            #expect($0.resolver.resolveAll(Made.self, arguments: 1, 2)?.isEmpty == false)
        },
        ViewCall("requireAll(_:)") { _ = try $0.resolver.requireAll(Made.self) },
        ViewCall("requireAll(_:argument:)") { _ = try $0.resolver.requireAll(Made.self, argument: 1) },
        ViewCall("requireAll(_:arguments:)") { _ = try $0.resolver.requireAll(Made.self, arguments: 1, 2) },
    ]

    @MainActor private static let calls = containerCalls + resolverCalls

    @Test @MainActor func everyMemberCalledThroughAViewHoldsTheMutexForTheWholeCall() throws {
        for viewCall in Self.calls {
            let fixture = Fixture()
            #if DEBUG
                let before = fixture.container.hierarchy.calls.viewCallsTaken
            #endif
            try viewCall.call(fixture)
            #if DEBUG
                // Once: a member that let go of the mutex and took it again would let another
                // thread in between.
                #expect(
                    fixture.container.hierarchy.calls.viewCallsTaken - before == 1,
                    "\(viewCall.label) takes the view's lock once")
            #endif
            let held = fixture.probe.held
            #expect(!fixture.container.hierarchy.isInSynchronizedCall, "\(viewCall.label) releases the mutex")
            #expect(held.allSatisfy { $0 }, "\(viewCall.label) runs user code under the mutex")
            if viewCall.runsUserCode {
                #expect(!held.isEmpty, "\(viewCall.label) runs user code that asks the probe")
            }
        }
    }

    @Test @MainActor func theCallsAreEveryMemberInTheAPIBaseline() throws {
        let baseline = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("api/Graft.txt")
        let text = try String(contentsOf: baseline, encoding: .utf8)
        let containerMembers = Self.members(of: "Class Container", in: text)
            .filter { !Self.excludedContainerMembers.contains($0.name) }
        let resolverMembers = Self.members(of: "Protocol Resolver", in: text)
        #expect(containerMembers.count > 20 && resolverMembers.count > 20, "api/Graft.txt read from \(baseline.path)")
        for (members, calls) in [(containerMembers, Self.containerCalls), (resolverMembers, Self.resolverCalls)] {
            for member in members {
                let matching = calls.filter { $0.calls(member) }
                #expect(matching.count == 1, "\(member.text): \(matching.count) calls in ViewLockTests")
            }
            for viewCall in calls {
                let matching = members.filter { viewCall.calls($0) }
                #expect(matching.count == 1, "\(viewCall.label): \(matching.count) members in api/Graft.txt")
            }
        }
    }

    /// The distinct member lines of the section that starts with `header` (its lines indented by
    /// one level; members of nested types, indented further, are left out).
    private static func members(of header: String, in text: String) -> Set<APILine> {
        var members: Set<APILine> = []
        var inSection = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") {
                inSection = line == header || line.hasPrefix(header + " ")
            } else if inSection, line.hasPrefix("    "), !line.hasPrefix("     ") {
                members.insert(APILine(text: String(line.dropFirst(4))))
            }
        }
        return members
    }
}
