// The reference model: predicts, step by step, what a Swinject-compatible container observes
// (nil or not, and which earlier object each result is). It implements Swinject 2.10's semantics
// plus Graft's documented differences:
//   - a constructor cycle fails at the first re-entry of an entry without arguments whose factory
//     is running with no `initCompleted` in between;
//   - a resolution that fails is that resolution's failure only: made by a factory (or an
//     `initCompleted` action), it returns `nil` there and the factory goes on, the request
//     unfailed; a request (a top-level resolution) that fails returns nil; a cycle is the whole
//     request's failure: every factory still running gets `nil` for what it asks, and the
//     request fails;
//   - a failed resolution keeps no instance it made since it started, in any scope (also inside
//     `withObjectGraph`); what was made before it stays;
//   - graph memory: a graph-scoped instance is found again when its graph is re-entered (a `Lazy`,
//     `withObjectGraph`) while it is alive, whatever other graphs did meanwhile;
//   - a main-actor registration answers, under its key and every type forwarded to it (after a
//     later `registerMain` replaced it, too), on the main actor only: a request made on another
//     thread that meets one fails, a kept instance included; `withOverrides` copies it with its
//     forwards, so the copy makes its own instances.
// Lifetimes follow ARC: every strong reference is counted, a cycle stays alive. A container lives
// while the program, a child container or an unresolved `@Injected` holds it; when it goes, its
// registrations go, and resolving through its parent goes on as before. `deinit` actions that show
// in the trace run when the step's objects die; a step whose timing could change what they see is
// dropped. A first access re-entered by such a `deinit` hands out one instance.
// Steps it cannot predict exactly are reported as skipped and removed from the program
// (`sanitize`), so the programs run on real containers stay inside what is modelled.
// No Graft, Testing or Foundation import: Differential/ and Fuzz/ compile this file too.

public struct Unmodelable: Error, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

struct ModelKey: Hashable {
    var type: MType
    var name: Int?
    var args: MArgs
}

enum ModelField: Hashable {
    case none
    case node(Int)
    case graph(Int)
}

struct ModelEntry {
    /// What the entry does: its settings (a copy made while the program registered has those of
    /// that moment).
    var registration: MRegistration
    /// The container whose table it was registered in (a copy made by `withOverrides`, for one).
    var home: Int
    /// The registration the program made, which its factory's and its instances' `deinit`
    /// actions register again, when it differs from `registration`.
    var source: MRegistration?
    /// Registered with `registerAsync`: never built, so a synchronous resolution fails.
    var isAsync = false
    var refs = 0
    var alive = true
    /// How many times a resolution reached this entry (under any key), and how many times its
    /// factory returned: what `registrations` reports.
    var resolutions = 0
    var made = 0
    /// The instance a `.container` or permanent custom scope keeps (a strong reference).
    var stored: Int?
    /// The instance `.weak` shares while it is alive (no reference).
    var weakShare: Int?
    /// Graph identifier -> the instance made in that graph (weak), and the step that made it.
    var graphs: [Int: (node: Int, step: Int)] = [:]
}

enum ModelNodeKind: Equatable {
    case instance(MClass)
    case lazy
    case provider
    case injected
    /// What `resolveAll` or `requireAll` returned: its elements are the fields.
    case collection

    var isInstance: Bool {
        if case .instance = self { return true }
        return false
    }

    /// A `Lazy`, `Provider` or `@Injected`, which a step may read.
    var isWrapper: Bool { self == .lazy || self == .provider || self == .injected }
}

/// What the first accesses of a program did.
public struct FirstAccessCounts: Sendable {
    /// First accesses that a `deinit` re-entered (for a `Provider`, whose every read is a first
    /// access: reads that a `deinit` run by the read read again), by wrapper.
    public var reentered: [MFirstAccessWrapper: Int] = [:]
    /// First accesses that failed (`nil`, not kept), by wrapper.
    public var failed: [MFirstAccessWrapper: Int] = [:]

    public init() {}
}

struct ModelNode {
    var kind: ModelNodeKind
    var fields: [ModelField] = []
    var refs = 0
    var alive = true
    // Wrappers only:
    var entry = -1
    var container = 0
    var requested: MType = .cls(.a)
    var graph: Int?
    var cached: Int?
    /// Instances: the entry that made it (-1 for none).
    var madeBy = -1
    /// `@Injected`: the name asked for, and whether a value (maybe `nil`) is kept.
    var name: MName?
    var isResolved = false
    /// An `@MainInjected` (read on the main actor only), not an `@Injected`.
    var isMain = false
    /// `@Injected`: the value kept is handed out on the main actor only (its first read's request
    /// resolved a main-actor registration of the hierarchy): a read elsewhere is refused, `nil`.
    var keptForTheMainActor = false

    /// Which wrapper a wrapper node is.
    var wrapper: MFirstAccessWrapper {
        switch kind {
        case .lazy: return .lazy
        case .provider: return .provider
        case .instance, .injected, .collection: return isMain ? .mainInjected : .injected
        }
    }
}

struct ModelContext {
    var graph: Int
    var resolver: Int
    /// The graph a `Lazy` made at the top level (outside any factory) remembers.
    var topLevelGraph: Int?
    var frames: [(entry: Int, completion: Bool)] = []
    var failed = false
    /// The failure is the whole request's (a constructor cycle): no factory handles it, and the
    /// request the step started fails, keeping nothing it made.
    var failedWhole = false
    var undo: [ModelUndo] = []
    /// How many of `undo`, from the first, no failure takes back: an `@Injected` of this hierarchy
    /// kept a value inside the request when there were that many, and the value may be one of
    /// them (or hold one).
    var fixedUndo = 0
    /// A factory whose instances' `deinit` shows in the trace ran in this request (if the request
    /// fails, Graft's factories still made instances, which die while the resolution unwinds).
    var ranVisibleDeinitFactory = false
    /// A factory with `initCompleted` ran in this request: if the request fails, what its instances
    /// hold may form a cycle the model does not follow.
    var ranCompletingFactory = false
    /// The request runs on another thread: a main-actor registration on its path fails it, before
    /// its scope is asked for a kept instance.
    var offMain = false
    /// A main-actor registration of the hierarchy resolved on the request's path (on the main
    /// actor): a wrapper keeping what the request returns keeps it for the main actor only.
    var resolvedMainActor = false
}

enum ModelUndo {
    case stored(Int)
    case weak(Int, Int?)
    case graph(Int, Int, (node: Int, step: Int)?)
}

