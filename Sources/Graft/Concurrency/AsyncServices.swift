// Graft — MIT License.

/// A registration whose factory is `async`: built with ``SynchronizedResolver/resolveAsync(_:name:)``.
///
/// ```swift
/// container.registerAsync(Database.self) { r in try await Database.connect(r.resolve(Config.self)!) }
/// let database = try await container.synchronize().resolveAsync(Database.self)
/// ```
///
/// In the `.container` scope (the default) the service is built once: callers that arrive during
/// the build wait for it and get the same instance (single flight). A build that throws gives every
/// waiter the error and caches nothing; the next call builds again. A waiter whose task is
/// cancelled stops waiting with `CancellationError`, and the build goes on for the others; its
/// result is kept even if the cancelled waiter started it. In the `.transient` scope each call
/// builds a new instance.
public final class AsyncServiceEntry<Service: Sendable>: AnyAsyncEntry, @unchecked Sendable {
    // Every `var` is touched only under `link.hierarchy.mutex`, which is never held across an
    // `await` (a pthread mutex is unlocked by the thread that locked it; a task may move).

    /// The registration name, or `nil`.
    public let name: String?
    let factory: @Sendable (SynchronizedResolver) async throws -> Service
    let link: ContainerLink
    private(set) var isTransient = false
    // Read by the inlinable `resolveAsync` in other modules, where every access to a class's
    // stored property would otherwise be checked dynamically for exclusivity (a third of that
    // path). Guarded by the hierarchy's mutex like the rest; debug builds keep the checks.
    #if DEBUG  // dynamic exclusivity checks in debug builds: the invariant check on every access
        @usableFromInline private(set) var built: Service?
        @usableFromInline private(set) var hasBuilt = false
    #else
        @exclusivity(unchecked) @usableFromInline private(set) var built: Service?
        @exclusivity(unchecked) @usableFromInline private(set) var hasBuilt = false
    #endif
    private var build: AsyncBuild<Service>?
    /// Moves on with every reset and change of scope: a build started before keeps its result for
    /// its own waiters but caches nothing.
    private var generation = 0
    /// The transient entry in the table that answers a synchronous `resolve`.
    weak var gate: AnyServiceEntry?

    init(
        name: String?, container: Container, factory: @escaping @Sendable (SynchronizedResolver) async throws -> Service
    ) {
        self.name = name
        self.link = container.link
        self.factory = factory
    }

    var label: String { serviceLabel(Service.self, name: name) }

