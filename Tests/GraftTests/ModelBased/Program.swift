// Model-based testing: the program representation, a seeded generator, a byte decoder (for
// fuzzing), a shrinker, observation traces and their comparison. No Graft, Testing or Foundation
// import: Differential/ and Fuzz/ compile this file too (see README.md).

/// A concrete service class. `a`, `b` and `d` conform to `P`; `c` and `d` to `Q`.
public enum MClass: Int, CaseIterable, Sendable {
    case a, b, c, d
}

/// A protocol the service classes may conform to.
public enum MProto: Int, CaseIterable, Sendable {
    case p, q
}

/// A type a registration or a request names. `asyncService` is registered only with
/// `registerAsync` (and never built: the programs are synchronous), so resolving it fails.
public enum MType: Hashable, Sendable, CustomStringConvertible {
    case cls(MClass)
    case proto(MProto)
    case asyncService

    public static let all: [MType] = MClass.allCases.map { .cls($0) } + MProto.allCases.map { .proto($0) }

    public func isSatisfied(by cls: MClass) -> Bool {
        switch self {
        case .cls(let c): return c == cls
        case .proto(.p): return cls == .a || cls == .b || cls == .d
        case .proto(.q): return cls == .c || cls == .d
        case .asyncService: return false
        }
    }

    public var description: String {
        switch self {
        case .cls(let c): return "\(c)".uppercased()
        case .proto(let p): return "\(p)".uppercased()
        case .asyncService: return "AsyncService"
        }
    }
}

/// Registration names; the last two are canonically equivalent ("café" precomposed and decomposed).
public enum MName: Int, CaseIterable, Sendable {
    case x, y, cafeComposed, cafeDecomposed

    public var string: String {
        switch self {
        case .x: return "x"
        case .y: return "y"
        case .cafeComposed: return "caf\u{E9}"
        case .cafeDecomposed: return "cafe\u{301}"
        }
    }

    /// Names that compare equal as Swift strings share a canonical value.
    public var canonical: Int { self == .cafeDecomposed ? MName.cafeComposed.rawValue : rawValue }

    public var source: String {
        switch self {
        case .x: return "\"x\""
        case .y: return "\"y\""
        case .cafeComposed: return "\"caf\\u{E9}\""
        case .cafeDecomposed: return "\"cafe\\u{301}\""
        }
    }
}

/// The factory's argument types: none, `Int`, `String`, `(Int, String)` as two arguments, one
/// `Void` argument, one `(Int, String)` tuple argument.
public enum MArgs: Int, CaseIterable, Sendable {
    case none, int, string, intString, void, tuple

    public var source: String {
        switch self {
        case .none: return ""
        case .int: return "Int"
        case .string: return "String"
        case .intString: return "Int, String"
        case .void: return "Void"
        case .tuple: return "(Int, String)"
        }
    }

    public var callSource: String {
        switch self {
        case .none: return ""
        case .int: return ", argument: 1"
        case .string: return ", argument: \"s\""
        case .intString: return ", arguments: 1, \"s\""
        case .void: return ", argument: ()"
        case .tuple: return ", argument: (1, \"s\")"
        }
    }
}

public enum MScope: Int, CaseIterable, Sendable {
    case unspecified, transient, graph, container, weak, customPermanent, customGraph

    public var source: String {
        switch self {
        case .unspecified: return ""
        case .transient: return ".inObjectScope(.transient)"
        case .graph: return ".inObjectScope(.graph)"
        case .container: return ".inObjectScope(.container)"
        case .weak: return ".inObjectScope(.weak)"
        case .customPermanent: return ".inObjectScope(permanentScope)"
        case .customGraph: return ".inObjectScope(graphStorageScope)"
        }
    }

    /// The scope object `resetObjectScope` compares against (`unspecified` is the default, `.graph`).
    public var identity: MScope { self == .unspecified ? .graph : self }

    /// The scope object as source: `.container`, `permanentScope`, ...
    public var objectSource: String {
        switch identity {
        case .customPermanent: return "permanentScope"
        case .customGraph: return "graphStorageScope"
        default: return ".\(identity)"
        }
    }
}

/// How a request asks: the type itself, `Optional`, `Lazy`, `Provider`, or the graph's identifier.
/// `discarded` (in factories only) resolves the type itself and drops the result at once, so a
/// graph-scoped instance lives until its graph ends and no longer. Three more forms, in factories
/// only, handle a failure of the dependency the way application code does: `caughtRequire`
/// (`try? r.require(T.self)`), `fallback` (`r.resolve(T.self) ?? r.resolve(T.self)`, a fallback
/// that asks again) and `optionalOperator` (`let t: T? = r~>`, or `~>` with a name or arguments
/// into `T?`). Each handles the failure: the factory goes on, and only the failed dependency's
/// resolution is undone. `collection` and `requireCollection` (Graft only) ask for the collection of
/// the type (`resolveAll`, `requireAll`; the name and arguments are not used): every registration
/// of it without arguments in the container and its ancestors, in one object graph. In a factory,
/// `requireCollection` is `try r.requireAll(T.self)`: its failure fails the factory (see
/// `MRegistration.rethrowsCollectionFailure`), or, where the factory cannot throw, it is `try?`.
public enum MWrapper: Int, CaseIterable, Sendable {
    case plain, optional, lazy, provider, graphIdentifier, discarded, caughtRequire, fallback, optionalOperator
    case collection, requireCollection

    /// `resolveAll` or `requireAll`.
    public var isCollection: Bool { self == .collection || self == .requireCollection }
}

public struct MRequest: Hashable, Sendable, CustomStringConvertible {
    public var type: MType
    public var name: MName?
    public var args: MArgs
    public var wrapper: MWrapper
    /// In a factory (Graft only): resolved through this container of the factory's hierarchy, which
    /// the factory captured, instead of the resolver it is given (`nil`).
    public var through: Int?

    public init(type: MType, name: MName?, args: MArgs, wrapper: MWrapper, through: Int? = nil) {
        self.type = type
        self.name = name
        self.args = args
        self.wrapper = wrapper
        self.through = through
    }

    public var description: String {
        let nameText = name.map { ", name: \($0.source)" } ?? (args == .none ? "" : ", name: nil")
        let r = through.map { "c\($0)" } ?? "r"
        switch wrapper {
        case .plain: return "\(r).resolve(\(type).self\(nameText)\(args.callSource))"
        case .optional: return "\(r).resolve(\(type)?.self\(nameText)\(args.callSource))"
        case .lazy: return "\(r).resolve(Lazy<\(type)>.self\(nameText)\(args.callSource))"
        case .provider: return "\(r).resolve(Provider<\(type)>.self\(nameText)\(args.callSource))"
        case .graphIdentifier: return "\(r).resolve(GraphIdentifier.self)"
        case .discarded: return "discard(\(r).resolve(\(type).self\(nameText)\(args.callSource)))"
        case .caughtRequire: return "try? \(r).require(\(type).self\(nameText)\(args.callSource))"
        case .fallback:
            let call = "\(r).resolve(\(type).self\(nameText)\(args.callSource))"
            return "\(call) ?? \(call)"
        case .optionalOperator: return "\(r) ~> (\(type)?.self\(nameText)\(args.callSource))"
        case .collection: return "\(r).resolveAll(\(type).self)"
        case .requireCollection: return "try \(r).requireAll(\(type).self)"
        }
    }
}

/// The wrappers whose first access the programs read: `Lazy`, `Provider`, `@Injected`,
/// `@MainInjected`.
public enum MFirstAccessWrapper: String, CaseIterable, Hashable, Sendable {
    case lazy, provider, injected, mainInjected
}

public struct MForward: Hashable, Sendable {
    public var type: MType
    public var name: MName?
    public init(type: MType, name: MName?) {
        self.type = type
        self.name = name
    }
}

/// What an instance's `deinit` does: nothing, resolve the transient `Probe` (which needs a
/// graph-scoped `ProbePart`), register a `Scratch` under a fresh name in its container, read the
/// `Lazy`, `Provider` or `@Injected` held in a recent slot or read by the step
/// (`MRegistration.deinitSlot`), or
/// register its own registration again (replacing it). The last two change what later steps
/// observe; a `deinit` that runs while another of those runs does nothing.
public enum MDeinit: Int, CaseIterable, Sendable {
    case none, resolveProbe, registerScratch, readSlot, reregister

    /// Whether what it does shows in the trace.
    public var isVisible: Bool { self == .readSlot || self == .reregister }
}

/// What a factory does before it makes its instance: nothing, `resetObjectScope(.container)` or
/// `resetObjectScope(.graph)` on its registration's container, or register its own registration
/// again (so the next resolution finds a new entry), or read the `@Injected` of the newest slot
/// (made before the step, outside any resolution), whose first access then runs inside the
/// factory's request, or `removeAll()` on its registration's container (its own entry among them),
/// or make a child of its registration's container, register the graph-scoped `ProbePart` in it,
/// resolve that through the child (the request's graph keeps the child's entry and instance) and
/// drop the child before the factory returns; or make a child whose own factory drops the one
/// reference to it the program had, then requires through it. The last two show in no trace: the
/// child's entry must outlive the child until the graph ends, and the child the request that
/// resolves through it, which a crash, a sanitizer or a debug check sees.
public enum MFactoryAction: Int, CaseIterable, Sendable {
    case none, resetContainerScope, resetGraphScope, reregister, readInjected, removeAll, droppedChildResolves
    case childDroppedByItsFactory

    /// Whether what it does can change what later steps observe.
    public var isVisible: Bool { self != .none && self != .droppedChildResolves && self != .childDroppedByItsFactory }
}

