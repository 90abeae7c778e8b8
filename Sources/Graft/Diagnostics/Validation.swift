// Graft — MIT License.

/// What ``Container/validate()`` found: every failure, the warnings, what it could not try, and
/// the dependency graph it observed.
///
/// ```swift
/// @Test func assemblyIsValid() {
///     let report = container.validate()
///     #expect(report.isValid, "\(report)")
/// }
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// Every registration that failed to resolve, each with its path.
    public var failures: [ResolutionError]
    /// Dangerous shapes of the graph that resolve today (see ``ValidationWarning``).
    public var warnings: [ValidationWarning]
    /// Registrations validation could not try, because their factories need runtime arguments.
    public var skipped: [String]
    /// What was observed while resolving.
    public var graph: DependencyGraph

    /// Whether every registration tried resolved.
    public var isValid: Bool { failures.isEmpty }

    /// Dependencies that are not registered, which a registration that resolved went on without
    /// (an `Optional` asked for, `r.resolve(X.self) ?? fallback`), as `Service -> Dependency`.
    /// Not failures nor warnings: an optional dependency may be absent on purpose. Listed so that
    /// a registration made under another name or type can be found. (A registered dependency that
    /// failed is a ``ValidationWarning/Kind/handledFailure`` warning instead.)
    public var absentDependencies: [String] {
        let failed = Set(failures.compactMap(\.path.first))
        let absent = graph.edges.compactMap { edge -> String? in
            let service = graph.nodes[edge.from].label
            return edge.to == nil && !failed.contains(service) ? "\(service) -> \(edge.requested)" : nil
        }
        return Array(Set(absent)).sorted()
    }

    /// A summary, then each failure, warning and skipped registration, and the absent dependencies.
    public var description: String {
        let summary =
            "Validation: \(graph.nodes.count) registrations, \(failures.count) failures, "
            + "\(warnings.count) warnings, \(skipped.count) skipped."
        let details: [String] =
            failures.map { "FAILURE \($0)" } + warnings.map { "WARNING \($0)" } + skipped.map { "SKIPPED " + $0 }
            + absentDependencies.map { "ABSENT " + $0 + " (not registered; resolved without it)" }
        return ([summary] + details).joined(separator: "\n")
    }
}

/// A shape of the graph that works today but is likely a bug.
public struct ValidationWarning: Sendable, CustomStringConvertible {
    /// The kinds of warning.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// A `.container` or `.weak` service resolves a `.transient` or `.graph` one, which then
        /// lives as long as the singleton (Simple Injector's "lifestyle mismatch").
        case captiveDependency
        /// A parent's `.container` or `.weak` service, resolved through a child container, used a
        /// registration of that child: the singleton depends on which child asked first.
        case parentCapturesChild
        /// A factory went on without a dependency that failed (its `resolve` returned `nil`, or
        /// it caught what `require` threw): the service resolves, without that dependency.
        case handledFailure

        /// The kind in a few words, as the dependency graph labels its edges.
        public var description: String {
            switch self {
            case .captiveDependency: "captive dependency"
            case .parentCapturesChild: "parent captures child"
            case .handledFailure: "handled failure"
            }
        }
    }

    /// The kind of warning.
    public var kind: Kind
    /// The long-lived service, labelled as in a path.
    public var service: String
    /// What it captured, labelled as in a path.
    public var dependency: String
    /// What is wrong and how to fix it.
    public var description: String
}

/// One registration, as ``Container/registrations`` lists it.
public struct RegistrationInfo {
    /// The type the registration answers to (for a forward, the forwarded type).
    public var serviceType: Any.Type
    /// The registration name, or `nil`.
    public var name: String?
    /// The scope its instances live in.
    public var objectScope: ObjectScopeProtocol
    /// The factory's argument types, as `String(describing:)` prints them.
    public var argumentTypes: [String]
    /// Which container holds it: 0 for the container asked, 1 for its parent, and so on.
    public var containerLevel: Int
    /// Whether the registration forwards to another's factory (`implements`, `forward`).
    public var isForwarded: Bool
    /// How many times the registration (with its forwards) was resolved.
    public var resolutionCount: Int
    /// How many instances its factory made.
    public var instanceCount: Int
}