public struct ReferenceModel {
    var parents: [Int]
    var tables: [[ModelKey: Int]]
    /// When each key of a table was first put there: a collection lists a container's keys in
    /// this order (a key registered again keeps its place; `removeAll` forgets them).
    var orders: [[ModelKey: Int]]
    var nextOrder = 0
    /// Whether the program holds the container (it can name it in steps).
    var held: [Bool]
    var containerAlive: [Bool]
    var entries: [ModelEntry] = []
    var registrationEntries: [Int] = []
    var nodes: [ModelNode] = []
    var slots: [ModelField] = []
    /// Containers with a copying behavior (`MStep.addBehavior`), and the scope it sets.
    var behaviors: [Int: MScope?] = [:]
    /// The copies the behaviors kept, in order: each the copy of the container told.
    var copies: [Int] = []
    var nextGraph = 1
    var stepIndex = 0
    // Per step:
    var slotsAtStepStart = 0
    var nodesAtStepStart = 0
    /// Something was released in the middle of a resolution (a reset or a registration in a
    /// factory, a transient result dropped): a `deinit` shown in the trace would run earlier there.
    var releasedMidStep = false
    /// The step ends more than one graph (`withObjectGraph` with several requests).
    var endsSeveralGraphs = false
    /// The step registers: what the replaced registration releases dies inside `register`, before
    /// the new entry has its scope, `initCompleted` and forwards.
    var registersThisStep = false
    /// The `Lazy` or `@Injected` whose first access this step made.
    var firstAccessed: Int?
    /// The `Lazy`, `Provider` or `@Injected` this step reads (`access`).
    var readThisStep: Int?
    /// The step resolves on another thread: what dies in it dies there.
    var offMainThisStep = false
    /// Instances whose visible `deinit` action has not run yet: what they hold is still held.
    var heldThroughDeinit: [Int] = []
    /// A failed request left objects the model does not follow (see `ranCompletingFactory`).
    var liveCountUnknown = false
    /// A request failed: Graft counts the resolutions its path reached after the failure (a kept
    /// instance still answers), which the model does not follow, so `registrations` is not compared.
    var resolutionCountsUnknown = false
    /// What the first accesses did (for statistics, and the test that the generator reaches them).
    var firstAccesses = FirstAccessCounts()
    /// The last `resolveTop` failed (not merely `nil`: an instance of another type is not a failure).
    var topLevelFailed = false

    /// Deeper resolutions are not modelled (Graft stops at 200, Swinject crashes at 200).
    static let maximumFrames = 60

    public init(parents: [Int]) {
        self.parents = parents
        tables = Array(repeating: [:], count: parents.count)
        orders = tables
        held = Array(repeating: true, count: parents.count)
        containerAlive = held
    }

    /// Runs `program`, dropping the steps the model cannot predict (and those that would crash a
    /// correct container, such as reading a `Lazy` whose resolution fails). Returns the program
    /// that was modelled, its trace, and why each dropped step was dropped.
    public static func run(
        _ program: MProgram
    ) -> (
        program: MProgram, trace: Trace, skipped: [String], firstAccesses: FirstAccessCounts
    ) {
        var model = ReferenceModel(parents: program.parents)
        var kept: [MStep] = []
        var raw: [[RawObservation]] = []
        var skipped: [String] = []
        for step in program.steps {
            let saved = model
            do {
                model.slotsAtStepStart = model.slots.count
                model.nodesAtStepStart = model.nodes.count
                model.releasedMidStep = false
                model.endsSeveralGraphs = false
                model.registersThisStep = false
                model.firstAccessed = nil
                model.readThisStep = nil
                model.offMainThisStep = false
                let observed = try model.perform(step)
                let logged = try model.sweepRunningDeinits()
                model.stepIndex += 1
                kept.append(step)
                raw.append(observed + logged)
            } catch let error as Unmodelable {
                model = saved
                skipped.append(error.reason)
            } catch {
                model = saved
                skipped.append("\(error)")
            }
        }
        return (
            MProgram(parents: program.parents, steps: kept, childrenOfViews: program.childrenOfViews), normalize(raw),
            skipped, model.firstAccesses
        )
    }

    // MARK: Steps