public struct MRegistration: Hashable, Sendable {
    public var container: Int
    public var service: MType
    public var makes: MClass
    public var name: MName?
    public var args: MArgs
    public var scope: MScope
    /// Resolved by the factory, in order; each result goes into a field of the instance.
    public var dependencies: [MRequest]
    /// `initCompleted` actions, in order; each resolves its requests into further fields.
    public var completions: [[MRequest]]
    public var forwards: [MForward]
    public var onDeinit: MDeinit
    /// For `onDeinit == .readSlot`: 0 or 1, which recent slot, counted back from the last one that
    /// existed when the step began (0 is the last); 2, the `Lazy`, `Provider` or `@Injected` the
    /// step itself reads (`access`), if any, so a first access can be re-entered.
    public var deinitSlot: Int
    public var factoryAction: MFactoryAction
    /// Registered with `registerMain` (no arguments); resolved on the main actor, refused elsewhere.
    public var isMain: Bool
    /// The factory resolves its dependencies, then throws (Graft only): a failure of this
    /// dependency, which a factory asking for it handles.
    public var throwsAfterDependencies = false
    /// Registered with a throwing factory (Graft only) that throws only where the fields above
    /// say: invisible in traces, it runs the planned path's throwing call, whose entry is held
    /// unretained as a plain factory's, under the factory actions that drop it.
    public var hasThrowingFactory = false

    /// Whether Graft's interpreter registers a throwing factory: one that throws, or rethrows a
    /// collection's failure, or is asked for as such.
    public var registersThrowingFactory: Bool {
        throwsAfterDependencies || rethrowsCollectionFailure || hasThrowingFactory
    }

    /// The factory is a throwing one that calls `try r.requireAll(T.self)` for a `requireCollection`
    /// dependency, so the collection's failure is the factory's: it resolves nothing more and
    /// fails. A main-actor factory cannot throw: there it is `try?`, `nil` on a failure.
    public var rethrowsCollectionFailure: Bool {
        !isMain && dependencies.contains { $0.wrapper == .requireCollection }
    }

    /// What an element of a collection shows of the registration that made it: the service, the
    /// name and the container (the order of a collection shows in these).
    public var tag: String {
        "\(service)" + (name.map { "(\($0.source))" } ?? "") + "@c\(container)"
    }

    public init(
        container: Int, service: MType, makes: MClass, name: MName?, args: MArgs, scope: MScope,
        dependencies: [MRequest], completions: [[MRequest]], forwards: [MForward], onDeinit: MDeinit,
        deinitSlot: Int = 0, factoryAction: MFactoryAction = .none, isMain: Bool = false
    ) {
        self.container = container
        self.service = service
        self.makes = makes
        self.name = name
        self.args = args
        self.scope = scope
        self.dependencies = dependencies
        self.completions = completions
        self.forwards = forwards
        self.onDeinit = onDeinit
        self.deinitSlot = deinitSlot
        self.factoryAction = factoryAction
        self.isMain = isMain
    }
}

/// One level of `withResolver`/`withOverrides` nesting around the making of an `@Injected`, as test
/// traits nest them: bind a view of a container, or copy the bound resolver's registrations and
/// register one override (or none) in the copy.
public enum MBinding: Hashable, Sendable {
    case resolver(container: Int)
    case overrides(MRegistration?)
}

/// One step. Indices of slots (results held by the program) and registrations are taken modulo
/// the number existing when the step runs, so deleting steps never leaves a dangling reference.
public enum MStep: Hashable, Sendable {
    case register(MRegistration)
    /// `implements` on the entry returned by an earlier `register` step.
    case forward(registration: Int, MForward)
    /// A top-level resolution; its result goes into a new slot.
    case resolve(container: Int, MRequest)
    /// `withObjectGraph` with the graph identifier held in a field of a slot's instance; each
    /// request's result goes into a new slot.
    case withObjectGraph(container: Int, slot: Int, field: Int, [MRequest])
    /// Reads `instance` of a `Lazy`/`Provider` held in a slot (`field == nil`) or in a field of the
    /// slot's instance; the result goes into a new slot.
    case access(slot: Int, field: Int?)
    /// Drops the program's reference held in a slot.
    case release(slot: Int)
    case reset(container: Int, scope: MScope, service: MType?)
    case removeAll(container: Int)
    /// A top-level resolution through a synchronized view of the container (`synchronize()`).
    case resolveThroughView(container: Int, MRequest)
    /// A top-level resolution through a synchronized view of the container, called on another
    /// thread (never the main actor's) while the program's thread waits: a main-actor service on
    /// its path fails the request.
    case resolveOffMain(container: Int, MRequest)
    /// A top-level resolution inside `withOverrides` (around `withResolver` of a view of the
    /// container): through the copy of the registrations, with one override (or none) registered
    /// in it; the result goes into a new slot.
    case resolveInOverrides(container: Int, override: MRegistration?, MRequest)
    /// Drops the program's reference to a container (never the root); it is freed once no child
    /// container, view or unresolved `@Injected` holds it.
    case freeContainer(Int)
    /// `dump` of a container, into a sink that discards the text: it must not stop the process.
    case dumpContainer(Int)
    /// `dump` of what a slot holds (an instance, its fields, a `Lazy`, a `Provider`, an `@Injected`).
    case dumpSlot(Int)
    /// Observes how many model instances are alive.
    case countLive
    /// Observes `registrations` of a container: for every registration of every kind, its own
    /// scope, how many times it was resolved and how many instances its factory made.
    case inspectRegistrations(container: Int)
    /// `validate()` of a container, its report discarded: it runs every factory it can, and must
    /// leave the hierarchy as it found it (registrations, instances kept in every scope, counts),
    /// whichever container the factories reach.
    case validate(container: Int)
    /// `registerAsync(AsyncService.self, name:)` in a container: the synchronous `resolve` of a
    /// service not built yet fails.
    case registerAsync(container: Int, name: MName?)
    /// Makes an object with an `@Injected var service: T?` (type and name of the request) inside
    /// the nested bindings (the first binds a resolver); it goes into a new slot, and `access`
    /// reads it.
    case makeInjected(bindings: [MBinding], MRequest)
    /// As `makeInjected`, with `@MainInjected var service: T?` in a `@MainActor` object.
    case makeMainInjected(bindings: [MBinding], MRequest)
    /// Reads the `Lazy`, `Provider`, `@Injected` or `@MainInjected` held in the slot `back` before
    /// the newest (0: the newest), as `access` does; with `offMain`, on another thread (never the
    /// main actor's) while the program's thread waits. The result goes into a new slot.
    case readRecent(back: Int, offMain: Bool)
    /// Adds to a container a behavior that, told about a registration of a model service
    /// (`register`, `registerMain`, `registerAsync`; not a forward), sets its scope (`scope`, if
    /// any), then copies the container's registrations as a test trait does (`withResolver` of a
    /// view, then `withOverrides` with no override) and keeps the copy's resolver in the program's
    /// list of copies.
    case addBehavior(container: Int, scope: MScope?)
    /// A top-level resolution through a copy a behavior kept (its index taken modulo the number of
    /// copies made so far); the result goes into a new slot.
    case resolveInCopy(copy: Int, MRequest)
}

public struct MProgram: Hashable, Sendable, CustomStringConvertible {
    /// `parents[i]` is the parent of container `i`; container 0 is the root (parent -1).
    public var parents: [Int]
    public var steps: [MStep]
    /// Child containers are made with a synchronized view of their parent as `parent:`.
    public var childrenOfViews: Bool

    public init(parents: [Int], steps: [MStep], childrenOfViews: Bool = false) {
        self.parents = parents
        self.steps = steps
        self.childrenOfViews = childrenOfViews
    }

    public var description: String { render() }

    /// Swift-like source of the program, one line per step.
    public func render() -> String {
        var lines: [String] = []
        let viewText = childrenOfViews ? ".synchronize()" : ""
        for (index, parent) in parents.enumerated() {
            lines.append(
                parent < 0 ? "var c\(index) = Container()" : "var c\(index) = Container(parent: c\(parent)\(viewText))")
        }
        var registrations = 0
        var slots = 0
        for step in steps {
            switch step {
            case .register(let r):
                var line = "let e\(registrations) = " + Self.renderRegistration(r, in: "c\(r.container)")
                line += Self.renderComments(r)
                lines.append(line)
                registrations += 1
            case .forward(let registration, let forward):
                let target = registrations == 0 ? "e?" : "e\(registration % registrations)"
                lines.append(
                    "\(target).implements(\(forward.type).self" + (forward.name.map { ", name: \($0.source)" } ?? "")
                        + ")")
            case .resolve(let container, let request):
                lines.append("let s\(slots) = " + request.description.replacingFirstResolver(with: "c\(container)"))
                slots += 1
            case .withObjectGraph(let container, let slot, let field, let requests):
                let source = slots == 0 ? "s?" : "s\(slot % slots)"
                var line = "c\(container).withObjectGraph(graph identifier in \(source) field #\(field)) { c in "
                var inner: [String] = []
                for request in requests {
                    inner.append("s\(slots) = " + request.description.replacingFirstResolver(with: "c"))
                    slots += 1
                }
                line += inner.joined(separator: "; ") + " }"
                lines.append(line)
            case .access(let slot, let field):
                let source = slots == 0 ? "s?" : "s\(slot % slots)"
                lines.append("let s\(slots) = \(source)" + (field.map { ".field#\($0)" } ?? "") + ".instance")
                slots += 1
            case .release(let slot):
                lines.append(slots == 0 ? "s? = nil" : "s\(slot % slots) = nil")
            case .reset(let container, let scope, let service):
                lines.append(
                    "c\(container).resetObjectScope(\(scope.objectSource)"
                        + (service.map { ", serviceType: \($0).self" } ?? "")
                        + ")")
            case .removeAll(let container):
                lines.append("c\(container).removeAll()")
            case .resolveThroughView(let container, let request):
                lines.append(
                    "let s\(slots) = " + request.description.replacingFirstResolver(with: "c\(container).synchronize()")
                )
                slots += 1
            case .resolveOffMain(let container, let request):
                lines.append(
                    "let s\(slots) = onAnotherThread { "
                        + request.description.replacingFirstResolver(with: "c\(container).synchronize()") + " }")
                slots += 1
            case .resolveInOverrides(let container, let override, let request):
                lines.append(
                    "let s\(slots) = withResolver(c\(container).synchronize()) { withOverrides({ "
                        + (override.map { Self.renderRegistration($0, in: "$0") + Self.renderComments($0) } ?? "_ in")
                        + " }) { " + request.description.replacingFirstResolver(with: "SynchronizedResolver.current")
                        + " } }")
                slots += 1
            case .freeContainer(let container):
                lines.append("c\(container) = nil")
            case .dumpContainer(let container):
                lines.append("dump(c\(container))")
            case .dumpSlot(let slot):
                lines.append(slots == 0 ? "dump(s?)" : "dump(s\(slot % slots))")
            case .countLive:
                lines.append("countLiveInstances()")
            case .inspectRegistrations(let container):
                lines.append("c\(container).registrations")
            case .validate(let container):
                lines.append("_ = c\(container).validate()")
            case .registerAsync(let container, let name):
                lines.append(
                    "c\(container).registerAsync(AsyncService.self\(name.map { ", name: \($0.source)" } ?? "")) { _ in AsyncService() }"
                )
            case .makeInjected(let bindings, let request), .makeMainInjected(let bindings, let request):
                var line = "let s\(slots) = "
                var closing = ""
                for binding in bindings {
                    switch binding {
                    case .resolver(let container):
                        line += "withResolver(c\(container).synchronize()) { "
                    case .overrides(let registration):
                        line +=
                            "withOverrides({ "
                            + (registration.map { Self.renderRegistration($0, in: "$0") + Self.renderComments($0) }
                                ?? "_ in") + " }) { "
                    }
                    closing += " }"
                }
                let nameText = request.name.map { "(name: \($0.source))" } ?? ""
                var wrapper = "Holder { @Injected"
                if case .makeMainInjected = step { wrapper = "@MainActor Holder { @MainInjected" }
                line += "\(wrapper)\(nameText) var service: \(request.type)? }" + closing
                lines.append(line)
                slots += 1
            case .readRecent(let back, let offMain):
                let source = slots - 1 - back < 0 ? "s?" : "s\(slots - 1 - back)"
                lines.append(
                    "let s\(slots) = " + (offMain ? "onAnotherThread { \(source).instance }" : "\(source).instance"))
                slots += 1
            case .addBehavior(let container, let scope):
                lines.append(
                    "c\(container).addBehavior(CopyingBehavior(scope: \(scope?.objectSource ?? "nil")))"
                        + "  // on a registration: sets its scope, then copies.append(withResolver(c\(container)"
                        + ".synchronize()) { withOverrides({ _ in }) { SynchronizedResolver.current } })")
            case .resolveInCopy(let copy, let request):
                lines.append(
                    "let s\(slots) = "
                        + request.description.replacingFirstResolver(with: "copies[\(copy) % copies.count]"))
                slots += 1
            }
        }
        return lines.joined(separator: "\n")
    }