extension Container {
    /// Each registration of this container and its ancestors, this container's first, each sorted.
    ///
    /// ```swift
    /// for info in container.registrations where info.resolutionCount == 0 {
    ///     print("never resolved:", info.serviceType, info.name ?? "")
    /// }
    /// ```
    public final var registrations: [RegistrationInfo] {
        onContainerLocked { holder in
            holder.selfAndAncestors.enumerated().flatMap { level, container in
                container.services.registrations.map { key, entry in
                    // An async registration's instances are made by its builds.
                    RegistrationInfo(
                        serviceType: key.serviceType, name: key.name, objectScope: entry.objectScope,
                        argumentTypes: entry.argumentTypeNames(), containerLevel: level,
                        isForwarded: key.service != ObjectIdentifier(entry.keyType) || key.name != entry.name,
                        resolutionCount: entry.cell.resolutionCount,
                        instanceCount: entry.asyncRegistration?.instanceCount ?? entry.instanceCount)
                }
                .sorted { serviceLabel($0.serviceType, name: $0.name) < serviceLabel($1.serviceType, name: $1.name) }
            }
        }
    }

    /// Resolves every registration of this container and its ancestors that needs no arguments,
    /// and reports every failure (not only the first), the warnings its graph deserves, and the
    /// graph itself.
    ///
    /// Factories really run, through a resolver of this container, but nothing they make is kept:
    /// each scope's instance lives in the validation's graph only, existing instances are left as
    /// they are, and afterwards the container resolves exactly as before (counts included).
    /// A factory that force-unwraps a dependency it cannot get (`r.resolve(X.self)!`) stops the
    /// process there, as it would in production; write `try r.require(X.self)` to have every such
    /// failure in the report instead. While validating, each `resolve` that fails is written at
    /// once, before its `nil` is returned, to standard error and to ``loggingFunction``: what was
    /// missing, or the cycle's chain, and the path that asked. So such a stop comes with its reason.
    ///
    /// ```swift
    /// let report = container.validate()
    /// if !report.isValid { print(report) }
    /// ```
    public final func validate() -> ValidationReport {
        validate(samples: [])
    }

    /// ``validate()``, trying the registrations that take arguments with the values of
    /// `samples`: an app's entry points often take a job, a request or an id, and the graph below
    /// them is checked only this way.
    ///
    /// ```swift
    /// let report = container.validate(samples: [
    ///     ValidationSample(OrderHandler.self, argument: Order(id: 1)),
    ///     ValidationSample(Job.self, name: "nightly", arguments: "reports", 3),
    /// ])
    /// ```
    ///
    /// A registration that takes arguments and has no sample is skipped, as by `validate()`; a
    /// sample that matches no registration (its type, name and argument types) is a failure, so
    /// a sample left behind by a changed registration is found.
    public final func validate(samples: [ValidationSample]) -> ValidationReport {
        // Factories get a view, whatever `validate()` was called on: each registration is resolved
        // through it as a root request.
        // A change hold: it switches scopes and restores tables, which other threads may change.
        onContainer(changing: "validate()") {
            $0.validate(through: SynchronizedResolver(container: $0), samples: samples)
        }
    }

