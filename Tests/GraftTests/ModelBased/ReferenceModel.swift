// The reference model: predicts, step by step, what a Swinject-compatible container observes
// (nil or not, and which earlier object each result is). It implements Swinject 2.10's semantics
// plus Graft's documented differences:
//   - a constructor cycle fails at the first re-entry of an entry without arguments whose factory
//     is running with no `initCompleted` in between; the outermost resolve returns nil;
//   - a failed resolution keeps no instance it made, in any scope (also inside `withObjectGraph`);
//   - graph memory: a graph-scoped instance is found again when its graph is re-entered (a `Lazy`,
//     `withObjectGraph`) while it is alive, whatever other graphs did meanwhile.
// Lifetimes follow ARC: every strong reference is counted, a cycle stays alive.
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
    var registration: MRegistration
    var refs = 0
    var alive = true
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
}

struct ModelContext {
    var graph: Int
    var resolver: Int
    /// The graph a `Lazy` made at the top level (outside any factory) remembers.
    var topLevelGraph: Int?
    var frames: [(entry: Int, completion: Bool)] = []
    var failed = false
    var undo: [ModelUndo] = []
}

enum ModelUndo {
    case stored(Int)
    case weak(Int, Int?)
    case graph(Int, Int, (node: Int, step: Int)?)
}

public struct ReferenceModel {
    var parents: [Int]
    var tables: [[ModelKey: Int]]
    var entries: [ModelEntry] = []
    var registrationEntries: [Int] = []
    var nodes: [ModelNode] = []
    var slots: [ModelField] = []
    var nextGraph = 1
    var stepIndex = 0

    /// Deeper resolutions are not modelled (Graft stops at 200, Swinject crashes at 200).
    static let maximumFrames = 60

    public init(parents: [Int]) {
        self.parents = parents
        tables = Array(repeating: [:], count: parents.count)
    }

    /// Runs `program`, dropping the steps the model cannot predict (and those that would crash a
    /// correct container, such as reading a `Lazy` whose resolution fails). Returns the program
    /// that was modelled, its trace, and why each dropped step was dropped.
    public static func run(_ program: MProgram) -> (program: MProgram, trace: Trace, skipped: [String]) {
        var model = ReferenceModel(parents: program.parents)
        var kept: [MStep] = []
        var raw: [[RawObservation]] = []
        var skipped: [String] = []
        for step in program.steps {
            let saved = model
            do {
                let observed = try model.perform(step)
                model.sweep()
                model.stepIndex += 1
                kept.append(step)
                raw.append(observed)
            } catch let error as Unmodelable {
                model = saved
                skipped.append(error.reason)
            } catch {
                model = saved
                skipped.append("\(error)")
            }
        }
        return (MProgram(parents: program.parents, steps: kept), normalize(raw), skipped)
    }

    // MARK: Steps

    mutating func perform(_ step: MStep) throws -> [RawObservation] {
        switch step {
        case .register(let registration):
            let entry = entries.count
            entries.append(ModelEntry(registration: registration))
            registrationEntries.append(entry)
            insert(
                ModelKey(type: registration.service, name: registration.name?.canonical, args: registration.args),
                entry: entry, in: registration.container)
            for forward in registration.forwards { try addForward(forward, to: entry) }
            return []

        case .forward(let registration, let forward):
            guard !registrationEntries.isEmpty else { throw Unmodelable("forward: no registration yet") }
            let entry = registrationEntries[registration % registrationEntries.count]
            // The program holds the entry weakly: once nothing else does, `implements` is not modelled.
            guard entries[entry].alive else { throw Unmodelable("forward: the entry is gone") }
            try addForward(forward, to: entry)
            return []

        case .resolve(let container, let request):
            let value = try resolveTop(container: container, request: request, graph: newGraph(), topLevelGraph: nil)
            hold(value)
            return observe(value)

        case .withObjectGraph(let container, let slot, let field, let requests):
            guard !slots.isEmpty, case .node(let holder) = slots[slot % slots.count] else {
                throw Unmodelable("withObjectGraph: no instance in the slot")
            }
            let graphs = nodes[holder].fields.compactMap { field -> Int? in
                if case .graph(let g) = field { return g }
                return nil
            }
            guard !graphs.isEmpty else { throw Unmodelable("withObjectGraph: no graph identifier held") }
            let graph = graphs[field % graphs.count]
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
            let node = nodes[wrapper]
            switch node.kind {
            case .instance: throw Unmodelable("access: not a wrapper")
            case .lazy:
                if let cached = node.cached {
                    hold(.node(cached))
                    return observe(.node(cached))
                }
                let value = try resolveDeferred(node, graph: node.graph ?? newGraph())
                nodes[wrapper].cached = value
                retain(.node(value))
                hold(.node(value))
                return observe(.node(value))
            case .provider:
                let value = try resolveDeferred(node, graph: newGraph())
                hold(.node(value))
                return observe(.node(value))
            }

        case .release(let slot):
            guard !slots.isEmpty else { throw Unmodelable("release: no slot") }
            let index = slot % slots.count
            release(slots[index])
            slots[index] = .none
            return []

        case .reset(let container, let scope, let service):
            var level = container
            while level >= 0 {
                let keys = tables[level].keys.filter { service == nil || $0.type == service }
                // Graft walks every ancestor; Swinject stops at the first container without a
                // registration of the service type (an intended difference, MigratingFromSwinject.md).
                for key in keys {
                    let entry = tables[level][key]!
                    if entries[entry].registration.scope.identity == scope.identity { drop(entry) }
                }
                level = parents[level]
            }
            return []

        case .removeAll(let container):
            for entry in tables[container].values { releaseEntry(entry) }
            tables[container] = [:]
            return []
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
            entry: entry, in: registration.container)
    }

