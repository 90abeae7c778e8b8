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
    fileprivate(set) var isTransient = false
    /// The instance built, if any (`.some(nil)` for an optional service built as `nil`).
    // Read by the inlinable `resolveAsync` in other modules, where every access to a class's
    // stored property would otherwise be checked dynamically for exclusivity (a large share of
    // that path). Guarded by the hierarchy's mutex like the rest, and no user code runs inside a store
    // to it (a dropped instance is released after); debug builds keep the checks.
    #if !DEBUG  // debug builds keep the dynamic exclusivity checks: the invariant check on every access
        @exclusivity(unchecked)
    #endif
    @usableFromInline private(set) var built: Service?
    /// How many instances its factory returned (for `Container.registrations`; the resolutions
    /// are counted by its entry in the table). Guarded by the mutex like the rest.
    private(set) var instanceCount = 0
    /// The `.container` build in flight. A reset or a change of scope lets it go: a build that is
    /// no longer this one keeps its result for its own waiters but caches nothing.
    private var build: AsyncBuild<Service>?
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
        link.hierarchy.withLock {
            isTransient = objectScope === ObjectScope.transient
            resetLocked()
        }
        return self
    }

    /// The scope: `.container` or `.transient`.
    var scope: ObjectScope { link.hierarchy.withLock { isTransient ? .transient : .container } }

    /// The callers waiting for the build in flight (for tests to know when a wait has begun).
    var inFlightWaiterCount: Int { link.hierarchy.withLock { build?.waiters.count ?? 0 } }

    /// Drops the built instance; a build in flight finishes for its waiters but is not cached.
    func reset() { link.hierarchy.withLock { resetLocked() } }

    private func resetLocked() { withExtendedLifetime(exchange(&built, nil)) { build = nil } }

    /// Resolves through `resolver`, building if needed.
    func resolve(through resolver: SynchronizedResolver) async throws -> Service {
        // The common case: no task-local read.
        if let built = link.hierarchy.mutex.withLock({ built }) { return built }
        let waiter = AsyncBuildContext.current
        let next: AsyncNext<Service> = link.hierarchy.withLock {
            if let built { return .answer(.success(built)) }
            if isTransient {
                // Built inline, in the caller's task: a transient that is already being built
                // further up this same inline chain would recurse forever.
                if let repeated = waiter?.inlineChain.firstIndex(where: { $0.entry === self }), let waiter {
                    return .answer(.failure(cycle(waiter.inlineChain[repeated...].reversed().map(\.label) + [label])))
                }
                let node = AsyncBuildNode(entry: self, label: label, inlineParent: waiter)
                waiter?.addWait(for: node)
                return .buildInline(node)
            }
            if let build {
                // Waiting on a build that waits, through others, on the waiter is a cycle. The
                // check and the new edge are made under one lock, so two builds cannot both wait.
                if let path = waiter?.addWait(for: build) {
                    return .answer(.failure(cycle(path.map(\.label) + [build.label])))
                }
                return .wait(build)
            }
            let started = AsyncBuild<Service>(entry: self, label: label)
            build = started
            // The instance is kept: its wrappers must not keep the container (see `constructKept`).
            let bound = WrapperLinks.bindingWhileKeeping(in: link.hierarchy, by: link) ?? ResolverBinding.bound
            Task {
                do {
                    let made = try await ResolverBinding.$bound.withValue(bound) {
                        try await AsyncBuildContext.$current.withValue(started) { try await self.factory(resolver) }
                    }
                    self.finish(started, with: .success(made))
                } catch {
                    self.finish(started, with: .failure(self.failure(error)))
                }
            }
            waiter?.addWait(for: started)
            return .wait(started)
        }
        switch next {
        case .answer(let result):
            return try result.get()
        case .buildInline(let node):
            defer { waiter?.removeWait(for: node) }
            do {
                let made = try await AsyncBuildContext.$current.withValue(node) { try await factory(resolver) }
                link.hierarchy.withLock { instanceCount &+= 1 }
                return made
            } catch {
                throw error is CancellationError ? error : failure(error)  // a cancellation is the caller's own
            }
        case .wait(let build):
            defer { waiter?.removeWait(for: build) }
            return try await build.wait(in: link.hierarchy.mutex)
        }
    }

    // MARK: What the table entry needs of it (``AnyAsyncEntry``, which documents each)

    var builtValue: Any? { link.hierarchy.mutex.withLock { built } }

    func resolve<Requested: Sendable>(
        as requested: Requested.Type, forwardedName name: String?, through resolver: SynchronizedResolver
    ) async throws -> Requested {
        let instance = try await resolve(through: resolver)
        if let forwarded = instance as? Requested { return forwarded }
        throw ResolutionError(
            .wrongType, path: [serviceLabel(Requested.self, name: name)],
            message: "Graft: resolution failed: \(Service.self) is forwarded to \(Requested.self), but the instance "
                + "its async factory made, of type \(type(of: instance)), is not a \(Requested.self).")
    }

    func setScope(_ scope: ObjectScopeProtocol) {
        guard let scope = scope as? ObjectScope else {
            stop("Graft: \(label) is an async service, in the .container or the .transient scope, not a custom one")
        }
        inObjectScope(scope)
    }

    func copy(into container: Container) -> AnyServiceEntry {
        let copy = AsyncServiceEntry(name: name, container: container, factory: factory)
        copy.isTransient = link.hierarchy.withLock { isTransient }
        return container.makeAsyncEntry(for: copy)
    }

    private func finish(_ finished: AsyncBuild<Service>, with result: Result<Service, ResolutionError>) {
        let waiters: [CheckedContinuation<Service, any Error>] = link.hierarchy.withLock {
            if case .success = result { instanceCount &+= 1 }
            if case .success(let instance) = result, build === finished { built = instance }
            if build === finished { build = nil }
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

/// What the table entry of an async registration needs of it, whatever its service type.
protocol AnyAsyncEntry: AnyObject, Sendable {
    var label: String { get }
    /// `.container` or `.transient`.
    var scope: ObjectScope { get }
    /// Sets the scope; stops with a message for any other.
    func setScope(_ scope: ObjectScopeProtocol)
    /// Under the mutex: instances its factory made.
    var instanceCount: Int { get }
    /// The instance built, if any, read under the hierarchy's mutex (a build finishes on another
    /// thread): what a synchronous `resolve` of its entry answers with.
    var builtValue: Any? { get }
    /// Drops the built instance (a reset of `.container`).
    func reset()
    /// The same factory and scope, as a registration of `container`: its entry, not in a table yet
    /// (for `withOverrides`).
    func copy(into container: Container) -> AnyServiceEntry
    /// Resolves through `resolver`, building if needed, for its service type or a type the
    /// registration is forwarded to: the instance as `Requested`, or a `.wrongType` failure if it
    /// is not one.
    func resolve<Requested: Sendable>(
        as requested: Requested.Type, forwardedName name: String?, through resolver: SynchronizedResolver
    ) async throws -> Requested
}

/// What `resolve(through:)` does once it has looked, under the mutex.
private enum AsyncNext<Service: Sendable> {
    case answer(Result<Service, ResolutionError>)
    case buildInline(AsyncBuildNode)
    case wait(AsyncBuild<Service>)
}