    mutating func perform(_ step: MStep) throws -> [RawObservation] {
        switch step {
        case .register(let registration):
            try requireHeld(registration.container)
            registersThisStep = true
            registrationEntries.append(try register(registration, in: registration.container))
            return []

        case .forward(let registration, let forward):
            guard !registrationEntries.isEmpty else { throw Unmodelable("forward: no registration yet") }
            let entry = registrationEntries[registration % registrationEntries.count]
            // The program holds the entry weakly: once nothing else does, `implements` is not modelled.
            guard entries[entry].alive else { throw Unmodelable("forward: the entry is gone") }
            try requireHeld(entries[entry].home)
            try addForward(forward, to: entry)
            return []

        case .resolve(let container, let request), .resolveThroughView(let container, let request):
            try requireHeld(container)
            return try resolveAndHold(container: container, request: request)

        case .resolveOffMain(let container, let request):
            try requireHeld(container)
            offMainThisStep = true
            return try resolveAndHold(container: container, request: request, offMain: true)

        case .resolveInOverrides(let container, let override, let request):
            try requireHeld(container)
            let copy = copyOfRegistrations(container)
            if let override { _ = try register(override, in: copy) }
            return try resolveAndHold(container: copy, request: request)

        case .addBehavior(let container, let scope):
            try requireHeld(container)
            guard behaviors[container] == nil else { throw Unmodelable("behavior: one per container") }
            behaviors[container] = .some(scope)
            return []

        case .resolveInCopy(let copy, let request):
            guard !copies.isEmpty else { throw Unmodelable("resolveInCopy: no copy kept yet") }
            return try resolveAndHold(container: copies[copy % copies.count], request: request)

        case .withObjectGraph(let container, let slot, let field, let requests):
            try requireHeld(container)
            guard !slots.isEmpty, case .node(let holder) = slots[slot % slots.count] else {
                throw Unmodelable("withObjectGraph: no instance in the slot")
            }
            let graphs = nodes[holder].fields.compactMap { field -> Int? in
                if case .graph(let g) = field { return g }
                return nil
            }
            guard !graphs.isEmpty else { throw Unmodelable("withObjectGraph: no graph identifier held") }
            let graph = graphs[field % graphs.count]
            endsSeveralGraphs = requests.count > 1
            if requests.contains(where: { $0.wrapper.isCollection }) {
                throw Unmodelable("withObjectGraph: a collection inside (not generated)")
            }
            var observed: [RawObservation] = []
            for request in requests {
                let value = try resolveTop(container: container, request: request, graph: graph, topLevelGraph: graph)
                hold(value)
                observed += observe(value)
            }
            return observed

        case .access(let slot, let field):
            guard !slots.isEmpty, case .node(var wrapper) = slots[slot % slots.count] else {
                throw Unmodelable("access: empty slot")
            }
            if let field {
                guard case .instance = nodes[wrapper].kind, !nodes[wrapper].fields.isEmpty,
                    case .node(let inner) = nodes[wrapper].fields[field % nodes[wrapper].fields.count]
                else { throw Unmodelable("access: no wrapper in the field") }
                wrapper = inner
            }
            guard nodes[wrapper].kind.isWrapper else { throw Unmodelable("access: not a wrapper") }
            readThisStep = wrapper
            guard let value = try read(wrapper, firstAccessHere: true) else {
                throw Unmodelable("access: not a wrapper")
            }
            hold(value)
            return observe(value)

        case .readRecent(let back, let offMain):
            let index = slots.count - 1 - back
            guard index >= 0, case .node(let wrapper) = slots[index], nodes[wrapper].kind.isWrapper else {
                throw Unmodelable("read: no wrapper in the slot")
            }
            if offMain {
                if nodes[wrapper].isMain { throw Unmodelable("read: @MainInjected off the main actor") }
                if nodes[wrapper].kind == .lazy && nodes[wrapper].cached != nil {
                    // Refused there if kept for the main actor, which stops a `Lazy`'s read.
                    throw Unmodelable("read: a kept Lazy off the main actor")
                }
                offMainThisStep = true
            }
            readThisStep = wrapper
            guard let value = try read(wrapper, firstAccessHere: true, offMain: offMain) else {
                throw Unmodelable("read: not a wrapper")
            }
            hold(value)
            return observe(value)

        case .release(let slot):
            guard !slots.isEmpty else { throw Unmodelable("release: no slot") }
            let index = slot % slots.count
            release(slots[index])
            slots[index] = .none
            return []

        case .reset(let container, let scope, let service):
            try requireHeld(container)
            reset(container: container, scope: scope, service: service)
            return []

        case .removeAll(let container):
            try requireHeld(container)
            removeAll(container)
            return []

        case .freeContainer(let container):
            guard container > 0 else { throw Unmodelable("free: the root stays") }
            try requireHeld(container)
            held[container] = false
            return []

        case .dumpContainer(let container):
            try requireHeld(container)
            return []

        case .dumpSlot:
            guard !slots.isEmpty else { throw Unmodelable("dump: no slot") }
            return []

        case .validate(let container):
            try requireHeld(container)
            // User code with effects of its own outside the hierarchy (a `deinit` action, an
            // `initCompleted` whose instance may hold itself, a behavior told of a registration a
            // factory makes, the first access of an `@Injected` bound to another hierarchy, which
            // keeps its value there) runs in the validation's resolutions as in any: not followed.
            // What is left, a factory's own registrations and resets included, must leave the
            // hierarchy as it was.
            let effects = entries.contains { entry in
                entry.alive
                    && (entry.registration.onDeinit != .none || !entry.registration.completions.isEmpty
                        || entry.registration.factoryAction == .readInjected)
            }
            if effects || !behaviors.isEmpty { throw Unmodelable("validate: user code with effects of its own") }
            return []

        case .inspectRegistrations(let container):
            try requireHeld(container)
            if resolutionCountsUnknown {
                throw Unmodelable("registrations: a failed request's resolutions are not followed")
            }
            var lines: [String] = []
            var level = container
            var depth = 0
            while level >= 0 {
                for (key, entry) in tables[level] {
                    lines.append(registrationLine(key, entry: entries[entry], level: depth))
                }
                level = parents[level]
                depth += 1
            }
            return [.registrations(lines.sorted())]

        case .countLive:
            if liveCountUnknown { throw Unmodelable("countLive: a failed request left objects not followed") }
            return [.count(nodes.filter { $0.alive && $0.madeBy >= 0 }.count)]

        case .registerAsync(let container, let name):
            try requireHeld(container)
            let registration = MRegistration(
                container: container, service: .asyncService, makes: .a, name: name, args: .none, scope: .transient,
                dependencies: [], completions: [], forwards: [], onDeinit: .none)
            _ = try register(registration, in: container, isAsync: true)
            return []

        case .makeInjected(let bindings, let request), .makeMainInjected(let bindings, let request):
            guard case .resolver(let first) = bindings.first else { throw Unmodelable("injected: no resolver bound") }
            try requireHeld(first)
            var current = first
            for binding in bindings {
                switch binding {
                case .resolver(let container):
                    try requireHeld(container)
                    current = container
                case .overrides(let registration):
                    current = copyOfRegistrations(current)
                    if let registration { _ = try register(registration, in: current) }
                }
            }
            var node = ModelNode(kind: .injected)
            node.container = current
            node.requested = request.type
            node.name = request.name
            if case .makeMainInjected = step { node.isMain = true }
            nodes.append(node)
            hold(.node(nodes.count - 1))
            return [.injected]
        }
    }

    func requireHeld(_ container: Int) throws {
        guard container < held.count, held[container] else { throw Unmodelable("the program freed the container") }
    }

    /// Registers `registration` in `container` (and its forwards); returns the new entry. A
    /// behavior of `container` is told about the finished registration before the program sets
    /// its scope, `initCompleted` actions and forwards: the scope it sets holds unless the
    /// program sets one, and the copy it keeps has the settings of that moment. Told about a
    /// forward, it does nothing.
    mutating func register(_ registration: MRegistration, in container: Int, isAsync: Bool = false) throws -> Int {
        let entry = entries.count
        let behavior = behaviors[container]
        var effective = registration
        if let behavior, let scope = behavior, registration.scope == .unspecified, !isAsync {
            effective.scope = scope
        }
        entries.append(
            ModelEntry(
                registration: effective, home: container, source: effective == registration ? nil : registration,
                isAsync: isAsync))
        let key = ModelKey(type: registration.service, name: registration.name?.canonical, args: registration.args)
        insert(key, entry: entry, in: container)
        if let behavior {
            var told = effective
            told.scope = behavior ?? .unspecified
            told.completions = []
            keepCopy(of: container, telling: (entry, told))
        }
        for forward in registration.forwards { try addForward(forward, to: entry) }
        return entry
    }

    /// A behavior's copy of `container`, kept for the program; `telling` is the entry the
    /// behavior was told about, with its settings at that moment.
    mutating func keepCopy(of container: Int, telling: (entry: Int, registration: MRegistration)) {
        let copy = copyOfRegistrations(container, telling: telling)
        held[copy] = true  // the program's list of copies holds it
        copies.append(copy)
    }

    mutating func reset(container: Int, scope: MScope, service: MType?) {
        var level = container
        while level >= 0 {
            // Graft walks every ancestor; Swinject stops at the first container without a
            // registration of the service type (an intended difference, MigratingFromSwinject.md).
            var done: Set<Int> = []
            for (key, entry) in tables[level] where service == nil || key.type == service {
                if entries[entry].registration.scope.identity == scope.identity && done.insert(entry).inserted {
                    drop(entry)
                }
            }
            level = parents[level]
        }
    }

    mutating func removeAll(_ container: Int) {
        for entry in tables[container].values { releaseEntry(entry) }
        tables[container] = [:]
        orders[container] = [:]
    }