    /// Sets the scope: `.container` (built once, the default) or `.transient` (built on every call).
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        stopUnless(
            objectScope === ObjectScope.container || objectScope === ObjectScope.transient,
            "Graft: an async service is in the .container or the .transient scope, not \(objectScope)")
        link.hierarchy.locked {
            isTransient = objectScope === ObjectScope.transient
            resetLocked()
        }
        return self
    }

    /// The callers waiting for the build in flight (for tests to know when a wait has begun).
    var inFlightWaiterCount: Int {
        link.hierarchy.locked { build?.waiterCount ?? 0 }
    }

    /// The instance built, if any (for a synchronous `resolve`).
    @inlinable
    func builtInstance() -> Service? {
        lockState()
        defer { unlockState() }
        return hasBuilt ? built : nil
    }

    /// The hierarchy's mutex, which guards this entry's state.
    @usableFromInline
    func lockState() { link.hierarchy.mutex.lock() }

    @usableFromInline
    func unlockState() { link.hierarchy.mutex.unlock() }

    /// Drops the built instance; a build in flight finishes for its waiters but is not cached.
    func reset() {
        link.hierarchy.locked { resetLocked() }
    }

    private func resetLocked() {
        generation &+= 1
        let dropped = built
        built = nil
        hasBuilt = false
        build = nil
        withExtendedLifetime(dropped) {}
    }

    /// Resolves through `resolver`, building if needed.
    func resolve(through resolver: SynchronizedResolver) async throws -> Service {
        if let built = builtInstance() { return built }  // the common case: no task-local read
        let waiter = AsyncBuildContext.current
        let hierarchy = link.hierarchy
        let next: AsyncNext<Service> = hierarchy.locked {
            if hasBuilt, let built { return .done(built) }
            if isTransient {
                // Built inline, in the caller's task: a transient that is already being built
                // further up this same inline chain would recurse forever.
                if let repeated = waiter?.inlineChain.firstIndex(where: { $0.entry === self }), let waiter {
                    return .fail(cycle(Array(waiter.inlineChain[repeated...].reversed()).map(\.label) + [label]))
                }
                let node = AsyncBuildNode(entry: self, label: label, inlineParent: waiter)
                if let waiter { AsyncWaitGraph.add(from: waiter, to: node) }
                return .buildInline(node)
            }
            if let build {
                // Waiting on a build that waits, through others, on the waiter is a cycle. The
                // check and the new edge are made under one lock, so two builds cannot both wait.
                if let waiter, let path = AsyncWaitGraph.addUnlessCycle(from: waiter, to: build.node) {
                    return .fail(cycle(path.map(\.label) + [build.node.label]))
                }
                return .wait(build)
            }
            let node = AsyncBuildNode(entry: self, label: label, inlineParent: nil)
            let started = AsyncBuild<Service>(generation: generation, node: node)
            build = started
            let factory = self.factory
            Task {
                let outcome: Result<Service, any Error>
                do {
                    outcome = .success(
                        try await AsyncBuildContext.$current.withValue(node) { try await factory(resolver) })
                } catch {
                    outcome = .failure(error)
                }
                self.finish(started, with: outcome)
            }
            if let waiter { AsyncWaitGraph.add(from: waiter, to: node) }
            return .wait(started)
        }
        switch next {
        case .done(let instance):
            return instance
        case .fail(let error):
            throw error
        case .buildInline(let node):
            defer { if let waiter { AsyncWaitGraph.remove(from: waiter, to: node) } }
            do {
                return try await AsyncBuildContext.$current.withValue(node) { try await factory(resolver) }
            } catch let cancelled as CancellationError {
                throw cancelled  // the caller's own task was cancelled
            } catch {
                throw failure(error)
            }
        case .wait(let build):
            defer { if let waiter { AsyncWaitGraph.remove(from: waiter, to: build.node) } }
            return try await build.wait(in: hierarchy.mutex)
        }
    }

    private func finish(_ finished: AsyncBuild<Service>, with outcome: Result<Service, any Error>) {
        let result = outcome.mapError { failure($0) }
        let waiters: [CheckedContinuation<Service, any Error>] = link.hierarchy.locked {
            if build === finished { build = nil }
            if case .success(let instance) = result, finished.generation == generation {
                built = instance
                hasBuilt = true
            }
            return finished.complete(with: result)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The factory's error as the requests waiting for this service see it: a `ResolutionError`
    /// (a nested `require`, `resolveAsync` or cycle) with this service put first on its path, so
    /// each async factory it passes through adds itself and the outermost request sees the whole
    /// chain; anything else as `.factoryFailed` at this service.
    private func failure(_ error: any Error) -> ResolutionError {
        if let error = error as? ResolutionError { return error.prefixed(by: label) }
        return ResolutionError(
            .factoryFailed(error), path: [label],
            message: "Graft: resolution failed: the async factory of \(label) threw \(error)")
    }

    /// A request for this service that would close `cycle`: its path names this service, and the
    /// factories it passes through add themselves, as for any failure; the message names the cycle.
    private func cycle(_ cycle: [String]) -> ResolutionError {
        ResolutionError(
            .circularDependency, path: [label],
            message: "Graft: circular dependency among async services: \(cycle.joined(separator: " -> ")). "
                + "Each factory awaits the next.")
    }
}

/// The graph of which build waits for which, across every container hierarchy of the process (a
/// factory may wait on a service of another hierarchy: a captured container, a `withOverrides`
/// copy). Guarded by one process-wide mutex, taken after a hierarchy's mutex when both are held and
/// never held across an `await`: a check and the edge it allows are one step, whatever the
/// hierarchies involved.
enum AsyncWaitGraph {
    private static let mutex = RecursiveMutex()

    static func add(from waiter: AsyncBuildNode, to target: AsyncBuildNode) {
        mutex.withLock { waiter.waits.append(target) }
    }

    /// Adds the edge unless `target` already waits, through others, on `waiter`: then returns that
    /// path (the cycle the edge would close), from `target` to `waiter`.
    static func addUnlessCycle(from waiter: AsyncBuildNode, to target: AsyncBuildNode) -> [AsyncBuildNode]? {
        mutex.withLock {
            if let path = target.pathOfWaits(to: waiter) { return path }
            waiter.waits.append(target)
            return nil
        }
    }

    static func remove(from waiter: AsyncBuildNode, to target: AsyncBuildNode) {
        mutex.withLock { waiter.stopWaiting(on: target) }
    }
}

/// A build in progress, as a node of the graph of who waits for whom: a `.container` build (its
/// own task), or a transient built inline in its caller's task. A wait is an edge from the build
/// whose factory (or a task it started) waits, to the build waited for; a new edge is refused when
/// it would close a cycle.
final class AsyncBuildNode: @unchecked Sendable {  // `waits` is only touched under `AsyncWaitGraph`'s mutex
    let entry: AnyObject
    let label: String
    /// For a transient built inline: the build in whose factory it runs.
    let inlineParent: AsyncBuildNode?
    /// The builds this build is waiting for now (one entry per wait in progress).
    var waits: [AsyncBuildNode] = []

    init(entry: AnyObject, label: String, inlineParent: AsyncBuildNode?) {
        self.entry = entry
        self.label = label
        self.inlineParent = inlineParent
    }

    /// This node, then the builds it runs inline in, innermost first.
    var inlineChain: [AsyncBuildNode] {
        var chain: [AsyncBuildNode] = []
        var node: AsyncBuildNode? = self
        while let current = node {
            chain.append(current)
            node = current.inlineParent
        }
        return chain
    }

    func stopWaiting(on node: AsyncBuildNode) {
        if let index = waits.firstIndex(where: { $0 === node }) { waits.remove(at: index) }
    }

    /// The builds from this one to `target` following waits, both included; `nil` if none.
    func pathOfWaits(to target: AsyncBuildNode) -> [AsyncBuildNode]? {
        var visited = Set<ObjectIdentifier>()
        func search(_ node: AsyncBuildNode) -> [AsyncBuildNode]? {
            if node === target { return [node] }
            guard visited.insert(ObjectIdentifier(node)).inserted else { return nil }
            for next in node.waits {
                if let rest = search(next) { return [node] + rest }
            }
            return nil
        }
        return search(self)
    }
}

/// What cycle detection needs of an async entry, whatever its service type.
protocol AnyAsyncEntry: AnyObject, Sendable {
    var label: String { get }
    func reset()
    var isTransient: Bool { get }
    /// Registers the same factory and scope in `container` (for `withOverrides`); returns the
    /// copy's gate.
    func copy(into container: Container) -> AnyServiceEntry?
    /// The transient entry in the table that answers a synchronous `resolve`.
    var gate: AnyServiceEntry? { get }
}

extension AsyncServiceEntry {
    func copy(into container: Container) -> AnyServiceEntry? {
        container.registerAsync(Service.self, name: name, factory: factory)
            .inObjectScope(isTransient ? .transient : .container).gate
    }
}

/// What `resolve(through:)` does once it has looked, under the mutex.
private enum AsyncNext<Service: Sendable> {
    case done(Service)
    case fail(ResolutionError)
    case buildInline(AsyncBuildNode)
    case wait(AsyncBuild<Service>)
}

/// A build in flight and the continuations waiting for it.
final class AsyncBuild<Service: Sendable>: @unchecked Sendable {  // all state under the hierarchy's mutex
    let generation: Int
    let node: AsyncBuildNode
    private var waiters: [Int: CheckedContinuation<Service, any Error>] = [:]
    private var nextWaiter = 0
    private var result: Result<Service, ResolutionError>?

    init(generation: Int, node: AsyncBuildNode) {
        self.generation = generation
        self.node = node
    }

    /// The continuations waiting now; under the hierarchy's mutex.
    var waiterCount: Int { waiters.count }

    /// Records the result and hands back the waiters to resume (after unlocking).
    func complete(with outcome: Result<Service, ResolutionError>) -> [CheckedContinuation<Service, any Error>] {
        result = outcome
        let all = Array(waiters.values)
        waiters = [:]
        return all
    }

    /// Waits for the result; a cancelled waiter stops waiting, the build goes on.
    func wait(in mutex: RecursiveMutex) async throws -> Service {
        let id: Int = mutex.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Service, any Error>) in
                let immediate: Result<Service, any Error>? = mutex.withLock {
                    if let result { return result.mapError { $0 } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let cancelled = mutex.withLock { waiters.removeValue(forKey: id) }
            cancelled?.resume(throwing: CancellationError())
        }
    }
}

/// The build whose factory runs in this task (inherited by the child tasks and `Task {}` it makes,
/// so a wait there counts as the build's own: conservative, it may report a cycle through a task
/// the factory never awaits). `Task.detached` inherits nothing: a cycle closed through a detached
/// task is not seen, and waits forever (documented).
enum AsyncBuildContext {
    @TaskLocal static var current: AsyncBuildNode?
}

extension Container {
    /// Registers a service whose factory is `async` (opens a connection, reads a keychain), built
    /// by ``SynchronizedResolver/resolveAsync(_:name:)``; see ``AsyncServiceEntry``.
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { r in try await Database.connect(r.resolve(Config.self)!) }
    /// ```
    ///
    /// The synchronous `resolve` returns the instance once it is built, and otherwise `nil` with a
    /// message naming `resolveAsync`.
    @discardableResult
    public func registerAsync<Service: Sendable>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @Sendable (SynchronizedResolver) async throws -> Service
    ) -> AsyncServiceEntry<Service> {
        if let viewed {
            return registerThroughView(viewed, "registerAsync(\(Service.self).self)") {
                $0.registerAsync(serviceType, name: name, factory: factory)
            }
        }
        let entry = AsyncServiceEntry(name: name, container: self, factory: factory)
        let key = AsyncKey(service: ObjectIdentifier(Service.self), name: name)
        let replaced = hierarchy.uncheckedSection { asyncRegistrations.set(entry, for: key) }
        let label = entry.label
        let call = resolutionCall("resolveAsync", Service.self, name: name)
        entry.gate = register(serviceType, name: name) { (_: Resolver) throws -> Service in
            guard let built = entry.builtInstance() else { throw AsyncServiceNotBuilt(service: label, call: call) }
            return built
        }.inObjectScope(.transient)
        withExtendedLifetime(replaced) {}  // released once this container is consistent
        return entry
    }

    /// The async registration of `Service` under `name`, here or in the nearest ancestor.
    func asyncEntry<Service>(_ serviceType: Service.Type, name: String?) -> AsyncServiceEntry<Service>? {
        asyncEntryObject(ObjectIdentifier(Service.self), name: name) as? AsyncServiceEntry<Service>
    }

    /// The async registration under `service` and `name`, here or in the nearest ancestor, untyped
    /// (non-generic, so the lookup needs no metadata).
    @usableFromInline
    final func asyncEntryObject(_ service: ObjectIdentifier, name: String?) -> AnyObject? {
        hierarchy.locked { asyncEntryObjectLocked(service, name: name) }
    }

    /// ``asyncEntryObject(_:name:)`` with the hierarchy's mutex already held.
    @usableFromInline
    final func asyncEntryObjectLocked(_ service: ObjectIdentifier, name: String?) -> AnyObject? {
        // This container's own registrations first, read in place (a copy of the registry would
        // retain and release its arrays on every call).
        if let entry = (viewed ?? self).asyncRegistrations.entry(service: service, name: name) { return entry }
        var level = (viewed ?? self).parent  // never a view: a view as parent stands for its container
        while let container = level {
            if let entry = container.asyncRegistrations.entry(service: service, name: name) { return entry }
            level = container.parent
        }
        return nil
    }

    /// The hierarchy's mutex, which guards the async registrations and their entries' state.
    @usableFromInline
    final func lockAsyncRegistrations() { hierarchy.mutex.lock() }

    @usableFromInline
    final func unlockAsyncRegistrations() { hierarchy.mutex.unlock() }
}

