// Graft — MIT License.

/// Observes the resolutions made while ``Container/validate()`` runs, then turns them into a
/// report. Used only under the validation, on its thread (or under the hierarchy's mutex).
final class ValidationRecorder {
    private let chain: [Container]
    /// What the validation's requests kept beyond their graph, in any container of the hierarchy:
    /// dropped when it ends.
    var kept: [KeptMember] = []
    /// The child containers that ended while it ran, whose records it must not put back.
    var endedChildren = Set<ObjectIdentifier>()
    /// Failures of a collection's elements after the first, which the collection's caller did not
    /// get: reported with the rest.
    var furtherFailures: [ResolutionError] = []
    private var entries: [AnyServiceEntry] = []
    private var index: [ObjectIdentifier: Int] = [:]
    private var edges: [DependencyGraph.Edge] = []
    private var edgeSet = Set<String>()
    /// The key each target was asked by, per edge (for the parent-captures-child check).
    private var edgeKeys: [ServiceKey?] = []
    /// Each entry's scope kind before the validation made it `.graph`.
    var originalKinds: [ObjectIdentifier: ObjectScope.Kind] = [:]

    private func kind(of entry: AnyServiceEntry) -> ObjectScope.Kind {
        originalKinds[ObjectIdentifier(entry)] ?? entry.scopeKind
    }

    init(container: Container) { chain = container.selfAndAncestors }

    func node(for entry: AnyServiceEntry) -> Int {
        if let existing = index[ObjectIdentifier(entry)] { return existing }
        entries.append(entry)
        index[ObjectIdentifier(entry)] = entries.count - 1
        return entries.count - 1
    }

    /// A resolution with arguments reached `entry`.
    func observe(_ entry: AnyServiceEntry, in hierarchy: SharedState) {
        guard hierarchy.resolution.innermostEntry !== entry else { return }
        add(to: entry, requested: SharedState.label(entry), key: nil, in: hierarchy)
    }

    /// A resolution without arguments through the validation's resolver, before it runs.
    func observeRequest(_ key: ServiceKey, from container: Container, isWrapper: Bool, in hierarchy: SharedState) {
        let entry = container.slot(for: key)?.pointee.entry
        guard entry != nil || (!isWrapper && key.serviceType != GraphIdentifier.self) else { return }
        add(to: entry, requested: serviceLabel(key.serviceType, name: key.name), key: key, in: hierarchy)
    }

    /// The factory of `outer` was handed the failure of `failed`, a resolution it made, and may go
    /// on without it (see ``SharedState/confineFailure(of:from:)``); noted once per pair and reason.
    func observeHandledFailure(_ error: ResolutionError, of failed: AnyServiceEntry, by outer: AnyServiceEntry) {
        let (service, dependency) = (SharedState.label(outer), SharedState.label(failed))
        guard handledSet.insert(service + "\u{0}" + dependency + "\u{0}" + error.message).inserted else { return }
        handled.append(
            ValidationWarning(
                kind: .handledFailure, service: service, dependency: dependency,
                description: "handled failure: the factory of \(service) went on without \(dependency), which "
                    + "failed (\(error.reason)); \(service) resolves without it. \(error.descriptionWithoutPrefix)"))
    }

    /// Handled failures, in the order met, and what was noted (see ``observeHandledFailure(_:of:by:)``).
    private var handled: [ValidationWarning] = []
    private var handledSet = Set<String>()

    /// A resolution with arguments found nothing registered.
    func observeMissing(_ requested: String, in hierarchy: SharedState) {
        add(to: nil, requested: requested, key: nil, in: hierarchy)
    }

    /// The factory running in `hierarchy` took a collection for `requested`, which it first asked
    /// for as a registration (an autoregistered array parameter): no absent dependency.
    func retractAbsent(_ requested: String, in hierarchy: SharedState) {
        guard let from = hierarchy.resolution.innermostEntry.map(node(for:)),
            let index = edges.lastIndex(where: { $0.from == from && $0.to == nil && $0.requested == requested })
        else { return }
        edges.remove(at: index)
        edgeKeys.remove(at: index)
        edgeSet.remove("\(from)>\(requested)")
    }

    /// An edge from the entry whose factory is running in `hierarchy` (none outside a factory).
    private func add(to target: AnyServiceEntry?, requested: String, key: ServiceKey?, in hierarchy: SharedState) {
        guard let from = hierarchy.resolution.innermostEntry.map(node(for:)) else { return }
        let to = target.map(node(for:))
        guard edgeSet.insert("\(from)>\(to.map(String.init) ?? requested)").inserted else { return }
        edges.append(DependencyGraph.Edge(from: from, to: to, requested: requested, isInCycle: false, warning: nil))
        edgeKeys.append(key)
    }

    private func level(of entry: AnyServiceEntry) -> Int { chain.firstIndex { entry.link.links($0) } ?? -1 }