    /// `withOverrides`: a new chain of containers with the registrations (not the instances) and
    /// the behaviors of `container` and its ancestors; returns the copy of `container`.
    mutating func copyOfRegistrations(
        _ container: Int, telling: (entry: Int, registration: MRegistration)? = nil
    ) -> Int {
        var chain: [Int] = []
        var level = container
        while level >= 0 {
            chain.append(level)
            level = parents[level]
        }
        var copied: [Int: Int] = [:]
        var parent = -1
        for original in chain.reversed() {
            let copy = parents.count
            parents.append(parent)
            tables.append([:])
            orders.append([:])
            held.append(false)
            containerAlive.append(true)
            func copyEntry(_ entry: Int) -> Int {
                if let done = copied[entry] { return done }
                let registration =
                    entry == telling?.entry ? telling!.registration : entries[entry].registration
                let source = entries[entry].source ?? entries[entry].registration
                var made = ModelEntry(
                    registration: registration, home: copy, source: registration == source ? nil : source)
                made.isAsync = entries[entry].isAsync
                entries.append(made)
                copied[entry] = entries.count - 1
                return entries.count - 1
            }
            // In registration order, as `withOverrides` copies them.
            for key in orderedKeys(of: original) {
                let made = copyEntry(tables[original][key]!)
                entries[made].refs += 1
                tables[copy][key] = made
                orders[copy][key] = nextOrder
                nextOrder += 1
            }
            // The copy keeps the behavior, told only about registrations made in the copy.
            if let behavior = behaviors[original] { behaviors[copy] = behavior }
            parent = copy
        }
        return parent
    }

    /// Reads a `Lazy`, `Provider`, `@Injected` or `@MainInjected`: the value, or `nil` if `wrapper`
    /// is an instance. `firstAccessHere`: the step's own access (not a `deinit`'s); `offMain`: on
    /// another thread, where a main-actor registration refuses to answer.
    mutating func read(_ wrapper: Int, firstAccessHere: Bool, offMain: Bool = false) throws -> ModelField? {
        let node = nodes[wrapper]
        switch node.kind {
        case .instance, .collection:
            return nil
        case .lazy:
            if let cached = node.cached { return .node(cached) }
            guard containerAlive[node.container] else {
                throw Unmodelable("Lazy read after its container is gone: the access would stop the program")
            }
            if firstAccessHere { firstAccessed = wrapper }
            let value = try resolveDeferred(node, graph: node.graph ?? newGraph(), offMain: offMain)
            nodes[wrapper].cached = value
            retain(.node(value))
            return .node(value)
        case .provider:
            guard containerAlive[node.container] else {
                throw Unmodelable("Provider read after its container is gone: the access would stop the program")
            }
            return .node(try resolveDeferred(node, graph: newGraph(), offMain: offMain))
        case .injected:
            if node.isResolved {
                if node.keptForTheMainActor && offMain { return ModelField.none }  // refused there
                return node.cached.map(ModelField.node) ?? ModelField.none
            }
            if firstAccessHere { firstAccessed = wrapper }
            let key = ModelKey(type: node.requested, name: node.name?.canonical, args: .none)
            guard let entry = lookup(key, from: node.container) else {
                nodes[wrapper].isResolved = true  // the nil of a service not registered is kept
                return ModelField.none
            }
            var context = ModelContext(graph: newGraph(), resolver: node.container, topLevelGraph: nil)
            context.offMain = offMain
            let value = try resolveEntry(entry, as: node.requested, &context)
            guard !context.failed, case .node(let made) = value else {
                // An instance of another type than the forwarded one asked for fails the access
                // but not the request: what the request kept stays.
                guard context.failed else {
                    firstAccesses.failed[node.wrapper, default: 0] += 1
                    return ModelField.none
                }
                if context.ranVisibleDeinitFactory {
                    throw Unmodelable("deinit: a failed request made objects with actions")
                }
                if context.ranCompletingFactory { liveCountUnknown = true }
                releasedMidStep = true
                rollBack(Array(context.undo[context.fixedUndo...]))
                firstAccesses.failed[node.wrapper, default: 0] += 1
                return ModelField.none  // a failure is not kept: the next access resolves again
            }
            nodes[wrapper].isResolved = true
            nodes[wrapper].cached = made
            nodes[wrapper].keptForTheMainActor = context.resolvedMainActor
            retain(.node(made))
            return .node(made)
        }
    }

    mutating func newGraph() -> Int {
        defer { nextGraph += 1 }
        return nextGraph
    }

    mutating func addForward(_ forward: MForward, to entry: Int) throws {
        let registration = entries[entry].registration
        if !forward.type.isSatisfied(by: registration.makes) && registration.scope.identity != .transient {
            throw Unmodelable("forward to a type the kept instances are not")
        }
        insert(
            ModelKey(type: forward.type, name: forward.name?.canonical, args: registration.args),
            entry: entry, in: entries[entry].home)
    }

    mutating func insert(_ key: ModelKey, entry: Int, in container: Int) {
        entries[entry].refs += 1
        if let old = tables[container].updateValue(entry, forKey: key) {
            releaseEntry(old)
        } else {
            orders[container][key] = nextOrder
            nextOrder += 1
        }
    }

    /// The keys of a container's table, in the order they were first put there.
    func orderedKeys(of container: Int) -> [ModelKey] {
        tables[container].keys.sorted { orders[container][$0]! < orders[container][$1]! }
    }

    /// The names of the collection of `type` asked of `container`: the keys of `type` without
    /// arguments in the root's table, then in each child's down to `container`, each table's in
    /// registration order; a name met again (a child's registration hiding its ancestor's) keeps
    /// its first place.
    func collectionNames(of type: MType, from container: Int) -> [Int?] {
        var chain: [Int] = []
        var level = container
        while level >= 0 {
            chain.append(level)
            level = parents[level]
        }
        var names: [Int?] = []
        for level in chain.reversed() {
            for key in orderedKeys(of: level) where key.type == type && key.args == .none && !names.contains(key.name) {
                names.append(key.name)
            }
        }
        return names
    }

    /// A collection's node, holding its elements.
    mutating func makeCollection(_ elements: [Int]) -> Int {
        nodes.append(ModelNode(kind: .collection, fields: elements.map(ModelField.node)))
        for element in elements { retain(.node(element)) }
        return nodes.count - 1
    }

    func lookup(_ key: ModelKey, from container: Int) -> Int? {
        var level = container
        while level >= 0 {
            if let entry = tables[level][key] { return entry }
            level = parents[level]
        }
        return nil
    }

    func observe(_ value: ModelField) -> [RawObservation] {
        switch value {
        case .none: return [.none]
        case .graph(let g): return [.graph(UInt64(g))]
        case .node(let n):
            switch nodes[n].kind {
            case .lazy: return [.lazy]
            case .provider: return [.provider]
            case .injected: return [.injected]
            case .instance: return [.object(n)] + nodes[n].fields.flatMap(observeField)
            case .collection:
                // Each element, the registration that made it, and its fields.
                return [.elements(nodes[n].fields.count)]
                    + nodes[n].fields.flatMap { element -> [RawObservation] in
                        guard case .node(let m) = element else { return [.none] }
                        return [.object(m), .label(tag(of: m))] + nodes[m].fields.flatMap(observeField)
                    }
            }
        }
    }