/// `resolve(Database.self, name: "main")`: a call to show in a message.
func resolutionCall(_ method: String, _ type: Any.Type, name: String?) -> String {
    "\(method)(\(type).self" + (name.map { ", name: \"\($0)\")" } ?? ")")
}

/// The key of an async registration.
struct AsyncKey: Hashable {
    let service: ObjectIdentifier
    let name: String?
}

/// A container's async registrations. An application has a handful, so up to
/// `AsyncRegistry.linearLimit` of them are found by comparing type identities in an array (a
/// `Dictionary` lookup hashes the key with SipHash first, several times the cost); beyond that a
/// dictionary indexes the array.
struct AsyncRegistry {
    static let linearLimit = 16
    private var keys: [AsyncKey] = []
    private(set) var values: [AnyAsyncEntry] = []
    /// Positions in `keys`, once there are more than `linearLimit` of them.
    private var positions: [AsyncKey: Int]?

    /// Each registration with its key, in the order registered.
    var pairs: Zip2Sequence<[AsyncKey], [AnyAsyncEntry]> { zip(keys, values) }

    func position(of key: AsyncKey) -> Int? {
        if let positions { return positions[key] }
        for index in keys.indices where keys[index].service == key.service && keys[index].name == key.name {
            return index
        }
        return nil
    }