    private func isSingleton(_ entry: AnyServiceEntry) -> Bool { [.container, .weak].contains(kind(of: entry)) }

    func report(failures: [ResolutionError], skipped: [String]) -> ValidationReport {
        // Nodes sorted by label; edges renumbered.
        let order = entries.indices.sorted { SharedState.label(entries[$0]) < SharedState.label(entries[$1]) }
        var renumbered = [Int](repeating: 0, count: entries.count)
        for (position, old) in order.enumerated() { renumbered[old] = position }
        let nodes = order.map { entries[$0] }.enumerated().map { position, entry in
            DependencyGraph.Node(
                id: position, serviceType: "\(entry.keyType)", name: entry.name,
                objectScope: "\(entry.objectScope)", argumentTypes: entry.argumentTypeNames(),
                containerLevel: level(of: entry))
        }
        var warnings: [ValidationWarning] = []
        var graphEdges = edges

        // Cycles: consecutive elements of each circular dependency's path.
        var cyclePairs = Set<String>()
        for failure in failures {
            guard case .circularDependency = failure.reason else { continue }
            for (from, to) in zip(failure.path, failure.path.dropFirst()) { cyclePairs.insert(from + "\u{0}" + to) }
        }
        for position in graphEdges.indices {
            guard let to = graphEdges[position].to else { continue }
            let (from, target) = (entries[graphEdges[position].from], entries[to])
            let (service, dependency) = (SharedState.label(from), SharedState.label(target))
            graphEdges[position].isInCycle = cyclePairs.contains(service + "\u{0}" + dependency)
            if isSingleton(from) && (kind(of: target) == .transient || kind(of: target) == .graph) {
                graphEdges[position].warning = .captiveDependency
                warnings.append(
                    ValidationWarning(
                        kind: .captiveDependency, service: service, dependency: dependency,
                        description:
                            "captive dependency: \(service) (scope \(from.objectScope)) resolves \(dependency) "
                            + "(scope \(target.objectScope)), which then lives as long as \(service). Make \(dependency) "
                            + "longer-lived, or resolve it when needed through a Provider."))
            }
        }
        warnings += parentCapturesChild(edges: &graphEdges)
        // A handled failure only while its outer registration resolved: one that failed itself is
        // a failure of the report.
        let failed = Set(failures.compactMap(\.path.first))
        warnings += handled.filter { !failed.contains($0.service) }
        for position in graphEdges.indices {
            graphEdges[position].from = renumbered[graphEdges[position].from]
            graphEdges[position].to = graphEdges[position].to.map { renumbered[$0] }
        }
        graphEdges.sort { ($0.from, $0.to ?? -1, $0.requested) < ($1.from, $1.to ?? -1, $1.requested) }
        return ValidationReport(
            failures: failures, warnings: warnings, skipped: skipped,
            graph: DependencyGraph(nodes: nodes, edges: graphEdges))
    }

    /// A singleton registered in an ancestor whose construction (its own factory, and the
    /// transient or graph services it made) used a registration of a container below its own.
    private func parentCapturesChild(edges graphEdges: inout [DependencyGraph.Edge]) -> [ValidationWarning] {
        var warnings: [ValidationWarning] = []
        for (position, singleton) in entries.enumerated() where isSingleton(singleton) && level(of: singleton) > 0 {
            let home = level(of: singleton)
            var stack = [position]
            var visited: Set<Int> = [position]
            while let current = stack.popLast() {
                for (edgeIndex, edge) in graphEdges.enumerated() where edge.from == current {
                    guard let to = edge.to, visited.insert(to).inserted else { continue }
                    let target = entries[to]
                    let targetLevel = level(of: target)
                    if targetLevel >= 0 && targetLevel < home {
                        graphEdges[edgeIndex].warning = graphEdges[edgeIndex].warning ?? .parentCapturesChild
                        let key =
                            edgeKeys[edgeIndex]
                            ?? ServiceKey(service: target.keyType, arguments: target.argumentsKey, name: target.name)
                        let overrides = chain[home].slot(for: key) != nil
                        let (service, dependency) = (SharedState.label(singleton), SharedState.label(target))
                        warnings.append(
                            ValidationWarning(
                                kind: .parentCapturesChild, service: service, dependency: dependency,
                                description: "parent captures child: \(service) (scope \(singleton.objectScope), "
                                    + "registered in \(containerName(home))) was made, through a child container, with "
                                    + "\(dependency) registered in \(containerName(targetLevel))"
                                    + (overrides ? ", which overrides the registration its own container sees" : "")
                                    + ". The instance kept depends on which child resolves it first; register "
                                    + "\(service) in the child, or \(dependency) in the parent."))
                    } else if !isSingleton(target) {
                        stack.append(to)
                    }
                }
            }
        }
        return warnings
    }
}