    /// A field as `observe` shows it: a collection with its elements and their registrations.
    func observeField(_ field: ModelField) -> [RawObservation] {
        switch field {
        case .none: return [.none]
        case .graph(let g): return [.graph(UInt64(g))]
        case .node(let m):
            switch nodes[m].kind {
            case .instance: return [.object(m)]
            case .lazy: return [.lazy]
            case .provider: return [.provider]
            case .injected: return [.injected]
            case .collection:
                return [.elements(nodes[m].fields.count)]
                    + nodes[m].fields.flatMap { element -> [RawObservation] in
                        guard case .node(let e) = element else { return [.none] }
                        return [.object(e), .label(tag(of: e))]
                    }
            }
        }
    }

    /// The registration that made an instance, as the interpreter's instances carry it.
    func tag(of node: Int) -> String {
        let entry = entries[nodes[node].madeBy]
        return (entry.source ?? entry.registration).tag
    }

    // MARK: References

    mutating func hold(_ value: ModelField) {
        slots.append(value)
        retain(value)
    }

    mutating func retain(_ value: ModelField) {
        if case .node(let n) = value { nodes[n].refs += 1 }
    }

    /// Drops a reference; the object dies in `sweep` if nothing else holds it.
    mutating func release(_ value: ModelField) {
        if case .node(let n) = value { nodes[n].refs -= 1 }
    }

    mutating func releaseEntry(_ entry: Int) {
        entries[entry].refs -= 1
    }

    /// Drops the instance a scope keeps (`resetObjectScope`).
    mutating func drop(_ entry: Int) {
        if let stored = entries[entry].stored {
            release(.node(stored))
            entries[entry].stored = nil
        }
        entries[entry].weakShare = nil
    }

    /// Ends every object, entry and container nothing holds any more, as ARC would; returns the
    /// instances that died whose `deinit` action shows in the trace. With `holdingFields`, what such
    /// an instance holds stays held (in `heldThroughDeinit`) until its action has run: Swift
    /// releases an object's stored properties after its `deinit`.
    mutating func sweep(holdingFields: Bool = false) -> [Int] {
        var visible: [Int] = []
        var changed = true
        while changed {
            changed = false
            for index in entries.indices where entries[index].alive && entries[index].refs == 0 {
                entries[index].alive = false
                if let stored = entries[index].stored { release(.node(stored)) }
                entries[index].stored = nil
                changed = true
            }
            for index in nodes.indices where nodes[index].alive && nodes[index].refs == 0 {
                nodes[index].alive = false
                if nodes[index].entry >= 0 { releaseEntry(nodes[index].entry) }
                if let cached = nodes[index].cached { release(.node(cached)) }
                var holds = false
                if nodes[index].madeBy >= 0 {
                    let registration = entries[nodes[index].madeBy].registration
                    if registration.onDeinit.isVisible {
                        visible.append(index)
                        holds = holdingFields
                    }
                }
                if holds {
                    heldThroughDeinit.append(index)
                } else {
                    for field in nodes[index].fields { release(field) }
                }
                changed = true
            }
            // Children hold their parent; an `@Injected` holds its resolver's container until it
            // keeps a value. Children come after their parent.
            var liveChildren = Array(repeating: 0, count: parents.count)
            for child in parents.indices where containerAlive[child] && parents[child] >= 0 {
                liveChildren[parents[child]] += 1
            }
            var heldByInjected: Set<Int> = []
            for node in nodes where node.alive && node.kind == .injected && !node.isResolved {
                heldByInjected.insert(node.container)
            }
            for container in containerAlive.indices.reversed() where containerAlive[container] && !held[container] {
                if liveChildren[container] > 0 || heldByInjected.contains(container) { continue }
                containerAlive[container] = false
                if parents[container] >= 0 { liveChildren[parents[container]] -= 1 }
                removeAll(container)
                changed = true
            }
        }
        return visible
    }

    /// `sweep`, then the one `deinit` action that shows in the trace, if any (what it reads is
    /// observed after the step's own observations); objects that die while it runs run none.
    mutating func sweepRunningDeinits() throws -> [RawObservation] {
        // An `@Injected` that kept a value lets its resolver go only then: what that frees dies
        // after the value is kept, not inside the first access.
        var whileAccessing: [Int]
        if let first = firstAccessed, nodes[first].kind == .injected, nodes[first].isResolved {
            nodes[first].isResolved = false
            whileAccessing = sweep(holdingFields: true)
            nodes[first].isResolved = true
        } else {
            whileAccessing = sweep(holdingFields: true)
        }
        let visible = whileAccessing + sweep(holdingFields: true)
        guard let dead = visible.first else { return [] }
        if visible.count > 1 { throw Unmodelable("deinit: several visible deinit actions in one step (order)") }
        if releasedMidStep { throw Unmodelable("deinit: an object released inside a resolution (timing)") }
        if endsSeveralGraphs { throw Unmodelable("deinit: a withObjectGraph of several requests (timing)") }
        if registersThisStep { throw Unmodelable("deinit: run inside register, before the entry is set up") }
        if offMainThisStep { throw Unmodelable("deinit: run on another thread") }
        let registration = entries[nodes[dead].madeBy].source ?? entries[nodes[dead].madeBy].registration
        var logged: [RawObservation] = []
        switch registration.onDeinit {
        case .readSlot:
            let wrapper: Int
            if registration.deinitSlot >= 2 {
                guard let read = readThisStep else { break }
                wrapper = read
            } else {
                let index = slotsAtStepStart - 1 - registration.deinitSlot
                guard index >= 0, case .node(let held) = slots[index], nodes[held].kind.isWrapper else { break }
                wrapper = held
            }
            if wrapper == readThisStep, nodes[wrapper].kind == .provider, whileAccessing.contains(dead) {
                firstAccesses.reentered[.provider, default: 0] += 1  // each read of a `Provider` is a first access
                resolutionCountsUnknown = true
            }
            if let first = firstAccessed, first == wrapper, whileAccessing.contains(dead) {
                firstAccesses.reentered[nodes[wrapper].wrapper, default: 0] += 1
                resolutionCountsUnknown = true
                // Re-entered first access: the instance made by the nested access is everyone's,
                // and the outer one is made for nothing. Modelled when that changes nothing else.
                guard dead >= nodesAtStepStart else { throw Unmodelable("deinit: re-entered by an older object") }
                let handedOut = nodes[wrapper].cached
                for made in nodesAtStepStart..<nodes.count where made != dead && nodes[made].madeBy >= 0 {
                    let other = entries[nodes[made].madeBy].registration
                    if other.onDeinit.isVisible || other.factoryAction.isVisible {
                        throw Unmodelable("deinit: re-entered first access makes objects with actions twice")
                    }
                    // The nested access makes instances of its own, and the outer one's are
                    // dropped. Only the instance handed out is modelled: a dependency the outer
                    // access made may be held elsewhere (by a scope the nested access then finds
                    // filled, so the one handed out holds another), and what an `initCompleted`
                    // action holds may form a cycle, which outlives the drop.
                    if made != handedOut {
                        throw Unmodelable("deinit: re-entered first access made more than it hands out")
                    }
                    if !other.completions.isEmpty { liveCountUnknown = true }
                }
            }
            let value = try read(wrapper, firstAccessHere: false)
            switch value {
            case .node(let n): logged.append(.object(n))
            default: logged.append(.none)
            }
        case .reregister:
            if held[registration.container] { _ = try register(registration, in: registration.container) }
        default:
            break
        }
        _ = sweep()  // what dies now dies inside that action: no action of its own
        // Then what the instance held goes; an action of what dies with it runs after this one.
        for held in heldThroughDeinit {
            for field in nodes[held].fields { release(field) }
        }
        heldThroughDeinit = []
        if !sweep().isEmpty { throw Unmodelable("deinit: several visible deinit actions in one step (order)") }
        return logged
    }