    static func renderRegistration(_ r: MRegistration, in container: String) -> String {
        let nameText = r.name.map { ", name: \($0.source)" } ?? ""
        let params: String
        switch r.args {
        case .none: params = "r"
        case .intString: params = "(r: Resolver, _: Int, _: String)"
        default: params = "(r: Resolver, _: \(r.args.source))"
        }
        var body = ""
        switch r.factoryAction {
        case .none: break
        case .resetContainerScope: body += "c\(r.container).resetObjectScope(.container); "
        case .resetGraphScope: body += "c\(r.container).resetObjectScope(.graph); "
        case .reregister: body += "c\(r.container).register(same again); "
        case .readInjected: body += "_ = newestSlot.service; "
        case .removeAll: body += "c\(r.container).removeAll(); "
        case .droppedChildResolves: body += "_ = Container(parent: c\(r.container)) + ProbePart resolved from it; "
        case .childDroppedByItsFactory:
            body += "_ = Container(parent: c\(r.container)) whose factory drops it, then requires through it; "
        }
        body += "\(r.makes)".uppercased() + "Impl(" + r.dependencies.map(\.description).joined(separator: ", ") + ")"
        if r.service != .cls(r.makes) { body += " as \(r.service)" }
        if r.throwsAfterDependencies { body = "_ = \(body); throw Failure()" }
        let effects = r.hasThrowingFactory && !r.throwsAfterDependencies ? " throws" : ""
        var line =
            "\(container).\(r.isMain ? "registerMain" : "register")(\(r.service).self\(nameText)) "
            + "{ \(params)\(effects) in \(body) }"
            + r.scope.source
        for completion in r.completions {
            line +=
                ".initCompleted { r, s in s.late += [" + completion.map(\.description).joined(separator: ", ") + "] }"
        }
        for forward in r.forwards {
            line += ".implements(\(forward.type).self" + (forward.name.map { ", name: \($0.source)" } ?? "") + ")"
        }
        return line
    }

    static func renderComments(_ r: MRegistration) -> String {
        switch r.onDeinit {
        case .none: return ""
        case .resolveProbe: return "  // deinit resolves Probe"
        case .registerScratch: return "  // deinit registers Scratch in c\(r.container)"
        case .readSlot:
            return r.deinitSlot >= 2
                ? "  // deinit reads the Lazy/Provider/@Injected the step reads"
                : "  // deinit reads the Lazy/Provider/@Injected in the slot \(r.deinitSlot) back from the last"
        case .reregister: return "  // deinit registers this again in c\(r.container)"
        }
    }
}

extension String {
    fileprivate func replacingFirstResolver(with container: String) -> String {
        if hasPrefix("try r.") { return "try " + container + "." + dropFirst(6) }
        guard hasPrefix("r.") else { return self }
        return container + "." + dropFirst(2)
    }
}

// MARK: - Observations

/// What a step observed, before identities are normalized: an object by its serial number.
public enum RawObservation: Hashable, Sendable {
    case none
    case object(Int)
    case graph(UInt64)
    case lazy
    case provider
    case injected
    /// How many model instances are alive.
    case count(Int)
    /// `registrations`, one line per registration, sorted.
    case registrations([String])
    /// The interpreter could not perform the step as the model said it could.
    case invalid(String)
    /// A collection of this many elements; each element follows, as its object, its `label` (the
    /// registration that made it, `MRegistration.tag`) and, at the top level, its fields.
    case elements(Int)
    case label(String)
    /// `requireAll` threw: the failure of this element (`collectionElementName`).
    case thrown(String)
}

/// An observation with identities made comparable: `new`, or the same object as observation `k`.
public enum Observation: Hashable, Sendable, CustomStringConvertible {
    case none
    case new
    case same(Int)
    case newGraph
    case sameGraph(Int)
    case lazy
    case provider
    case injected
    case count(Int)
    case registrations([String])
    case invalid(String)
    case elements(Int)
    case label(String)
    case thrown(String)

    public var description: String {
        switch self {
        case .none: return "nil"
        case .new: return "new"
        case .same(let k): return "=#\(k)"
        case .newGraph: return "graph:new"
        case .sameGraph(let k): return "graph:=#\(k)"
        case .lazy: return "Lazy"
        case .provider: return "Provider"
        case .injected: return "Injected"
        case .count(let n): return "alive:\(n)"
        case .registrations(let lines): return "registrations[" + lines.joined(separator: "; ") + "]"
        case .invalid(let why): return "invalid(\(why))"
        case .elements(let n): return "all:\(n)"
        case .label(let tag): return tag
        case .thrown(let name): return "threw(\(name))"
        }
    }
}

/// Per step, what it observed (a resolution: the result, then each field of the instance).
public typealias Trace = [[Observation]]

/// How a `thrown` observation names the element of a collection that failed: the registration
/// its failure names first (its service and name, canonical), as `T` or `T(name)`.
public func collectionElementName(_ type: MType, _ canonical: Int?) -> String {
    "\(type)" + (canonical.flatMap { MName(rawValue: $0) }.map { "(\($0.source))" } ?? "")
}

public func normalize(_ raw: [[RawObservation]]) -> Trace {
    var firstSeen: [Int: Int] = [:]
    var firstGraph: [UInt64: Int] = [:]
    var index = 0
    var trace: Trace = []
    for step in raw {
        var observed: [Observation] = []
        for item in step {
            switch item {
            case .none: observed.append(.none)
            case .lazy: observed.append(.lazy)
            case .provider: observed.append(.provider)
            case .injected: observed.append(.injected)
            case .count(let n): observed.append(.count(n))
            case .registrations(let lines): observed.append(.registrations(lines))
            case .invalid(let why): observed.append(.invalid(why))
            case .elements(let n): observed.append(.elements(n))
            case .label(let tag): observed.append(.label(tag))
            case .thrown(let name): observed.append(.thrown(name))
            case .object(let serial):
                if let k = firstSeen[serial] {
                    observed.append(.same(k))
                } else {
                    firstSeen[serial] = index
                    observed.append(.new)
                }
            case .graph(let id):
                if let k = firstGraph[id] {
                    observed.append(.sameGraph(k))
                } else {
                    firstGraph[id] = index
                    observed.append(.newGraph)
                }
            }
            index += 1
        }
        trace.append(observed)
    }
    return trace
}

/// The first step at which two traces differ, or `nil`.
public func firstDifference(_ expected: Trace, _ actual: Trace) -> Int? {
    for index in 0..<max(expected.count, actual.count) {
        let e = index < expected.count ? expected[index] : nil
        let a = index < actual.count ? actual[index] : nil
        if e != a { return index }
    }
    return nil
}

public func describeDifference(program: MProgram, expected: Trace, actual: Trace, at index: Int) -> String {
    func show(_ t: Trace) -> String {
        index < t.count ? "[" + t[index].map(\.description).joined(separator: ", ") + "]" : "(missing)"
    }
    return "step \(index): expected \(show(expected)), got \(show(actual))\nprogram:\n\(program.render())"
}

// MARK: - Random numbers

/// SplitMix64: a small seeded generator.
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Where a generator's choices come from: a PRNG, or bytes (fuzzing).
public protocol ChoiceSource {
    /// A number in `0..<bound` (`bound > 0`).
    mutating func below(_ bound: Int) -> Int
    /// Whether the source has run dry (bytes exhausted).
    var exhausted: Bool { get }
}

extension SplitMix64: ChoiceSource {
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    public var exhausted: Bool { false }
}

/// Choices read from bytes, one byte each; zeros once they run out.
public struct ByteSource: ChoiceSource {
    private let bytes: [UInt8]
    private var position = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public mutating func below(_ bound: Int) -> Int {
        guard position < bytes.count else {
            position += 1
            return 0
        }
        defer { position += 1 }
        return Int(bytes[position]) % bound
    }
    public var exhausted: Bool { position >= bytes.count }
}