    /// The entry registered for `service` under `name`, if any. The linear search is written out
    /// here rather than shared with ``position(of:)``: through the shared function, the registry's
    /// arrays were retained and released on every `resolveAsync` (measured: +30% on a built
    /// singleton).
    @inline(__always)
    func entry(service: ObjectIdentifier, name: String?) -> AnyAsyncEntry? {
        if positions == nil {
            for index in keys.indices where keys[index].service == service && keys[index].name == name {
                return values[index]
            }
            return nil
        }
        return position(of: AsyncKey(service: service, name: name)).map { values[$0] }
    }

    /// Adds `entry` under `key`, or replaces the entry there; returns the one replaced.
    @discardableResult
    mutating func set(_ entry: AnyAsyncEntry, for key: AsyncKey) -> AnyAsyncEntry? {
        if let index = position(of: key) {
            let replaced = values[index]
            values[index] = entry
            return replaced
        }
        keys.append(key)
        values.append(entry)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearLimit {
            positions = Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
        }
        return nil
    }
}

/// A synchronous resolution of an async service not built yet.
struct AsyncServiceNotBuilt: Error, CustomStringConvertible, GateRefusal {
    let service: String
    /// The call that builds it, `resolveAsync(Database.self)`.
    let call: String
    var description: String {
        "\(service) is registered with registerAsync and has not been built yet: resolve it with "
            + "`try await resolver.\(call)`, which builds it (a synchronous resolve returns it once built)."
    }
    var reason: ResolutionError.Reason { .factoryFailed(self) }
}