    func isAlive(_ node: Int?) -> Int? {
        guard let node, nodes[node].alive else { return nil }
        return node
    }

    // MARK: Resolution

    /// A top-level request (a collection, or `resolveTop`), its result held in a new slot.
    mutating func resolveAndHold(container: Int, request: MRequest, offMain: Bool = false) throws -> [RawObservation] {
        guard request.wrapper.isCollection else {
            let value = try resolveTop(
                container: container, request: request, graph: newGraph(), topLevelGraph: nil, offMain: offMain)
            hold(value)
            return observe(value)
        }
        // Each element is resolved as `resolve(T.self, name:)` would be, a request of its own, all
        // of them in one graph. The first that fails (`nil`, a wrong type included) fails the
        // collection: `resolveAll` is `nil`, `requireAll` throws that element's failure. What the
        // elements before it made stays where their scopes keep it.
        let graph = newGraph()
        var elements: [Int] = []
        for name in collectionNames(of: request.type, from: container) {
            // The graph ends once, after the last element: a `deinit` may see another moment.
            if !elements.isEmpty { endsSeveralGraphs = true }
            let element = MRequest(
                type: request.type, name: name.flatMap { MName(rawValue: $0) }, args: .none, wrapper: .plain)
            // The registration the element's key leads to as it is resolved: what its own factory
            // removes does not change what failed.
            let key = ModelKey(type: request.type, name: name, args: .none)
            let resolved = lookup(key, from: container)
            let value = try resolveTop(
                container: container, request: element, graph: graph, topLevelGraph: nil, offMain: offMain)
            guard case .node(let made) = value else {
                // The elements made so far die as the collection is dropped, inside its graph.
                releasedMidStep = true
                hold(.none)
                guard request.wrapper == .requireCollection else { return [.none] }
                // The failure names the registration the element's key leads to, its service and
                // name; when the instance it made is of another type (a forward), the type asked
                // for with that registration's name (as `require` names it).
                // A key no longer registered (an earlier element's factory removed it) fails as a
                // missing registration, named as asked for.
                guard let entry = resolved else {
                    let asked = name.flatMap { MName(rawValue: $0) }?.canonical
                    return [.thrown(collectionElementName(request.type, asked))]
                }
                let failed = entries[entry].source ?? entries[entry].registration
                return [
                    .thrown(
                        collectionElementName(topLevelFailed ? failed.service : request.type, failed.name?.canonical))
                ]
            }
            elements.append(made)
        }
        let collection = makeCollection(elements)
        hold(.node(collection))
        return observe(.node(collection))
    }

    mutating func resolveTop(
        container: Int, request: MRequest, graph: Int, topLevelGraph: Int?, offMain: Bool = false
    ) throws -> ModelField {
        if request.wrapper == .fallback {
            // At the top level, `resolve(...) ?? resolve(...)` is two requests, in graphs of their own.
            var plain = request
            plain.wrapper = .plain
            let first = try resolveTop(
                container: container, request: plain, graph: graph, topLevelGraph: topLevelGraph, offMain: offMain)
            guard case .none = first else { return first }
            return try resolveTop(
                container: container, request: plain, graph: newGraph(), topLevelGraph: topLevelGraph,
                offMain: offMain)
        }
        var context = ModelContext(graph: graph, resolver: container, topLevelGraph: topLevelGraph)
        context.offMain = offMain
        let value = try resolve(request, &context)
        topLevelFailed = context.failed
        if context.failed {
            // What the failed request made dies where it failed, inside the resolution.
            if context.ranVisibleDeinitFactory {
                throw Unmodelable("deinit: a failed request made objects with actions")
            }
            if context.ranCompletingFactory { liveCountUnknown = true }
            releasedMidStep = true
            rollBack(Array(context.undo[context.fixedUndo...]))
            return .none
        }
        return value
    }

    /// `Lazy.instance` / `Provider.instance`: the entry found when the wrapper was made, resolved
    /// through the container it was made by (on another thread with `offMain`). A failure would
    /// stop the program: not modelled.
    mutating func resolveDeferred(_ wrapper: ModelNode, graph: Int, offMain: Bool) throws -> Int {
        var context = ModelContext(graph: graph, resolver: wrapper.container, topLevelGraph: nil)
        context.offMain = offMain
        let value = try resolveEntry(wrapper.entry, as: wrapper.requested, &context)
        guard !context.failed, case .node(let made) = value else {
            throw Unmodelable("Lazy/Provider resolution fails: the access would stop the program")
        }
        return made
    }

    mutating func rollBack(_ undo: [ModelUndo]) {
        for action in undo.reversed() {
            switch action {
            case .stored(let entry):
                if let stored = entries[entry].stored { release(.node(stored)) }
                entries[entry].stored = nil
            case .weak(let entry, let previous):
                entries[entry].weakShare = previous
            case .graph(let entry, let graph, let previous):
                entries[entry].graphs[graph] = previous
            }
        }
    }