extension ChoiceSource {
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

// MARK: - Generation

/// Which operations a generated program may use.
public struct ProgramFeatures: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `registerMain` (the interpreter must run on the main actor).
    public static let mainActor = ProgramFeatures(rawValue: 1 << 0)
    /// Graft's own API: `@Injected` inside nested `withResolver`/`withOverrides`, resolutions
    /// through synchronized views, child containers made from views, `registerAsync`, behaviors
    /// that copy their container with `withOverrides`.
    public static let graftAPI = ProgramFeatures(rawValue: 1 << 1)
    /// `deinit`s whose actions show in the trace (reading a `Lazy`/`Provider`/`@Injected`,
    /// registering again).
    public static let deinitEffects = ProgramFeatures(rawValue: 1 << 2)

    /// Steps that observe how many instances are alive. The model follows Graft's lifetimes, which
    /// are not Swinject 2.10's: there a singleton holding a `Lazy` of its own container outlives
    /// that container's release, and after resolving a forwarded type the made instance is not,
    /// Swinject leaves nothing alive where Graft keeps the reference cycle its `initCompleted`
    /// actions formed.
    public static let liveCounts = ProgramFeatures(rawValue: 1 << 3)

    /// With the Graft API, factories of two more shapes: factories that throw once they resolved
    /// their dependencies (`throwsAfterDependencies`: a handled failure after the failed branch
    /// made instances of its own), and factories that resolve a dependency through a container of
    /// their hierarchy they captured (`MRequest.through`).
    public static let factoryVariants = ProgramFeatures(rawValue: 1 << 4)

    /// With the Graft API, collections (`resolveAll`, `requireAll`): in some programs, a block of
    /// registrations of one service type under several names in several containers, resolved as
    /// a collection at the top level, through views and by factories (`addCollections`).
    public static let collections = ProgramFeatures(rawValue: 1 << 5)

    public static let all: ProgramFeatures = [.mainActor, .graftAPI, .deinitEffects, .liveCounts, .collections]
    /// What Swinject 2.10 can run too.
    public static let swinjectCompatible: ProgramFeatures = []
}

public enum ProgramGenerator {
    /// A random program from `seed`.
    public static func generate(seed: UInt64, maxSteps: Int = 28, features: ProgramFeatures = .all) -> MProgram {
        var random = SplitMix64(seed: seed)
        var program = generate(using: &random, maxSteps: maxSteps, features: features)
        // Behaviors draw from a stream of their own: a seed's program without one is the program
        // the seed gives without behaviors (the seeds README.md names keep their programs).
        var behaviorRandom = SplitMix64(seed: seed ^ 0x6265_6861_7669_6F72)
        addBehavior(to: &program, using: &behaviorRandom, features: features)
        // First-access blocks too: a seed's program without one is the program it gives without them.
        var firstAccessRandom = SplitMix64(seed: seed ^ 0x6669_7273_7441_6363)
        addFirstAccesses(to: &program, using: &firstAccessRandom, features: features)
        // And the block of an `@Injected` read inside a request that then fails.
        var failingReadRandom = SplitMix64(seed: seed ^ 0x7265_6164_4661_696C)
        addInjectedReadInAFailingRequest(to: &program, using: &failingReadRandom, features: features)
        // And the collections, where asked for.
        var collectionRandom = SplitMix64(seed: seed ^ 0x636F_6C6C_6563_7473)
        addCollections(to: &program, using: &collectionRandom, features: features)
        // And the factory variants, where asked for.
        var variantRandom = SplitMix64(seed: seed ^ 0x7468_726F_7773_4166)
        addFactoryVariants(to: &program, using: &variantRandom, features: features)
        var throwingRandom = SplitMix64(seed: seed ^ 0x7468_726F_7769_6E67)
        addThrowingFactories(to: &program, using: &throwingRandom, features: features)
        return program
    }