    mutating func insert(_ key: ModelKey, entry: Int, in container: Int) {
        entries[entry].refs += 1
        if let old = tables[container].updateValue(entry, forKey: key) { releaseEntry(old) }
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
            case .instance:
                return [.object(n)]
                    + nodes[n].fields.map { field -> RawObservation in
                        switch field {
                        case .none: return .none
                        case .graph(let g): return .graph(UInt64(g))
                        case .node(let m):
                            switch nodes[m].kind {
                            case .instance: return .object(m)
                            case .lazy: return .lazy
                            case .provider: return .provider
                            }
                        }
                    }
            }
        }
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

    /// Ends every object and entry nothing holds any more, as ARC would.
    mutating func sweep() {
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
                for field in nodes[index].fields { release(field) }
                if nodes[index].entry >= 0 { releaseEntry(nodes[index].entry) }
                if let cached = nodes[index].cached { release(.node(cached)) }
                changed = true
            }
        }
    }

    func isAlive(_ node: Int?) -> Int? {
        guard let node, nodes[node].alive else { return nil }
        return node
    }

    // MARK: Resolution

    mutating func resolveTop(container: Int, request: MRequest, graph: Int, topLevelGraph: Int?) throws -> ModelField {
        var context = ModelContext(graph: graph, resolver: container, topLevelGraph: topLevelGraph)
        let value = try resolve(request, &context)
        if context.failed {
            rollBack(context.undo)
            return .none
        }
        return value
    }

    /// `Lazy.instance` / `Provider.instance`: the entry found when the wrapper was made, resolved
    /// through the container it was made by. A failure would stop the program: not modelled.
    mutating func resolveDeferred(_ wrapper: ModelNode, graph: Int) throws -> Int {
        var context = ModelContext(graph: graph, resolver: wrapper.container, topLevelGraph: nil)
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
        if context.failed { return .none }
        let key = ModelKey(type: request.type, name: request.name?.canonical, args: request.args)
        switch request.wrapper {
        case .graphIdentifier:
            if context.frames.isEmpty { return context.topLevelGraph.map(ModelField.graph) ?? .none }
            return .graph(context.graph)
        case .plain, .optional:
            guard let entry = lookup(key, from: context.resolver) else { return .none }
            return try resolveEntry(entry, as: request.type, &context)
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

    mutating func resolveEntry(_ entry: Int, as type: MType, _ context: inout ModelContext) throws -> ModelField {
        if context.frames.count > Self.maximumFrames { throw Unmodelable("resolution too deep") }
        if let found = try kept(entry, context) { return try cast(found, as: type, entry: entry) }
        let registration = entries[entry].registration
        if registration.args == .none,
            let factory = context.frames.lastIndex(where: { $0.entry == entry && !$0.completion })
        {
            let completion = context.frames.lastIndex(where: { $0.completion }) ?? -1
            if completion < factory {
                context.failed = true  // a constructor cycle
                return .none
            }
        }
        context.frames.append((entry, false))
        var fields: [ModelField] = []
        for dependency in registration.dependencies {
            fields.append(try resolve(dependency, &context))
        }
        context.frames.removeLast()
        if context.failed { return .none }
        nodes.append(ModelNode(kind: .instance(registration.makes), fields: fields))
        let made = nodes.count - 1
        for field in fields { retain(field) }
        // A circular `initCompleted` may have kept an instance while the factory ran: that one wins.
        if let found = try kept(entry, context) { return try cast(found, as: type, entry: entry) }
        keep(made, in: entry, &context)
        if !registration.completions.isEmpty {
            context.frames.append((entry, true))
            for completion in registration.completions {
                for request in completion {
                    let value = try resolve(request, &context)
                    if context.failed { return .none }
                    nodes[made].fields.append(value)
                    retain(value)
                }
            }
            context.frames.removeLast()
        }
        return try cast(made, as: type, entry: entry)
    }
}