extension Container {
    /// What `resolveAsync` says when it finds no async registration: the synchronous one it may
    /// have meant, and how to reach it.
    func synchronousRegistrationHint<Service>(_ serviceType: Service.Type, name: String?) -> String {
        hierarchy.locked {
            let container = viewed ?? self
            let label = serviceLabel(Service.self, name: name)
            let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
            let isMain = container.selfAndAncestors.contains { level in
                level.mainActorRegistrations.contains {
                    $0.serviceType == ObjectIdentifier(Service.self) && $0.isolated.name == name
                }
            }
            if isMain {
                return "\(label) is registered with registerMain: resolve it with "
                    + "`\(resolutionCall("resolveMain", Service.self, name: name))` on the main actor."
            }
            if container.slot(for: key) != nil {
                return "\(label) is registered with register, synchronously: resolve it with "
                    + "`\(resolutionCall("resolve", Service.self, name: name))` (or `require`), or register it "
                    + "with registerAsync."
            }
            return "Register it with registerAsync to build it with resolveAsync."
        }
    }
}

extension SynchronizedResolver {
    /// Resolves a service registered with ``Container/registerAsync(_:name:factory:)``, awaiting its
    /// build; a `.container` service is built once however many tasks ask at the same time.
    ///
    /// ```swift
    /// let database = try await resolver.resolveAsync(Database.self)
    /// ```
    ///
    /// - Throws: ``ResolutionError`` (not registered, the factory threw, a cycle among async
    ///   factories), or `CancellationError` when the calling task is cancelled while waiting.
    ///
    /// Inlinable: a service already built is read in the caller, specialized, with no suspension
    /// and no runtime metadata lookup; the rest of the path is out of line.
    @inlinable
    public func resolveAsync<Service: Sendable>(
        _ serviceType: Service.Type, name: String? = nil
    ) async throws -> Service {
        // One lock round trip: the entries of this hierarchy and their state share its mutex.
        lockAsyncRegistrations()
        if let entry = asyncEntryObjectLocked(ObjectIdentifier(Service.self), name: name) {
            // The key includes `Service`: the entry registered under it is an `AsyncServiceEntry<Service>`
            // (checked in debug builds by `unsafeDowncast`).
            let typed = unsafeDowncast(entry, to: AsyncServiceEntry<Service>.self)
            if typed.hasBuilt, let built = typed.built {
                unlockAsyncRegistrations()
                return built
            }
        }
        unlockAsyncRegistrations()
        return try await resolveAsyncBuilding(serviceType, name: name)
    }

    /// `resolveAsync` when the service is not built yet, or not registered.
    @usableFromInline
    func resolveAsyncBuilding<Service: Sendable>(
        _ serviceType: Service.Type, name: String?
    ) async throws -> Service {
        guard let entry = asyncEntry(serviceType, name: name) else {
            let label = serviceLabel(Service.self, name: name)
            throw ResolutionError(
                .notRegistered, path: [label],  // the async factories it passes through add themselves
                message: "Graft: resolution failed: no async registration of \(label) (registerAsync). "
                    + synchronousRegistrationHint(serviceType, name: name))
        }
        return try await entry.resolve(through: self)
    }
}