    private final func validate(through resolver: Container, samples: [ValidationSample]) -> ValidationReport {
        // Inside a resolution the validation would share its graph and meet the factories running
        // as false cycles; it must start from nothing in flight.
        stopUnless(
            hierarchy.resolution.depth == 0 && hierarchy.frameCount == 0,
            "Graft: validate() called during a resolution (in a factory, initCompleted or withObjectGraph); "
                + "call it where no resolution of this container hierarchy is running")
        let recorder = ValidationRecorder(container: self)
        // A factory may register while it runs, and resolve through any container of the
        // hierarchy it captured: every live table is put back as it was after, with its counts.
        let tables = hierarchy.liveTables.map { ($0, $0.registrations) }
        let childRecords = hierarchy.childRegistrationRecords
        let counts = tables.flatMap(\.1).map { ($0.entry, $0.entry.cell.resolutionCount, $0.entry.instanceCount) }
        var seen = Set<ObjectIdentifier>()
        let entries = selfAndAncestors.flatMap { $0.services.registrations.map(\.entry) }
            .filter { seen.insert(ObjectIdentifier($0)).inserted }
            .sorted { SharedState.label($0) < SharedState.label($1) }
        // A main-actor registration is tried on the main actor only (elsewhere it fails by
        // design); an async one through resolveAsync only.
        let onMainThread = Platform.isOnMainActor()
        // Every scope acts as the graph scope while validating: instances are shared within one
        // resolution and dropped at its end, and what the real scopes keep is left alone.
        let scopes = entries.map { ($0.scope, $0.scopeKind) }
        recorder.originalKinds = Dictionary(uniqueKeysWithValues: entries.map { (ObjectIdentifier($0), $0.scopeKind) })
        // An async registration's synchronous resolution reads what its builds made, and is left so.
        for entry in entries where entry.scopeKind != .transient && entry.kind != .async {
            entry.setKindWhileValidating(.graph)
        }

        var failures: [ResolutionError] = []
        var skipped: [String] = []
        hierarchy.diagnostics.beginValidation(recorder)
        // Each registration's own failure goes to the report; what its factories' `resolve` calls
        // meet is written as it happens (see `SharedState.explain(_:)`).
        let outer = hierarchy.beginCallHandingFailureToCaller()
        // Each sample's registration, found as `resolve` finds it (a forward leads to its entry).
        let sampled = samples.map { slot(for: $0.key)?.pointee.entry }
        let unmatched = samples.indices.filter { sampled[$0] == nil }.map { samples[$0] }
        for entry in entries {
            let withArguments = entry.argumentsKey != noArgumentsKey
            let mine = withArguments ? samples.indices.filter { sampled[$0] === entry }.map { samples[$0] } : []
            let whySkipped: String? =
                switch entry.kind {
                case .async: "async: its factory runs through resolveAsync"
                case .mainActor where !onMainThread: "main actor: validate on the main actor to try it"
                default:
                    withArguments && mine.isEmpty
                        ? "arguments: \(entry.argumentTypeNames().joined(separator: ", ")); "
                            + "give validate(samples:) a ValidationSample to try it" : nil
                }
            if let whySkipped {
                skipped.append(SharedState.label(entry) + " (\(whySkipped))")
                continue
            }
            _ = recorder.node(for: entry)
            for sample in withArguments ? mine.map(Optional.some) : [nil] {
                let errors = hierarchy.resolution.errorCount
                let resolved =
                    sample?.validate(entry, in: self, resolver: resolver)
                    ?? entry.validateAsRoot(in: self, resolver: resolver, arguments: nil)
                if !resolved, hierarchy.resolution.errorCount != errors, let error = hierarchy.resolution.lastError {
                    failures.append(error)
                }
            }
        }
        failures += recorder.furtherFailures + unmatched.map(\.unmatchedFailure)
        hierarchy.endCallHandingFailureToCaller(outer)
        hierarchy.restoreChildRegistrations(childRecords, endedMeanwhile: recorder.endedChildren)
        hierarchy.diagnostics.endValidation()
        hierarchy.forgetLastErrorUnlessRead()  // read above: the report holds what it needs
        for (entry, (scope, kind)) in zip(entries, scopes) where entry.scope === scope {
            entry.setKindWhileValidating(kind)  // unless a factory changed the scope meanwhile
        }
        for (table, registrations) in tables { table.restore(registrations) }
        for (entry, resolutions, instances) in counts {
            entry.cell.resolutionCount = resolutions
            entry.instanceCount = instances
        }
        // What a scope kept anyway (an entry a factory gave its real scope meanwhile, one of a
        // container outside this one's ancestors that a factory captured) is dropped, so the
        // validation keeps nothing. Dropped after the counts are restored: a `deinit` run by a
        // drop may resolve, and what it keeps and counts is its own.
        var dropped: [Any] = []
        let storages = hierarchy.uncheckedSection {
            recorder.kept.compactMap { $0.entry.moveKeptInstance(into: &dropped, generation: $0.generation) }
        }
        recorder.kept = []
        for storage in storages { storage.instance = nil }  // user code: a custom scope's storage
        withExtendedLifetime(dropped) {}
        return recorder.report(failures: failures, skipped: skipped)
    }
}

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

    init(container: Container) {
        chain = container.selfAndAncestors
    }

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
        let service = SharedState.label(outer)
        let dependency = SharedState.label(failed)
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

    private func level(of entry: AnyServiceEntry) -> Int {
        chain.firstIndex { entry.link.links($0) } ?? -1
    }

    private func isSingleton(_ entry: AnyServiceEntry) -> Bool {
        kind(of: entry) == .container || kind(of: entry) == .weak
    }

    func report(failures: [ResolutionError], skipped: [String]) -> ValidationReport {
        // Nodes sorted by label; edges renumbered.
        let order = entries.indices.sorted { SharedState.label(entries[$0]) < SharedState.label(entries[$1]) }
        var renumbered = [Int](repeating: 0, count: entries.count)
        for (position, old) in order.enumerated() { renumbered[old] = position }
        let nodes = order.enumerated().map { position, old in
            let entry = entries[old]
            return DependencyGraph.Node(
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

/// A registration that takes arguments, with values that ``Container/validate(samples:)`` resolves
/// it with.
///
/// ```swift
/// ValidationSample(OrderHandler.self, argument: Order(id: 1))
/// ValidationSample(Job.self, name: "nightly", arguments: "reports", 3)
/// ```
public struct ValidationSample {
    /// The key `resolve` would look up with these values.
    let key: ServiceKey
    private let label: String
    private let argumentTypeNames: [String]
    /// Resolves the entry matched with the values, as a root request of the validation.
    private let resolve: (AnyServiceEntry, Container, Resolver) -> Bool

    /// A sample for the registration of `serviceType` under `name` whose factory takes exactly
    /// the types of `arguments`.
    public init<Service, each Argument>(
        _ serviceType: Service.Type, name: String? = nil, arguments: repeat each Argument
    ) {
        key = ServiceKey(service: Service.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        label = serviceLabel(Service.self, name: name)
        argumentTypeNames = typeNames(repeat (each Argument).self)
        let values = (repeat each arguments)
        resolve = { entry, container, resolver in
            // Matched by the key's argument types, so the factory reads exactly this tuple.
            withUnsafePointer(to: values) {
                entry.validateAsRoot(in: container, resolver: resolver, arguments: UnsafeRawPointer($0))
            }
        }
    }

    /// A sample for a registration whose factory takes one argument, of `argument`'s type.
    public init<Service, each Argument>(
        _ serviceType: Service.Type, name: String? = nil, argument: repeat each Argument
    ) {
        self.init(serviceType, name: name, arguments: repeat each argument)
    }

    func validate(_ entry: AnyServiceEntry, in container: Container, resolver: Resolver) -> Bool {
        resolve(entry, container, resolver)
    }

    var unmatchedFailure: ResolutionError {
        ResolutionError(
            .notRegistered, path: [label],
            message: "Graft: validation sample for \(label) taking \(argumentsPhrase(argumentTypeNames)) matches no "
                + "registration: register it, or give the sample the registration's type, name and argument types.")
    }
}