    /// With `factoryVariants`: about a third of the registrations (not main-actor ones) get a
    /// throwing factory that returns (`hasThrowingFactory`), the shape of an autoregistration or
    /// a factory that `require`s.
    static func addThrowingFactories<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.graftAPI) && features.contains(.factoryVariants) else { return }
        for index in program.steps.indices {
            guard case .register(var registration) = program.steps[index], !registration.isMain, random.chance(35)
            else { continue }
            registration.hasThrowingFactory = true
            program.steps[index] = .register(registration)
        }
    }

    /// With `factoryVariants`: one to three registrations (not main-actor ones) whose factories
    /// throw once they resolved their dependencies, the failure a factory asking for them handles
    /// after the failed branch made instances of its own; and, in programs with several
    /// containers, one to three dependencies resolved through a container of the factory's
    /// hierarchy instead of the factory's resolver (a factory that captured a child container).
    static func addFactoryVariants<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.graftAPI) && features.contains(.factoryVariants) else { return }
        let registrations = program.steps.indices.filter {
            if case .register(let registration) = program.steps[$0] { return !registration.isMain }
            return false
        }
        guard !registrations.isEmpty else { return }
        for _ in 0...random.below(3) {
            let index = random.pick(registrations)
            guard case .register(var registration) = program.steps[index] else { continue }
            registration.throwsAfterDependencies = true
            program.steps[index] = .register(registration)
        }
        guard program.parents.count > 1 else { return }
        func root(_ container: Int) -> Int {
            var level = container
            while program.parents[level] >= 0 { level = program.parents[level] }
            return level
        }
        func isDescendant(_ container: Int, of ancestor: Int) -> Bool {
            var level = program.parents[container]
            while level >= 0 && level != ancestor { level = program.parents[level] }
            return level >= 0
        }
        for _ in 0...random.below(3) {
            let index = random.pick(registrations)
            guard case .register(var registration) = program.steps[index], !registration.dependencies.isEmpty
            else { continue }
            // Mostly a child (or lower) container the factory captured, which `validate()` of the
            // registration's container does not rescope.
            let descendants = program.parents.indices.filter { isDescendant($0, of: registration.container) }
            let sameHierarchy = program.parents.indices.filter { root($0) == root(registration.container) }
            let through = random.pick(!descendants.isEmpty && random.chance(75) ? descendants : sameHierarchy)
            let dependency = random.below(registration.dependencies.count)
            registration.dependencies[dependency].through = through
            program.steps[index] = .register(registration)
            // Sometimes a validation of the registration's container, then the registrations of
            // the captured one and its resolution there, which the validation must have left as
            // they were (counts, and instances kept in every scope).
            if random.chance(50) {
                var request = registration.dependencies[dependency]
                request.through = nil
                var steps: [MStep] = [
                    .validate(container: registration.container), .inspectRegistrations(container: through),
                    .resolve(container: through, request),
                ]
                // Often the captured container registers what is asked of it, in a scope that
                // keeps instances: what the validation made there it must drop.
                let makes: MClass? =
                    switch request.type {
                    case .cls(let made): made
                    case .proto(.p): .a
                    case .proto(.q): .c
                    case .asyncService: nil
                    }
                if let makes, random.chance(50) {
                    let kept = MRegistration(
                        container: through, service: request.type, makes: makes, name: request.name,
                        args: request.args, scope: random.pick([.container, .weak, .customPermanent]),
                        dependencies: [], completions: [], forwards: [], onDeinit: .none)
                    steps.insert(.register(kept), at: 0)
                }
                program.steps.insert(contentsOf: steps, at: index + 1 + random.below(program.steps.count - index))
            }
        }
    }

    /// With `collections`, in four programs in ten: a block of steps, spread over the program
    /// (its order kept), around the collection of one service type `T`:
    ///
    /// - two to four contributions: registrations of `T` (or of a class forwarded to `T`) under
    ///   names drawn from a few (so a child often hides its parent's), in random containers and
    ///   scopes, some main-actor ones, some whose factory throws; most resolve a graph-scoped `S`
    ///   (or the graph's identifier), which the elements of one collection share;
    /// - a contribution registered again (its place kept), a `removeAll` of a container;
    /// - `resolveAll(T.self)` and `requireAll(T.self)` at the top level, on a container or its
    ///   synchronized view, between the registrations (a new one must show in the next);
    /// - consumers: registrations whose factory resolves `S` and the collection (`resolveAll`, or
    ///   `try r.requireAll`, which fails the factory), resolved at the top level; and at times a
    ///   registration of the program that resolves the collection too.
    ///
    /// The choices come from a random stream of their own.
    static func addCollections<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.graftAPI) && features.contains(.collections) && random.chance(40) else { return }
        let containers = program.parents.count
        let roll = random.below(100)
        let type: MType = roll < 45 ? .proto(.p) : roll < 70 ? .proto(.q) : .cls(random.pick(MClass.allCases))
        let names: [MName?] = [nil, .x, .y, .cafeComposed, .cafeDecomposed]
        let registered: [(MType, MName?, MArgs)] = program.steps.compactMap { step in
            guard case .register(let r) = step else { return nil }
            return (r.service, r.name, r.args)
        }
        func container() -> Int { random.chance(40) ? 0 : random.below(containers) }
        func ask() -> MStep {
            var request = MRequest(
                type: random.chance(90) ? type : random.pick(MType.all), name: nil, args: .none,
                wrapper: random.chance(60) ? .collection : .requireCollection)
            if random.chance(5) { request.type = .asyncService }
            let on = random.below(containers)
            return random.chance(30) ? .resolveThroughView(container: on, request) : .resolve(container: on, request)
        }
        let sharedClass = random.pick(MClass.allCases)
        let shared = MRegistration(
            container: 0, service: .cls(sharedClass), makes: sharedClass, name: .x,
            args: .none, scope: random.pick([.graph, .unspecified, .graph, .weak, .transient]), dependencies: [],
            completions: [], forwards: [], onDeinit: .none)
        let sharedRequest = MRequest(type: shared.service, name: shared.name, args: .none, wrapper: .plain)
        var block: [MStep] = [.register(shared)]
        var contributions: [MRegistration] = []
        for _ in 0..<(2 + random.below(3)) {
            var dependencies: [MRequest] = []
            if random.chance(60) { dependencies.append(sharedRequest) }
            if random.chance(15) {
                dependencies.append(MRequest(type: .cls(.a), name: nil, args: .none, wrapper: .graphIdentifier))
            }
            if random.chance(20) { dependencies.append(makeRequest(&random, registered: registered, topLevel: false)) }
            let scope = random.pick(MScope.allCases)
            let name = random.pick(names)
            var contribution: MRegistration
            if random.chance(25) {
                // Another type forwarded to `T`: its instances are `T`s unless it is transient.
                let makes = random.pick(MClass.allCases.filter { scope == .transient || type.isSatisfied(by: $0) })
                contribution = MRegistration(
                    container: container(), service: .cls(makes), makes: makes, name: random.pick(names),
                    args: .none, scope: scope, dependencies: dependencies, completions: [],
                    forwards: [MForward(type: type, name: name)], onDeinit: .none)
            } else {
                contribution = MRegistration(
                    container: container(), service: type,
                    makes: random.pick(MClass.allCases.filter { type.isSatisfied(by: $0) }), name: name, args: .none,
                    scope: scope, dependencies: dependencies, completions: [], forwards: [], onDeinit: .none)
            }
            if features.contains(.mainActor) && random.chance(10) {
                contribution.isMain = true
            } else if random.chance(8) {
                contribution.throwsAfterDependencies = true
            }
            contributions.append(contribution)
            block.append(.register(contribution))
            if random.chance(50) { block.append(ask()) }
        }
        if random.chance(30) {
            // Registered again: a new entry, in the place of the first.
            var again = random.pick(contributions)
            again.scope = random.pick(MScope.allCases)
            if !again.isMain && random.chance(30) { again.throwsAfterDependencies.toggle() }
            block.append(.register(again))
            block.append(ask())
        }
        if random.chance(15) {
            block.append(.removeAll(container: random.below(containers)))
            block.append(ask())
        }
        for _ in 0..<(random.chance(70) ? 1 + random.below(2) : 0) {
            let service = random.pick(MType.all)
            var dependencies: [MRequest] = []
            if random.chance(50) { dependencies.append(sharedRequest) }
            dependencies.append(
                MRequest(
                    type: random.chance(90) ? type : random.pick(MType.all), name: nil, args: .none,
                    wrapper: random.chance(50) ? .collection : .requireCollection))
            if random.chance(30) { dependencies.append(sharedRequest) }
            let consumer = MRegistration(
                container: container(), service: service,
                makes: random.pick(MClass.allCases.filter { service.isSatisfied(by: $0) }),
                name: random.pick([.y, .y, .cafeComposed, nil]), args: .none, scope: random.pick(MScope.allCases),
                dependencies: dependencies, completions: [], forwards: [], onDeinit: .none)
            block.append(.register(consumer))
            let request = MRequest(type: service, name: consumer.name, args: .none, wrapper: .plain)
            for _ in 0...random.below(2) {
                let on = random.pick(descendants(of: consumer.container, parents: program.parents))
                block.append(
                    random.chance(25) ? .resolveThroughView(container: on, request) : .resolve(container: on, request))
            }
        }
        for _ in 0...random.below(2) { block.append(ask()) }
        // At times a registration of the program resolves the collection too.
        let candidates = program.steps.indices.filter {
            if case .register(let r) = program.steps[$0] { return !r.isMain }
            return false
        }
        if !candidates.isEmpty && random.chance(30) {
            let index = random.pick(candidates)
            if case .register(var r) = program.steps[index] {
                r.dependencies.insert(
                    MRequest(
                        type: type, name: nil, args: .none,
                        wrapper: random.chance(50) ? .collection : .requireCollection),
                    at: random.below(r.dependencies.count + 1))
                program.steps[index] = .register(r)
            }
        }
        // Spread over the program, in order; the final live count stays last.
        var end = program.steps.count
        if case .countLive = program.steps.last { end -= 1 }
        let places = block.indices.map { _ in random.below(end + 1) }.sorted()
        var merged: [MStep] = []
        var next = 0
        for (index, step) in program.steps.enumerated() {
            while next < block.count && places[next] == index {
                merged.append(block[next])
                next += 1
            }
            merged.append(step)
        }
        merged.append(contentsOf: block[next...])
        program.steps = merged
    }

    /// In three programs in ten, a block at a random place: a singleton `S` (`.container` or
    /// `.weak`), an `@Injected var service: S?` made outside any resolution, and a request for `O`
    /// whose factory resolves `S` (the request keeps it), then `X`, whose factory reads that
    /// `@Injected` (which finds the `S` the request kept) and then, most of the time, asks for `O`
    /// again: a cycle, so the whole request fails. Then `S` is resolved and the `@Injected` read
    /// again: the one instance, which the failure must not take back.
    static func addInjectedReadInAFailingRequest<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.graftAPI) && random.chance(30) else { return }
        let container = random.below(program.parents.count)
        let classes = MClass.allCases
        let single = MRegistration(
            container: container, service: .cls(random.pick(classes)), makes: .a, name: makeName(&random),
            args: .none, scope: random.pick([.container, .container, .weak, .customPermanent]), dependencies: [],
            completions: [], forwards: [], onDeinit: .none)
        var singleton = single
        if case .cls(let made) = single.service { singleton.makes = made }
        let outer = MRegistration(
            container: container, service: .cls(random.pick(classes)), makes: .a, name: .y, args: .none,
            scope: random.pick([.transient, .graph]), dependencies: [], completions: [], forwards: [],
            onDeinit: .none)
        var outerService = outer
        if case .cls(let made) = outer.service { outerService.makes = made }
        let readerClass = random.pick(classes)
        let reader = MRegistration(
            container: container, service: .cls(readerClass), makes: readerClass, name: .x, args: .none,
            scope: .transient,
            dependencies: random.chance(80)
                ? [MRequest(type: outerService.service, name: outerService.name, args: .none, wrapper: .optional)] : [],
            completions: [], forwards: [], onDeinit: .none, factoryAction: .readInjected)
        outerService.dependencies = [
            MRequest(type: singleton.service, name: singleton.name, args: .none, wrapper: .plain),
            MRequest(
                type: reader.service, name: reader.name, args: .none, wrapper: random.pick([.optional, .fallback])),
        ]
        let requestOfSingleton = MRequest(type: singleton.service, name: singleton.name, args: .none, wrapper: .plain)
        let block: [MStep] = [
            .register(singleton), .register(reader), .register(outerService),
            .makeInjected(bindings: [.resolver(container: container)], requestOfSingleton),
            .resolve(
                container: container,
                MRequest(type: outerService.service, name: outerService.name, args: .none, wrapper: .plain)),
            .resolve(container: container, requestOfSingleton),
            .readRecent(back: 2, offMain: false),
        ]
        program.steps.insert(contentsOf: block, at: random.below(program.steps.count + 1))
    }

    /// A program decoded from fuzzer bytes: every byte string is a valid program.
    public static func decode(_ bytes: [UInt8], maxSteps: Int = 40, features: ProgramFeatures = .all) -> MProgram {
        var source = ByteSource(bytes)
        var program = generate(using: &source, maxSteps: maxSteps, features: features)
        addBehavior(to: &program, using: &source, features: features)
        addFirstAccesses(to: &program, using: &source, features: features)
        addInjectedReadInAFailingRequest(to: &program, using: &source, features: features)
        addCollections(to: &program, using: &source, features: features)
        addFactoryVariants(to: &program, using: &source, features: features)
        return program
    }

    /// What the generator knows while it writes a program.
    struct State {
        var parents: [Int]
        var features: ProgramFeatures
        var registered: [(MType, MName?, MArgs)] = []
        var registeredIn: [Int] = []
        var mains: [MRegistration] = []
        /// The registrations of the register steps so far, in order (a forward step names one).
        var registrations: [MRegistration] = []
        /// Those a later `registerMain` of the same key in the same container replaced.
        var replaced: Set<Int> = []
        /// Main-actor ones with a forward: a forward keeps the entry once it is replaced.
        var forwarded: Set<Int> = []
        /// What main-actor registrations answer to (their keys, and the types forwarded to them),
        /// and the container each is in.
        var mainTargets: [(type: MType, name: MName?, container: Int)] = []
        /// Slots the steps so far make (an estimate: the model may drop steps).
        var slots = 0
        /// The top-level resolutions so far: the slot each fills, and its request.
        var resolutions: [(slot: Int, request: MRequest)] = []

        /// What a main-actor registration answers to: half the time one of the two added last (a
        /// forward made after a replacement, say).
        func mainTarget<Source: ChoiceSource>(_ random: inout Source) -> (type: MType, name: MName?, container: Int) {
            if mainTargets.count > 2 && random.chance(50) {
                return mainTargets[mainTargets.count - 1 - random.below(2)]
            }
            return random.pick(mainTargets)
        }

        /// `container` and the containers below it.
        func descendants(of container: Int) -> [Int] {
            parents.indices.filter { c in
                var level = c
                while level >= 0 && level != container { level = parents[level] }
                return level >= 0
            }
        }

        /// A slot index: mostly one of the last two, where new `Lazy`s and instances are.
        mutating func slot<Source: ChoiceSource>(_ random: inout Source) -> Int {
            if slots > 0 && random.chance(60) { return max(0, slots - 1 - random.below(2)) }
            return random.below(64)
        }
    }

    static func generate<Source: ChoiceSource>(
        using random: inout Source, maxSteps: Int, features: ProgramFeatures
    ) -> MProgram {
        let shapes: [[Int]] = [[-1], [-1, 0], [-1, 0, 0], [-1, 0, 1], [-1, 0, 1, 0], [-1, 0, 1, 2]]
        let parents = random.pick(shapes)
        let childrenOfViews = features.contains(.graftAPI) && parents.count > 1 && random.chance(25)
        let count = 4 + random.below(max(1, maxSteps - 3))
        var steps: [MStep] = []
        var state = State(parents: parents, features: features)
        while steps.count < count && !(random.exhausted && steps.count > 0) {
            let roll = random.below(100)
            if roll < 28 && features.contains(.graftAPI) && random.chance(8) {
                let name = makeName(&random)
                let container = random.below(parents.count)
                state.registered.append((.asyncService, name, .none))
                state.registeredIn.append(container)
                steps.append(.registerAsync(container: container, name: name))
            } else if roll < 28 || state.registered.isEmpty {
                var registration: MRegistration
                if !state.mains.isEmpty && random.chance(35) {
                    // The same main-actor key again, in the same container: it replaces the first.
                    registration = random.pick(state.mains)
                    registration.scope = random.pick(MScope.allCases)
                } else {
                    registration = makeRegistration(
                        &random, containers: parents.count, registered: state.registered, features: features)
                }
                if registration.isMain {
                    for (index, earlier) in state.registrations.enumerated()
                    where earlier.isMain && earlier.container == registration.container
                        && earlier.service == registration.service && earlier.name == registration.name
                    {
                        state.replaced.insert(index)
                    }
                    state.mains.append(registration)
                    if !registration.forwards.isEmpty { state.forwarded.insert(state.registrations.count) }
                    state.mainTargets.append((registration.service, registration.name, registration.container))
                    for forward in registration.forwards {
                        state.mainTargets.append((forward.type, forward.name, registration.container))
                    }
                }
                state.registrations.append(registration)
                state.registered.append((registration.service, registration.name, registration.args))
                state.registeredIn.append(registration.container)
                for forward in registration.forwards {
                    state.registered.append((forward.type, forward.name, registration.args))
                    state.registeredIn.append(registration.container)
                }
                steps.append(.register(registration))
            } else if roll < 52 {
                // Empty unless main-actor registrations are generated.
                if !state.mainTargets.isEmpty && random.chance(25) {
                    steps.append(makeOffMainResolution(&random, &state))
                    state.slots += 1
                    continue
                }
                let (container, request) = makeTopLevelResolution(&random, &state)
                if features.contains(.graftAPI) && random.chance(20) {
                    steps.append(.resolveThroughView(container: container, request))
                } else {
                    steps.append(.resolve(container: container, request))
                }
                state.resolutions.append((state.slots, request))
                state.slots += 1
            } else if roll < 58 {
                var requests = (0...random.below(3)).map { _ in
                    makeRequest(&random, registered: state.registered, topLevel: true)
                }
                let container = random.below(parents.count)
                var slot = state.slot(&random)
                let field = random.below(8)
                // Half the steps resume the graph of a top-level resolution (the latest of a service
                // whose factory holds its graph's identifier, if any), asking again for what it
                // resolved: a graph whose identifier escaped keeps its instances for that. Chosen with
                // no draw of its own, so the other steps stay as they are.
                let holdsGraph = { (request: MRequest) in
                    state.registrations.contains { registration in
                        registration.service == request.type && registration.name == request.name
                            && registration.dependencies.contains { $0.wrapper == .graphIdentifier }
                    }
                }
                if field % 2 == 0,
                    let latest = state.resolutions.last(where: { holdsGraph($0.request) }) ?? state.resolutions.last
                {
                    slot = latest.slot
                    requests[0] = latest.request
                }
                steps.append(.withObjectGraph(container: container, slot: slot, field: field, requests))
                state.slots += requests.count
            } else if roll < 69 {
                steps.append(.access(slot: state.slot(&random), field: random.chance(40) ? nil : random.below(8)))
                state.slots += 1
            } else if roll < 77 {
                steps.append(.release(slot: state.slot(&random)))
            } else if roll < 81 {
                let scopes: [MScope] = [.transient, .graph, .container, .weak, .customPermanent, .customGraph]
                steps.append(
                    .reset(
                        container: random.below(parents.count), scope: random.pick(scopes),
                        service: random.chance(40) ? random.pick(MType.all) : nil))
            } else if roll < 83 {
                steps.append(.removeAll(container: random.below(parents.count)))
            } else if roll < 85 {
                // Main-actor registrations (none unless generated) take forwards after they are
                // replaced, too: their entry is then reached only through what a forward keeps.
                let mains = state.registrations.indices.filter { state.registrations[$0].isMain }
                if !mains.isEmpty && random.chance(75) {
                    // Mostly a replaced one that a forward kept.
                    let replaced = mains.filter { state.replaced.contains($0) }
                    let kept = replaced.filter { state.forwarded.contains($0) }
                    let index =
                        !kept.isEmpty && random.chance(80)
                        ? random.pick(kept)
                        : !replaced.isEmpty && random.chance(50) ? random.pick(replaced) : random.pick(mains)
                    state.forwarded.insert(index)
                    let target = state.registrations[index]
                    let forward = makeForward(&random, transient: target.scope == .transient, makes: target.makes)
                    state.registered.append((forward.type, forward.name, .none))
                    state.registeredIn.append(target.container)
                    state.mainTargets.append((forward.type, forward.name, target.container))
                    steps.append(.forward(registration: index, forward))
                    continue
                }
                steps.append(
                    .forward(registration: random.below(64), makeForward(&random, transient: false, makes: nil)))
            } else if roll < 88 {
                if parents.count > 1 { steps.append(.freeContainer(1 + random.below(parents.count - 1))) }
            } else if roll < 91 {
                // Dumps are dear (a container's reaches its whole hierarchy): one step in 70.
                if random.chance(50) {
                    steps.append(
                        random.chance(50)
                            ? .dumpContainer(random.below(parents.count)) : .dumpSlot(state.slot(&random)))
                }
            } else if roll < 94 {
                if features.contains(.liveCounts) { steps.append(.countLive) }
                if features.contains(.graftAPI) && random.chance(40) {
                    steps.append(.inspectRegistrations(container: random.below(parents.count)))
                }
                if features.contains(.graftAPI) && random.chance(70) {
                    steps.append(.validate(container: random.below(parents.count)))
                }
            } else if features.contains(.graftAPI) {
                // Empty unless main-actor registrations are generated.
                if !state.mainTargets.isEmpty && random.chance(50) {
                    steps.append(makeOverriddenResolution(&random, &state))
                } else {
                    steps.append(makeInjected(&random, &state))
                }
                state.slots += 1
            }
        }
        if features.contains(.liveCounts) { steps.append(.countLive) }
        return MProgram(parents: parents, steps: steps, childrenOfViews: childrenOfViews)
    }

    /// A top-level request: mostly a registered key, from its container or a descendant.
    static func makeTopLevelResolution<Source: ChoiceSource>(
        _ random: inout Source, _ state: inout State
    ) -> (Int, MRequest) {
        guard random.chance(85) else {
            return (
                random.below(state.parents.count),
                makeRequest(&random, registered: state.registered, topLevel: true)
            )
        }
        let index = random.below(state.registered.count)
        let (type, name, args) = state.registered[index]
        var request = makeRequest(&random, registered: [], topLevel: true)
        request.type = type
        request.name = name
        request.args = args
        return (random.pick(state.descendants(of: state.registeredIn[index])), request)
    }

    /// A resolution on another thread: mostly of what a main-actor registration answers to, from
    /// its container or a descendant.
    static func makeOffMainResolution<Source: ChoiceSource>(_ random: inout Source, _ state: inout State) -> MStep {
        guard random.chance(70) else {
            let (container, request) = makeTopLevelResolution(&random, &state)
            return .resolveOffMain(container: container, request)
        }
        let target = state.mainTarget(&random)
        let request = MRequest(
            type: target.type, name: target.name, args: .none, wrapper: random.chance(80) ? .plain : .optional)
        return .resolveOffMain(container: random.pick(state.descendants(of: target.container)), request)
    }

    /// A resolution inside `withOverrides`: mostly of what a main-actor registration answers to,
    /// which the copy makes afresh; sometimes with an override of the key asked for.
    static func makeOverriddenResolution<Source: ChoiceSource>(_ random: inout Source, _ state: inout State) -> MStep {
        let (container, request): (Int, MRequest)
        if random.chance(75) {
            let target = state.mainTarget(&random)
            let wrapper: MWrapper = random.chance(80) ? .plain : .optional
            request = MRequest(type: target.type, name: target.name, args: .none, wrapper: wrapper)
            container = random.pick(state.descendants(of: target.container))
        } else {
            (container, request) = makeTopLevelResolution(&random, &state)
        }
        guard random.chance(50) else { return .resolveInOverrides(container: container, override: nil, request) }
        var override = makeRegistration(
            &random, containers: state.parents.count, registered: state.registered, features: state.features)
        if request.type != .asyncService && random.chance(30) {
            override.service = request.type
            override.makes = random.pick(MClass.allCases.filter { request.type.isSatisfied(by: $0) })
            override.name = request.name
            override.args = request.args
            override.forwards = override.forwards.filter { $0.type.isSatisfied(by: override.makes) }
        }
        return .resolveInOverrides(container: container, override: override, request)
    }

    /// An `@Injected` made inside one to three levels of bindings, the first a resolver.
    static func makeInjected<Source: ChoiceSource>(_ random: inout Source, _ state: inout State) -> MStep {
        let unargumented = state.registered.filter { $0.2 == .none }
        let type: MType
        let name: MName?
        if !state.mainTargets.isEmpty && random.chance(30) {
            // What a main-actor registration answers to: inside `withOverrides`, a copy of it.
            let target = state.mainTarget(&random)
            (type, name) = (target.type, target.name)
        } else if !unargumented.isEmpty && random.chance(75) {
            (type, name, _) = random.pick(unargumented)
        } else {
            (type, name) = (random.pick(MType.all), makeName(&random))
        }
        var bindings: [MBinding] = [.resolver(container: random.below(state.parents.count))]
        for _ in 0..<random.below(3) {
            if random.chance(25) {
                bindings.append(.resolver(container: random.below(state.parents.count)))
            } else if random.chance(20) {
                bindings.append(.overrides(nil))
            } else {
                var override = makeRegistration(
                    &random, containers: state.parents.count, registered: state.registered, features: state.features)
                if type != .asyncService && random.chance(60) {
                    override.service = type
                    override.makes = random.pick(MClass.allCases.filter { type.isSatisfied(by: $0) })
                    override.name = name
                    override.args = .none
                    override.forwards = override.forwards.filter { $0.type.isSatisfied(by: override.makes) }
                }
                bindings.append(.overrides(override))
            }
        }
        return .makeInjected(bindings: bindings, MRequest(type: type, name: name, args: .none, wrapper: .plain))
    }

    /// In some programs, adds a copying behavior (`MStep.addBehavior`) to one container, mostly
    /// one with a main-actor registration and before the first step, then resolutions after the
    /// steps that follow: through the copies it keeps (mostly the newest), or in the container
    /// itself, mostly of what a main-actor registration of the copied chain answers to.
    static func addBehavior<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.graftAPI) && !program.steps.isEmpty && random.chance(30) else { return }
        let parents = program.parents
        let mainContainers = program.steps.compactMap { step -> Int? in
            guard case .register(let r) = step, r.isMain else { return nil }
            return r.container
        }
        let container =
            !mainContainers.isEmpty && random.chance(70) ? random.pick(mainContainers) : random.below(parents.count)
        var chain: Set<Int> = []
        var level = container
        while level >= 0 {
            chain.insert(level)
            level = parents[level]
        }
        let scopes: [MScope] = [.transient, .graph, .container, .weak, .customPermanent, .customGraph]
        let scope: MScope? = random.chance(50) ? random.pick(scopes) : nil
        let start = random.chance(80) ? 0 : random.below(program.steps.count)
        // What the copied chain answers to so far, and how many copies the behavior has kept (an
        // estimate: the model may drop steps, and registrations run by factories and `deinit`s copy too).
        var registrations: [MRegistration] = []
        var keys: [(MType, MName?, MArgs)] = []
        var mainKeys: [(MType, MName?)] = []
        var copies = 0
        var steps: [MStep] = []
        for (index, step) in program.steps.enumerated() {
            if index == start { steps.append(.addBehavior(container: container, scope: scope)) }
            steps.append(step)
            let behaving = index >= start
            switch step {
            case .register(let r):
                registrations.append(r)
                if chain.contains(r.container) {
                    keys.append((r.service, r.name, r.args))
                    if r.isMain { mainKeys.append((r.service, r.name)) }
                    for forward in r.forwards {
                        keys.append((forward.type, forward.name, r.args))
                        if r.isMain { mainKeys.append((forward.type, forward.name)) }
                    }
                }
                if behaving && r.container == container { copies += 1 }
            case .forward(let registration, let forward):
                guard !registrations.isEmpty else { break }
                let r = registrations[registration % registrations.count]
                if chain.contains(r.container) {
                    keys.append((forward.type, forward.name, r.args))
                    if r.isMain { mainKeys.append((forward.type, forward.name)) }
                }
            case .registerAsync(let c, let name):
                if chain.contains(c) { keys.append((.asyncService, name, .none)) }
                if behaving && c == container { copies += 1 }
            default:
                break
            }
            guard behaving && copies > 0 && random.chance(30) else { continue }
            var request: MRequest
            if !mainKeys.isEmpty && random.chance(60) {
                let (type, name) = random.pick(mainKeys)
                request = MRequest(type: type, name: name, args: .none, wrapper: random.chance(80) ? .plain : .optional)
            } else {
                request = makeRequest(&random, registered: [], topLevel: true)
                if !keys.isEmpty && random.chance(85) { (request.type, request.name, request.args) = random.pick(keys) }
            }
            if random.chance(25) {
                steps.append(.resolve(container: container, request))
            } else {
                let copy = random.chance(70) ? max(0, copies - 1 - random.below(2)) : random.below(copies)
                steps.append(.resolveInCopy(copy: copy, request))
            }
        }
        program.steps = steps
    }

    /// In some programs, one or two blocks of steps, each at a random place, that make a `Lazy`, a
    /// `Provider` (each through the container or its synchronized view), an `@Injected` or an
    /// `@MainInjected` and read it, so that its first access is re-entered, or fails before it
    /// succeeds:
    ///
    /// - re-entered: the service's factory resolves a graph-scoped service and drops it at once,
    ///   so it is released as the first access's resolution ends, and its `deinit` reads the same
    ///   wrapper (`deinitSlot` 2). The service is mostly transient or graph-scoped, so the nested
    ///   read makes an instance of its own, and which one the wrappers hand out shows in the trace;
    /// - failed first (`@Injected`, `@MainInjected`; a failure would stop a `Lazy` or `Provider`):
    ///   the wrapper's first read fails, `nil` and not kept, because it is made on another thread
    ///   while the service is a main-actor one (`@Injected` only), or because the key is forwarded to
    ///   a transient registration of another class; then the service is registered under that key
    ///   (replacing the forward) or read on the program's thread, and the next read resolves it.
    ///
    /// The choices come from a random stream of their own.
    static func addFirstAccesses<Source: ChoiceSource>(
        to program: inout MProgram, using random: inout Source, features: ProgramFeatures
    ) {
        guard features.contains(.deinitEffects) && random.chance(40) else { return }
        for _ in 0...random.below(2) {
            let block = firstAccessBlock(&random, parents: program.parents, features: features)
            program.steps.insert(contentsOf: block, at: random.below(program.steps.count + 1))
        }
    }

    static func firstAccessBlock<Source: ChoiceSource>(
        _ random: inout Source, parents: [Int], features: ProgramFeatures
    ) -> [MStep] {
        var wrappers: [MFirstAccessWrapper] = [.lazy, .provider]
        if features.contains(.graftAPI) { wrappers += [.injected, .injected] }
        if features.contains(.graftAPI) && features.contains(.mainActor) { wrappers += [.mainInjected, .mainInjected] }
        let wrapper = random.pick(wrappers)
        var failures: [PlantedFailure] = [.none, .none]
        if wrapper == .injected || wrapper == .mainInjected { failures.append(.forwardToAnotherClass) }
        if wrapper == .injected && features.contains(.mainActor) { failures.append(.offMain) }
        let failure = random.pick(failures)
        let container = random.below(parents.count)
        // The graph-scoped service whose `deinit` reads the wrapper the step reads.
        let releasedClass = random.pick(MClass.allCases)
        let released = MRegistration(
            container: container, service: .cls(releasedClass), makes: releasedClass, name: makeName(&random),
            args: .none, scope: random.pick([.graph, .unspecified]), dependencies: [], completions: [], forwards: [],
            onDeinit: .readSlot, deinitSlot: 2)
        let service = random.pick(MType.all)
        var dependencies = [
            MRequest(type: released.service, name: released.name, args: .none, wrapper: .discarded)
        ]
        if random.chance(25) {
            dependencies.append(makeRequest(&random, registered: [], topLevel: false))
        }
        let main =
            failure == .offMain || (features.contains(.mainActor) && random.chance(wrapper == .mainInjected ? 50 : 15))
        let served = MRegistration(
            container: container, service: service,
            makes: random.pick(MClass.allCases.filter { service.isSatisfied(by: $0) }), name: makeName(&random),
            args: .none, scope: random.pick([.transient, .transient, .graph, .unspecified, .container, .weak]),
            dependencies: dependencies, completions: [], forwards: [], onDeinit: .none, isMain: main)
        let reader = random.pick(descendants(of: container, parents: parents))
        let request = MRequest(type: service, name: served.name, args: .none, wrapper: .plain)
        var steps: [MStep] = [.register(released)]
        var readsBeforeTheService: [MStep] = []
        switch failure {
        case .none:
            steps.append(.register(served))
        case .offMain:
            steps.append(.register(served))
            readsBeforeTheService = [.readRecent(back: 0, offMain: true)]
        case .forwardToAnotherClass:
            let other = random.pick(MClass.allCases.filter { !service.isSatisfied(by: $0) })
            steps.append(
                .register(
                    MRegistration(
                        container: container, service: .cls(other), makes: other, name: makeName(&random),
                        args: .none, scope: .transient, dependencies: [], completions: [],
                        forwards: [MForward(type: service, name: served.name)], onDeinit: .none)))
            readsBeforeTheService = [.readRecent(back: 0, offMain: false), .register(served)]
        }
        switch wrapper {
        case .lazy, .provider:
            var deferred = request
            deferred.wrapper = wrapper == .lazy ? .lazy : .provider
            steps.append(
                features.contains(.graftAPI) && random.chance(50)
                    ? .resolveThroughView(container: reader, deferred) : .resolve(container: reader, deferred))
        case .injected, .mainInjected:
            var bindings: [MBinding] = [.resolver(container: reader)]
            if random.chance(20) { bindings.append(.overrides(nil)) }
            steps.append(
                wrapper == .injected
                    ? .makeInjected(bindings: bindings, request) : .makeMainInjected(bindings: bindings, request))
        }
        steps += readsBeforeTheService
        // The wrapper is the newest slot, or the one before the failed read's; each read adds one.
        var back = readsBeforeTheService.isEmpty ? 0 : 1
        steps.append(.readRecent(back: back, offMain: false))
        back += 1
        if random.chance(50) {
            steps.append(.readRecent(back: back, offMain: false))
            back += 1
        }
        // Read again on another thread: a value whose first read resolved a main-actor
        // registration, at any depth, is refused there whoever read it first.
        if wrapper == .injected && features.contains(.mainActor) && random.chance(50) {
            steps.append(.readRecent(back: back, offMain: true))
        }
        return steps
    }

    /// How a planted first access fails before it succeeds (see `addFirstAccesses`).
    private enum PlantedFailure { case none, offMain, forwardToAnotherClass }

    /// `container` and the containers below it.
    static func descendants(of container: Int, parents: [Int]) -> [Int] {
        parents.indices.filter { c in
            var level = c
            while level >= 0 && level != container { level = parents[level] }
            return level >= 0
        }
    }

    static func makeName<Source: ChoiceSource>(_ random: inout Source) -> MName? {
        random.chance(80) ? nil : random.pick(MName.allCases)
    }

    static func makeArgs<Source: ChoiceSource>(_ random: inout Source) -> MArgs {
        random.chance(80) ? .none : random.pick(MArgs.allCases)
    }

    static func makeForward<Source: ChoiceSource>(_ random: inout Source, transient: Bool, makes: MClass?) -> MForward {
        var candidates = MType.all
        // Forwarding to a type the instances are not is modelled for transient registrations only.
        if let makes, !transient { candidates = candidates.filter { $0.isSatisfied(by: makes) } }
        return MForward(type: random.pick(candidates), name: random.chance(75) ? nil : random.pick(MName.allCases))
    }

    static func makeRegistration<Source: ChoiceSource>(
        _ random: inout Source, containers: Int, registered: [(MType, MName?, MArgs)], features: ProgramFeatures
    ) -> MRegistration {
        let service = random.pick(MType.all)
        let makes = random.pick(MClass.allCases.filter { service.isSatisfied(by: $0) })
        let scope = random.pick(MScope.allCases)
        let dependencies = (0..<random.below(4)).map { _ in
            makeRequest(&random, registered: registered, topLevel: false)
        }
        let completions =
            random.chance(25)
            ? [(0...random.below(2)).map { _ in makeRequest(&random, registered: registered, topLevel: false) }] : []
        let isMain = features.contains(.mainActor) && random.chance(20)
        let forwards =
            random.chance(isMain ? 50 : 25)
            ? (0...random.below(2)).map { _ in makeForward(&random, transient: scope == .transient, makes: makes) } : []
        let roll = random.below(100)
        var onDeinit: MDeinit = roll < 8 ? .resolveProbe : roll < 12 ? .registerScratch : .none
        if features.contains(.deinitEffects) && onDeinit == .none {
            onDeinit = roll < 27 ? .readSlot : roll < 31 ? .reregister : .none
        }
        let actionRoll = random.below(100)
        let factoryAction: MFactoryAction =
            actionRoll < 4
            ? .resetContainerScope
            : actionRoll < 8
                ? .resetGraphScope
                : actionRoll < 12
                    ? .reregister
                    : actionRoll < 14
                        ? .removeAll
                        : actionRoll < 20 && features.contains(.graftAPI)
                            ? .readInjected
                            : actionRoll >= 96
                                ? .droppedChildResolves : actionRoll >= 92 ? .childDroppedByItsFactory : .none
        return MRegistration(
            container: random.below(containers), service: service, makes: makes, name: makeName(&random),
            args: isMain ? .none : makeArgs(&random), scope: scope, dependencies: dependencies,
            completions: completions, forwards: forwards, onDeinit: onDeinit, deinitSlot: random.below(3),
            factoryAction: factoryAction, isMain: isMain)
    }

    static func makeRequest<Source: ChoiceSource>(
        _ random: inout Source, registered: [(MType, MName?, MArgs)], topLevel: Bool
    ) -> MRequest {
        let roll = random.below(100)
        let wrapper: MWrapper
        if topLevel {
            wrapper = roll < 55 ? .plain : roll < 65 ? .optional : roll < 85 ? .lazy : .provider
        } else {
            // The last 15 in 100: forms that handle the dependency's failure as application code does.
            let handling: [MWrapper] = [.caughtRequire, .fallback, .optionalOperator]
            wrapper =
                roll < 85
                ? (roll < 43
                    ? .plain
                    : roll < 50
                        ? .optional
                        : roll < 59 ? .lazy : roll < 66 ? .provider : roll < 73 ? .graphIdentifier : .discarded)
                : handling[(roll - 85) % handling.count]
        }
        if !registered.isEmpty && random.chance(75) {
            let (type, name, args) = random.pick(registered)
            return MRequest(type: type, name: name, args: args, wrapper: wrapper)
        }
        return MRequest(
            type: random.pick(MType.all), name: makeName(&random), args: makeArgs(&random), wrapper: wrapper)
    }
}