    mutating func resolve(_ request: MRequest, _ context: inout ModelContext) throws -> ModelField {
        if let through = request.through {
            // Through a container of the same hierarchy the factory captured: a call nested in this
            // request, as any other, that looks up from that container and hands it to factories.
            // Another hierarchy (the factory runs in a copy) has requests of its own: not modelled.
            if root(of: through) != root(of: context.resolver) {
                throw Unmodelable("factory: resolves through a container of another hierarchy (a copy's)")
            }
            guard held[through], !context.failed else { return .none }
            let resolver = context.resolver
            context.resolver = through
            defer { context.resolver = resolver }
            var direct = request
            direct.through = nil
            return try resolve(direct, &context)
        }
        if context.failed { return .none }
        let key = ModelKey(type: request.type, name: request.name?.canonical, args: request.args)
        switch request.wrapper {
        case .graphIdentifier:
            if context.frames.isEmpty { return context.topLevelGraph.map(ModelField.graph) ?? .none }
            return .graph(context.graph)
        case .plain, .optional, .caughtRequire, .optionalOperator:
            guard let entry = lookup(key, from: context.resolver) else { return .none }
            return try resolveHandlingFailure(entry, as: request.type, &context)
        case .fallback:
            guard let entry = lookup(key, from: context.resolver) else { return .none }
            let first = try resolveHandlingFailure(entry, as: request.type, &context)
            if case .none = first { return try resolveHandlingFailure(entry, as: request.type, &context) }
            return first
        case .discarded:
            guard let entry = lookup(key, from: context.resolver) else { return .none }
            let before = nodes.count
            _ = try resolveHandlingFailure(entry, as: request.type, &context)
            // Nothing holds what it made: a graph-scoped instance lives until the graph ends, a
            // transient or weak one dies in the factory.
            let scope = entries[entry].registration.scope.identity
            if nodes.count > before && (scope == .transient || scope == .weak) { releasedMidStep = true }
            return .none
        case .collection, .requireCollection:
            // In a factory: each element a resolution the factory makes, in the graph in flight;
            // the first that fails (a wrong type included) fails the collection, which is `nil`
            // (and `requireAll`'s failure the factory's, see `resolveEntry`). A cycle through an
            // element fails the whole request.
            var elements: [Int] = []
            for name in collectionNames(of: request.type, from: context.resolver) {
                // A key no longer registered (a factory removed it) fails the collection, as a
                // missing registration does at the top level.
                guard let entry = lookup(ModelKey(type: request.type, name: name, args: .none), from: context.resolver)
                else {
                    if !elements.isEmpty { releasedMidStep = true }
                    return .none
                }
                let value = try resolveHandlingFailure(entry, as: request.type, &context)
                guard !context.failed, case .node(let made) = value else {
                    if !elements.isEmpty { releasedMidStep = true }
                    return .none
                }
                elements.append(made)
            }
            return .node(makeCollection(elements))
        case .lazy, .provider:
            guard let entry = lookup(key, from: context.resolver) else { return .none }
            var node = ModelNode(kind: request.wrapper == .lazy ? .lazy : .provider)
            node.entry = entry
            node.container = context.resolver
            node.requested = request.type
            if request.wrapper == .lazy {
                node.graph = context.frames.isEmpty ? context.topLevelGraph : context.graph
            }
            entries[entry].refs += 1
            nodes.append(node)
            return .node(nodes.count - 1)
        }
    }

    /// A resolution a factory (or `initCompleted` action) makes: one that fails is that
    /// resolution's failure only. What it kept since it started is undone, the factory gets `nil`
    /// and goes on, and the request goes on unfailed. At the top level, the request fails.
    mutating func resolveHandlingFailure(
        _ entry: Int, as type: MType, _ context: inout ModelContext
    ) throws
        -> ModelField
    {
        guard !context.frames.isEmpty else { return try resolveEntry(entry, as: type, &context) }
        let undoMark = context.undo.count
        let nodesBefore = nodes.count
        let outerVisible = context.ranVisibleDeinitFactory
        let outerCompleting = context.ranCompletingFactory
        context.ranVisibleDeinitFactory = false
        context.ranCompletingFactory = false
        let value = try resolveEntry(entry, as: type, &context)
        defer {
            context.ranVisibleDeinitFactory = context.ranVisibleDeinitFactory || outerVisible
            context.ranCompletingFactory = context.ranCompletingFactory || outerCompleting
        }
        guard context.failed, !context.failedWhole else { return value }
        // What the failed resolution made dies where it failed, inside the resolution.
        if context.ranVisibleDeinitFactory {
            throw Unmodelable("deinit: a failed nested resolution made objects with actions")
        }
        if context.ranCompletingFactory { liveCountUnknown = true }
        if nodes.count > nodesBefore || context.undo.count > undoMark { releasedMidStep = true }
        rollBack(Array(context.undo[max(undoMark, context.fixedUndo)...]))
        context.undo.removeSubrange(undoMark...)
        context.fixedUndo = min(context.fixedUndo, undoMark)
        context.failed = false
        return .none
    }

    func cast(_ node: Int, as type: MType, entry: Int) throws -> ModelField {
        guard case .instance(let cls) = nodes[node].kind else { return .none }
        if type.isSatisfied(by: cls) { return .node(node) }
        if entries[entry].registration.scope.identity != .transient {
            throw Unmodelable("forwarded type mismatch on a kept instance")
        }
        return .none
    }

    func kept(_ entry: Int, _ context: ModelContext) throws -> Int? {
        let record = entries[entry]
        switch record.registration.scope.identity {
        case .transient, .unspecified:
            return nil
        case .graph:
            return isAlive(record.graphs[context.graph]?.node)
        case .container, .customPermanent:
            return record.stored
        case .weak:
            return isAlive(record.weakShare) ?? isAlive(record.graphs[context.graph]?.node)
        case .customGraph:
            guard let found = record.graphs[context.graph], let node = isAlive(found.node) else { return nil }
            if found.step != stepIndex {
                throw Unmodelable("a GraphStorage custom scope re-entered in an earlier graph")
            }
            return node
        }
    }

    mutating func keep(_ made: Int, in entry: Int, _ context: inout ModelContext) {
        let graph = context.graph
        switch entries[entry].registration.scope.identity {
        case .transient, .unspecified:
            return
        case .container, .customPermanent:
            entries[entry].stored = made
            nodes[made].refs += 1
            context.undo.append(.stored(entry))
        case .weak:
            context.undo.append(.weak(entry, entries[entry].weakShare))
            entries[entry].weakShare = made
            context.undo.append(.graph(entry, graph, entries[entry].graphs[graph]))
            entries[entry].graphs[graph] = (made, stepIndex)
        case .graph, .customGraph:
            context.undo.append(.graph(entry, graph, entries[entry].graphs[graph]))
            entries[entry].graphs[graph] = (made, stepIndex)
        }
    }

    /// What a factory does before it resolves its dependencies, on its registration's container
    /// (if the program still holds it).
    mutating func runFactoryAction(_ registration: MRegistration) throws {
        let container = registration.container
        guard held[container] else { return }
        switch registration.factoryAction {
        case .none: return
        case .resetContainerScope: reset(container: container, scope: .container, service: nil)
        case .resetGraphScope: reset(container: container, scope: .graph, service: nil)
        case .reregister: _ = try register(registration, in: container)
        case .removeAll: removeAll(container)
        case .readInjected: return  // `readInjectedInFactory`, which needs the request
        case .droppedChildResolves, .childDroppedByItsFactory: return  // nothing a trace shows
        }
        releasedMidStep = true
    }