// MARK: - Shrinking

public enum ProgramShrinker {
    /// Smaller variants of `program`, most aggressive first.
    public static func candidates(_ program: MProgram) -> [MProgram] {
        var result: [MProgram] = []
        let steps = program.steps
        // Delete runs of steps, halving the run length.
        var chunk = max(1, steps.count / 2)
        while chunk >= 1 {
            var start = 0
            while start < steps.count {
                var smaller = program
                smaller.steps.removeSubrange(start..<min(steps.count, start + chunk))
                result.append(smaller)
                start += chunk
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        // Fewer containers.
        if program.parents.count > 1 {
            var smaller = program
            smaller.parents.removeLast()
            let limit = smaller.parents.count
            smaller.steps = smaller.steps.map { $0.mappingContainers { $0 % limit } }
            result.append(smaller)
        }
        if program.childrenOfViews {
            var smaller = program
            smaller.childrenOfViews = false
            result.append(smaller)
        }
        // Simplify inside steps.
        for (index, step) in steps.enumerated() {
            for simpler in simplifications(step) {
                var smaller = program
                smaller.steps[index] = simpler
                result.append(smaller)
            }
        }
        return result
    }

    static func simplifications(_ step: MStep) -> [MStep] {
        switch step {
        case .register(let r):
            var out: [MRegistration] = []
            for i in r.dependencies.indices {
                var s = r
                s.dependencies.remove(at: i)
                out.append(s)
            }
            for i in r.completions.indices {
                var s = r
                s.completions.remove(at: i)
                out.append(s)
            }
            for i in r.forwards.indices {
                var s = r
                s.forwards.remove(at: i)
                out.append(s)
            }
            if r.onDeinit != .none { var s = r; s.onDeinit = .none; out.append(s) }
            if r.factoryAction != .none { var s = r; s.factoryAction = .none; out.append(s) }
            if r.isMain { var s = r; s.isMain = false; out.append(s) }
            if r.scope != .unspecified { var s = r; s.scope = .unspecified; out.append(s) }
            if r.name != nil { var s = r; s.name = nil; out.append(s) }
            if r.container != 0 { var s = r; s.container = 0; out.append(s) }
            for (i, request) in r.dependencies.enumerated()
            where request.wrapper != .plain && request.wrapper != .graphIdentifier && request.wrapper != .discarded {
                var s = r
                s.dependencies[i].wrapper = .plain
                out.append(s)
            }
            return out.map { .register($0) }
        case .withObjectGraph(let container, let slot, let field, let requests):
            var out: [MStep] = []
            if requests.count > 1 {
                for i in requests.indices {
                    var smaller = requests
                    smaller.remove(at: i)
                    out.append(.withObjectGraph(container: container, slot: slot, field: field, smaller))
                }
            }
            return out + requests.map { .resolve(container: container, $0) }
        case .resolve(let container, let request):
            return container == 0 ? [] : [.resolve(container: 0, request)]
        case .reset(let container, let scope, let service):
            return service == nil ? [] : [.reset(container: container, scope: scope, service: nil)]
        case .resolveThroughView(let container, let request):
            return [.resolve(container: container, request)]
        case .resolveOffMain(let container, let request):
            return container == 0 ? [] : [.resolveOffMain(container: 0, request)]
        case .resolveInOverrides(let container, let override, let request):
            var out: [MStep] = [.resolve(container: container, request)]
            if override != nil { out.append(.resolveInOverrides(container: container, override: nil, request)) }
            if container != 0 { out.append(.resolveInOverrides(container: 0, override: override, request)) }
            return out
        case .addBehavior(let container, let scope):
            var out: [MStep] = []
            if scope != nil { out.append(.addBehavior(container: container, scope: nil)) }
            if container != 0 { out.append(.addBehavior(container: 0, scope: scope)) }
            return out
        case .makeInjected(let bindings, let request):
            var out: [MStep] = []
            for i in bindings.indices where i > 0 {
                var smaller = bindings
                smaller.remove(at: i)
                out.append(.makeInjected(bindings: smaller, request))
            }
            return out
        case .makeMainInjected(let bindings, let request):
            var out: [MStep] = [.makeInjected(bindings: bindings, request)]
            for i in bindings.indices where i > 0 {
                var smaller = bindings
                smaller.remove(at: i)
                out.append(.makeMainInjected(bindings: smaller, request))
            }
            return out
        case .readRecent(let back, let offMain):
            return offMain ? [.readRecent(back: back, offMain: false)] : []
        default:
            return []
        }
    }

    /// Shrinks `program` while `fails` holds, up to `budget` attempts.
    public static func shrink(_ program: MProgram, budget: Int = 2000, fails: (MProgram) -> Bool) -> MProgram {
        var current = program
        var attempts = 0
        var improved = true
        while improved && attempts < budget {
            improved = false
            for candidate in candidates(current) {
                attempts += 1
                if attempts > budget { break }
                if fails(candidate) {
                    current = candidate
                    improved = true
                    break
                }
            }
        }
        return current
    }
}

extension MRegistration {
    func mappingContainers(_ map: (Int) -> Int) -> MRegistration {
        var moved = self
        moved.container = map(container)
        for index in moved.dependencies.indices {
            moved.dependencies[index].through = dependencies[index].through.map(map)
        }
        return moved
    }
}

extension MBinding {
    func mappingContainers(_ map: (Int) -> Int) -> MBinding {
        switch self {
        case .resolver(let c): return .resolver(container: map(c))
        case .overrides(let r):
            return .overrides(r?.mappingContainers(map))
        }
    }
}

extension MStep {
    func mappingContainers(_ map: (Int) -> Int) -> MStep {
        switch self {
        case .register(let r): return .register(r.mappingContainers(map))
        case .resolve(let c, let request): return .resolve(container: map(c), request)
        case .withObjectGraph(let c, let slot, let field, let requests):
            return .withObjectGraph(container: map(c), slot: slot, field: field, requests)
        case .reset(let c, let scope, let service): return .reset(container: map(c), scope: scope, service: service)
        case .removeAll(let c): return .removeAll(container: map(c))
        case .resolveThroughView(let c, let request): return .resolveThroughView(container: map(c), request)
        case .resolveOffMain(let c, let request): return .resolveOffMain(container: map(c), request)
        case .resolveInOverrides(let c, let override, let request):
            return .resolveInOverrides(
                container: map(c),
                override: override.map { moved in
                    var moved = moved
                    moved.container = map(moved.container)
                    return moved
                }, request)
        case .freeContainer(let c): return .freeContainer(map(c))
        case .registerAsync(let c, let name): return .registerAsync(container: map(c), name: name)
        case .dumpContainer(let c): return .dumpContainer(map(c))
        case .inspectRegistrations(let c): return .inspectRegistrations(container: map(c))
        case .validate(let c): return .validate(container: map(c))
        case .addBehavior(let c, let scope): return .addBehavior(container: map(c), scope: scope)
        case .makeInjected(let bindings, let request):
            return .makeInjected(
                bindings: bindings.map { $0.mappingContainers(map) }, request)
        case .makeMainInjected(let bindings, let request):
            return .makeMainInjected(
                bindings: bindings.map { $0.mappingContainers(map) }, request)
        default: return self
        }
    }
}