    /// The factory reads the `@Injected` held in the newest slot as the step started. Its first
    /// access is a request of its own, in a graph of its own, nested in this one: in the same
    /// hierarchy it shares the frames (a cycle through them fails this request too); once it keeps
    /// a value, what this request made so far is final, as the value may be one of those
    /// instances or hold one.
    mutating func readInjectedInFactory(_ context: inout ModelContext) throws {
        let index = slotsAtStepStart - 1
        guard index >= 0, index < slots.count, case .node(let wrapper) = slots[index],
            nodes[wrapper].kind == .injected, !nodes[wrapper].isResolved
        else { return }
        if nodes[wrapper].isMain { throw Unmodelable("factory: reads an @MainInjected") }
        if context.failed { throw Unmodelable("factory: reads an @Injected after its request failed") }
        releasedMidStep = true
        let node = nodes[wrapper]
        let sameHierarchy = root(of: node.container) == root(of: context.resolver)
        let key = ModelKey(type: node.requested, name: node.name?.canonical, args: .none)
        guard let entry = lookup(key, from: node.container) else {
            nodes[wrapper].isResolved = true  // the nil of a service not registered is kept
            if sameHierarchy { context.fixedUndo = context.undo.count }
            return
        }
        var inner = ModelContext(graph: newGraph(), resolver: node.container, topLevelGraph: nil)
        inner.offMain = context.offMain
        if sameHierarchy { inner.frames = context.frames }
        let value = try resolveEntry(entry, as: node.requested, &inner)
        if inner.ranVisibleDeinitFactory { context.ranVisibleDeinitFactory = true }
        if inner.ranCompletingFactory { context.ranCompletingFactory = true }
        if inner.failed {
            if inner.ranVisibleDeinitFactory { throw Unmodelable("deinit: a failed request made objects with actions") }
            if inner.ranCompletingFactory { liveCountUnknown = true }
            rollBack(Array(inner.undo[inner.fixedUndo...]))
            if inner.failedWhole && sameHierarchy {
                context.failed = true  // a cycle through this request's frames is this request's
                context.failedWhole = true
            }
            return
        }
        guard case .node(let made) = value else { return }  // another type: not kept
        nodes[wrapper].isResolved = true
        nodes[wrapper].cached = made
        nodes[wrapper].keptForTheMainActor = inner.resolvedMainActor
        retain(.node(made))
        if sameHierarchy {
            context.fixedUndo = context.undo.count
            // The hierarchy counts main-actor resolutions: the nested request's are this one's too.
            if inner.resolvedMainActor { context.resolvedMainActor = true }
        }
    }

    func root(of container: Int) -> Int {
        var level = container
        while parents[level] >= 0 { level = parents[level] }
        return level
    }

    mutating func resolveEntry(_ entry: Int, as type: MType, _ context: inout ModelContext) throws -> ModelField {
        if context.frames.count > Self.maximumFrames { throw Unmodelable("resolution too deep") }
        entries[entry].resolutions += 1
        if entries[entry].isAsync {
            context.failed = true  // not built: the synchronous resolution fails
            resolutionCountsUnknown = true
            return .none
        }
        if context.offMain && entries[entry].registration.isMain {
            context.failed = true  // refused off the main actor, a kept instance included
            resolutionCountsUnknown = true
            return .none
        }
        if entries[entry].registration.isMain { context.resolvedMainActor = true }
        if let found = try kept(entry, context) { return try cast(found, as: type, entry: entry) }
        let registration = entries[entry].registration
        if registration.args == .none,
            let factory = context.frames.lastIndex(where: { $0.entry == entry && !$0.completion })
        {
            let completion = context.frames.lastIndex(where: { $0.completion }) ?? -1
            if completion < factory {
                context.failed = true  // a constructor cycle: the whole request fails
                context.failedWhole = true
                resolutionCountsUnknown = true
                return .none
            }
        }
        context.frames.append((entry, false))
        if registration.onDeinit.isVisible { context.ranVisibleDeinitFactory = true }
        if !registration.completions.isEmpty { context.ranCompletingFactory = true }
        try runFactoryAction(entries[entry].source ?? registration)
        if (entries[entry].source ?? registration).factoryAction == .readInjected {
            try readInjectedInFactory(&context)
            if context.failed {
                context.frames.removeLast()
                // The factory goes on and returns, unless it throws after its dependencies.
                if !registration.throwsAfterDependencies { entries[entry].made += 1 }
                return .none
            }
        }
        var fields: [ModelField] = []
        for dependency in registration.dependencies {
            let value = try resolve(dependency, &context)
            if dependency.wrapper == .requireCollection, registration.rethrowsCollectionFailure, !context.failed,
                dependency.through.map({ held[$0] }) ?? true, case .none = value
            {
                // `try r.requireAll(T.self)` threw: the factory throws it, resolving nothing more,
                // and what it resolved dies with it. A failure of this resolution only.
                context.frames.removeLast()
                context.failed = true
                if fields.contains(where: { if case .node = $0 { true } else { false } }) { releasedMidStep = true }
                return .none
            }
            fields.append(value)
        }
        context.frames.removeLast()
        if registration.throwsAfterDependencies {
            // The factory throws: it made nothing, and what it resolved dies with it. A failure of
            // this resolution only, unless the request had failed as a whole.
            context.failed = true
            if fields.contains(where: { if case .node = $0 { true } else { false } }) { releasedMidStep = true }
            return .none
        }
        entries[entry].made += 1  // the factory returned, whatever happened to the request meanwhile
        if context.failed { return .none }
        var node = ModelNode(kind: .instance(registration.makes), fields: fields)
        node.madeBy = entry
        nodes.append(node)
        let made = nodes.count - 1
        for field in fields { retain(field) }
        // A circular `initCompleted` may have kept an instance while the factory ran: that one
        // wins, and the one just made dies here, inside the resolution.
        if let found = try kept(entry, context) {
            releasedMidStep = true
            return try cast(found, as: type, entry: entry)
        }
        keep(made, in: entry, &context)
        if !registration.completions.isEmpty {
            context.frames.append((entry, true))
            // Each action stores what its resolutions returned, `nil` once the request has failed:
            // a wrapper read meanwhile may have kept the instance, and shows them.
            for completion in registration.completions {
                for request in completion {
                    let value = try resolve(request, &context)
                    nodes[made].fields.append(value)
                    retain(value)
                }
            }
            context.frames.removeLast()
            if context.failed { return .none }
        }
        let result = try cast(made, as: type, entry: entry)
        // A transient instance of another type than the forwarded one asked for dies right here.
        if case .none = result { releasedMidStep = true }
        return result
    }
}

extension ReferenceModel {
    /// A registration as the interpreter prints a `RegistrationInfo`: the key's type, name and
    /// argument types, the entry's own scope, the container's level, whether the key forwards,
    /// then the instances its factory made and the resolutions that reached it.
    func registrationLine(_ key: ModelKey, entry: ModelEntry, level: Int) -> String {
        let registration = entry.registration
        let ownKey = ModelKey(type: registration.service, name: registration.name?.canonical, args: registration.args)
        let scope = entry.isAsync ? "container" : "\(registration.scope.identity)"
        let name = key.name.map { "\($0)" } ?? "-"
        let made = entry.isAsync ? 0 : entry.made
        return "\(key.type)|\(name)|\(key.args.typeNames.joined(separator: ","))|\(scope)|L\(level)"
            + "|\(key == ownKey ? "own" : "forward")|made \(made)|resolved \(entry.resolutions)"
    }
}

extension MArgs {
    /// The factory's argument types as `RegistrationInfo.argumentTypes` names them.
    var typeNames: [String] {
        switch self {
        case .none: return []
        case .int: return ["Int"]
        case .string: return ["String"]
        case .intString: return ["Int", "String"]
        case .void: return ["()"]
        case .tuple: return ["(Int, String)"]
        }
    }
}
