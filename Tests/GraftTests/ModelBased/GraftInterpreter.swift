// Runs a model-based-testing program on a container with Swinject 2.10's API and records what
// each step observes, in the form `ReferenceModel` predicts.
//
// The same source runs on Graft (the default) and, compiled with `-D INTERPRET_SWINJECT`, on
// Swinject 2.10 (Differential/ links it there). It uses Graft's public API only.

#if INTERPRET_SWINJECT
    import Swinject
#else
    import Graft
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if MODEL_CORE_MODULE
    import ModelCore
#endif

protocol ModelP: AnyObject {}
protocol ModelQ: AnyObject {}

/// What an instance holds: each dependency its factory resolved, then each `initCompleted` result.
/// A `Lazy` or `Provider` is kept with a closure that reads it (and the wrapper itself, for `dump`).
enum InterpreterField {
    case none
    case object(ModelNodeObject)
    case lazy(AnyObject, () -> ModelNodeObject?)
    case provider(AnyObject, () -> ModelNodeObject?)
    case injected(InjectedHolder)
    case graph(GraphIdentifier)
    /// What `resolveAll` or `requireAll` returned.
    case collection([ModelNodeObject])
    /// `requireAll` threw `error`: the failure of the element of this name (`collectionElementName`).
    case failure(String, any Error)
}

/// Counts the live model instances of one interpreter.
final class LiveCounter {
    var count = 0
}

class ModelNodeObject {
    let serial: Int
    var fields: [InterpreterField]
    /// The registration that made it (`MRegistration.tag`), which a collection's elements show.
    let tag: String
    private let live: LiveCounter
    private let onDeinit: (() -> Void)?

    init(serial: Int, fields: [InterpreterField], tag: String, live: LiveCounter, onDeinit: (() -> Void)?) {
        self.serial = serial
        self.fields = fields
        self.tag = tag
        self.live = live
        self.onDeinit = onDeinit
        live.count += 1
    }

    deinit {
        live.count -= 1
        onDeinit?()
    }
}

/// An object with an `@Injected` or `@MainInjected` property (made by a `makeInjected` or
/// `makeMainInjected` step).
class InjectedHolder {
    func read() -> ModelNodeObject? { nil }
    var isMain: Bool { false }
}

#if !INTERPRET_SWINJECT
    final class InjectedHandle<T>: InjectedHolder {
        @Injected var service: T?

        init(name: String?) {
            _service = Injected(name: name)
        }

        override func read() -> ModelNodeObject? {
            service.flatMap { $0 as AnyObject as? ModelNodeObject }
        }
    }

    @MainActor final class MainInjectedObject<T> {
        @MainInjected var service: T?

        init(name: String?) {
            _service = MainInjected(name: name)
        }
    }

    /// Made and read on the main actor only: programs with `@MainInjected` run there
    /// (`ProgramFeatures.mainActor`), and the model never reads one on another thread.
    final class MainInjectedHandle<T>: InjectedHolder {
        let object: MainInjectedObject<T>
        override var isMain: Bool { true }

        init(name: String?) {
            object = MainActor.assumeIsolated { MainInjectedObject<T>(name: name) }
        }

        override func read() -> ModelNodeObject? {
            // Safe: on the main actor (`assumeIsolated` checks it), and the closure runs
            // synchronously on this thread: the value crosses into it and back on this one thread.
            let object = object
            nonisolated(unsafe) var read: ModelNodeObject?
            MainActor.assumeIsolated { read = object.service.flatMap { $0 as AnyObject as? ModelNodeObject } }
            return read
        }
    }
#endif

/// Where `dump` writes: nowhere (the text is built, then dropped).
struct DiscardingStream: TextOutputStream {
    var characters = 0
    mutating func write(_ string: String) { characters &+= string.utf8.count }
}

final class ModelA: ModelNodeObject, ModelP {}
final class ModelB: ModelNodeObject, ModelP {}
final class ModelC: ModelNodeObject, ModelQ {}
final class ModelD: ModelNodeObject, ModelP, ModelQ {}
/// Resolved by `deinit`s: transient, with a graph-scoped part.
final class ModelProbe {
    let part: ModelProbePart?
    init(part: ModelProbePart?) { self.part = part }
}
final class ModelProbePart {}

/// The one reference a program keeps to a child container that its own factory drops.
final class ChildBox { var child: Container? }
/// Registered by `deinit`s under fresh names.
final class ModelScratch {}
/// Registered with `registerAsync` (never built: the programs are synchronous).
final class ModelAsyncService: Sendable {}

/// Calls `visit` with the Swift type an `MType` stands for.
protocol ModelTypeVisitor {
    associatedtype Result
    func visit<T>(_ type: T.Type) -> Result
}

func withModelType<V: ModelTypeVisitor>(_ type: MType, _ visitor: V) -> V.Result {
    switch type {
    case .cls(.a): return visitor.visit(ModelA.self)
    case .cls(.b): return visitor.visit(ModelB.self)
    case .cls(.c): return visitor.visit(ModelC.self)
    case .cls(.d): return visitor.visit(ModelD.self)
    case .proto(.p): return visitor.visit((any ModelP).self)
    case .proto(.q): return visitor.visit((any ModelQ).self)
    case .asyncService: return visitor.visit(ModelAsyncService.self)
    }
}

func modelMetatype(_ type: MType) -> Any.Type {
    struct Meta: ModelTypeVisitor {
        func visit<T>(_ type: T.Type) -> Any.Type { type }
    }
    return withModelType(type, Meta())
}

struct ModelImplements<T>: ModelTypeVisitor {
    let entry: ServiceEntry<T>
    let name: String?
    func visit<F>(_ type: F.Type) {
        entry.implements(type, name: name)
    }
}

#if !INTERPRET_SWINJECT
    /// The interpreter, for the logging function of ``ContainerInterpreter/run(_:registeringAgainOnLog:betweenCalls:observeRoot:)``:
    /// `@unchecked Sendable` because that function is bound to the task running the program and
    /// called only from it, on its thread.
    private struct LoggingTarget: @unchecked Sendable {
        let interpreter: ContainerInterpreter
        init(_ interpreter: ContainerInterpreter) { self.interpreter = interpreter }
    }

    /// The name a `deinit` asks `ModelProbe` under, which nothing registers: every such `resolve`
    /// is a miss, which Graft logs once, whatever call the `deinit` runs inside.
    let unregisteredProbeName = "never registered"
#endif

public final class ContainerInterpreter {
    /// `nil` once the program dropped its reference (`freeContainer`).
    private var containers: [Container?] = []
    private var slots: [InterpreterField] = []
    private var forwarders: [(MForward) -> Void] = []
    private var graphs: [GraphIdentifier] = []
    private var nextSerial = 0
    private var scratchCount = 0
    private let live = LiveCounter()
    /// What `deinit` actions read during the current step, observed after the step's own.
    private var deinitLog: [RawObservation] = []
    private var deinitActionRunning = false
    #if !INTERPRET_SWINJECT
        /// The misses a `.resolveProbe` `deinit` made on the program's thread during the current
        /// step, and the messages logged for them (counted by the logging function bound there).
        private var probeMisses = 0
        /// Whether `.resolveProbe` `deinit`s also make a miss, and each step checks it was logged.
        private var checksProbeMisses = false
        private let probeMissesLogged = LoggedMisses()
        /// Messages the logging function got while the hierarchy was busy, in the current step.
        private var messagesWhileBusy = 0
        /// Factories' `require`s in the current step that threw "not registered" for a key their
        /// resolver lists (``wrongReasonPrefix``).
        private var wrongReasons: [String] = []
        private var isBusy: ((Container) -> Bool)?
        private let programThread = pthread_self()
    #endif
    private var slotsAtStepStart = 0
    /// See ``run(_:registeringAgainOnLog:betweenCalls:observeRoot:)``.
    private var betweenCalls: ((Container) -> String?)?
    /// What the current `access` step reads (for `deinit`s that read it too).
    private var readThisStep: InterpreterField?
    /// The interpreter is inside `register`, `registerMain` or `registerAsync`: a behavior told now
    /// is told about a registration, not a forward.
    fileprivate var registering = false
    #if !INTERPRET_SWINJECT
        /// The copies behaviors kept (`MStep.addBehavior`), in order.
        fileprivate var copies: [SynchronizedResolver] = []
    #endif
    private let permanentScope = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")
    #if INTERPRET_SWINJECT
        private let graphStorageScope = ObjectScope(storageFactory: GraphStorage.init, description: "graphStorage")
    #else
        /// `GraphStorage`, checking that each graph ends once its requests are done (see
        /// `GraphEndCheckingStorage`).
        private lazy var graphStorageScope = ObjectScope(
            storageFactory: { [unowned self] in
                GraphEndCheckingStorage { [unowned self] graph in
                    guard self.graphsOfRunningFactories.contains(graph) else { return }
                    self.deinitLog.append(
                        .invalid("a custom storage was told its graph ended while a factory of it ran"))
                }
            }, description: "graphStorage")
        /// The graph of each factory running, innermost last.
        private var graphsOfRunningFactories: [GraphIdentifier] = []
        /// The registration each key of each container holds now (``key(of:)``), for
        /// ``registerAgainOnLog()``.
        private var registrationByKey: [String: MRegistration] = [:]
        /// The registration of each of `forwarders`.
        private var forwarded: [MRegistration] = []
        private var registrationsAgain = 0
    #endif
    #if INTERPRET_SWINJECT
        /// Swinject stops the process at 200 levels; the interpreter stops resolving well before.
        private var depth = 0
        private(set) var aborted = false
        /// Off: Swinject itself crashes on them (see `make`).
        static let swinjectDeinitActions = false
    #endif

    init(parents: [Int], childrenOfViews: Bool) {
        for parent in parents {
            if parent < 0 {
                containers.append(Container())
            } else {
                #if INTERPRET_SWINJECT
                    containers.append(Container(parent: containers[parent]))
                #else
                    let parentContainer = containers[parent]!
                    containers.append(
                        Container(parent: childrenOfViews ? parentContainer.synchronize() : parentContainer))
                #endif
            }
        }
        let root = containers[0]!
        root.register(ModelProbe.self) { r in ModelProbe(part: r.resolve(ModelProbePart.self)) }
            .inObjectScope(.transient)
        #if !INTERPRET_SWINJECT
            root.register(ModelProbe.self, name: failingProbeName) { _ throws -> ModelProbe in throw ProbeFailure() }
        #endif
        root.register(ModelProbePart.self) { _ in ModelProbePart() }
    }

    /// Runs `program` and returns its trace; `abortedAt` is the step at which a Swinject run was
    /// cut short because it recursed (Swinject itself would stop the process there).
    /// `observeRoot` is handed the root container before the first step, and a count of the
    /// program's instances alive: the caller may keep a weak reference to what the root shares,
    /// and check that it is freed once `run` returns and no instance is alive (an instance that a
    /// program's own cycle keeps alive may keep a `Lazy`, and through it the hierarchy).
    ///
    /// With `registeringAgainOnLog` (Graft only), a logging function registers one of the
    /// program's registrations again on each message (``registerAgainOnLog()``), in the container
    /// it was registered in: a logging function may change registrations, whatever Graft is doing
    /// when it logs. The trace is then not the model's; what is left to check is that Graft
    /// survives it (no debug-build check stops) and frees what the program dropped.
    ///
    /// `betweenCalls` is asked, between two calls of a `withObjectGraph` body, what is wrong with
    /// the container's state, if anything (the test target reads what the public API does not
    /// show); what it says is an `invalid` observation of the step. `isBusy` is asked, as the
    /// logging function is told of a message on the program's thread, whether the root's
    /// hierarchy is busy there (a request in flight, a call around it, its mutex held), other than
    /// on purpose (`validate()`); `true` is an `invalid` observation of the step.
    public static func run(
        _ program: MProgram, registeringAgainOnLog: Bool = false,
        betweenCalls: ((Container) -> String?)? = nil, isBusy: ((Container) -> Bool)? = nil,
        observeRoot: (Container, _ liveInstances: @escaping () -> Int) -> Void = { _, _ in }
    ) -> (trace: Trace, abortedAt: Int?) {
        let interpreter = ContainerInterpreter(parents: program.parents, childrenOfViews: program.childrenOfViews)
        interpreter.betweenCalls = betweenCalls
        #if !INTERPRET_SWINJECT
            interpreter.isBusy = isBusy
        #endif
        let live = interpreter.live
        observeRoot(interpreter.containers[0]!) { live.count }
        #if !INTERPRET_SWINJECT
            if registeringAgainOnLog {
                let target = LoggingTarget(interpreter)
                let registerAgain: @Sendable (String) -> Void = { _ in target.interpreter.registerAgainOnLog() }
                return Container.withLoggingFunction(registerAgain) { interpreter.perform(program.steps) }
            }
            // On unless `GRAFT_MODEL_LOGS=0` (scripts/asan.sh sets it for its 5,000 programs).
            guard getenv("GRAFT_MODEL_LOGS").map({ String(cString: $0) }) != "0" else {
                return interpreter.perform(program.steps)
            }
            let logged = interpreter.probeMissesLogged
            interpreter.checksProbeMisses = true
            let target = LoggingTarget(interpreter)
            let countMisses: @Sendable (String) -> Void = { message in
                if message.contains(unregisteredProbeName) { logged.add() } else { target.interpreter.missOnLog() }
                target.interpreter.checkIdleOnLog()
            }
            return Container.withLoggingFunction(countMisses) { interpreter.perform(program.steps) }
        #else
            return interpreter.perform(program.steps)
        #endif
    }

    /// With `checksProbeMisses`, a step in which a `deinit`'s miss was not logged once adds an
    /// `invalid` observation, which no model trace has.
    private func perform(_ steps: [MStep]) -> (trace: Trace, abortedAt: Int?) {
        var raw: [[RawObservation]] = []
        for (index, step) in steps.enumerated() {
            slotsAtStepStart = slots.count
            var observed = perform(step)
            #if !INTERPRET_SWINJECT
                let logged = probeMissesLogged.take()
                if checksProbeMisses && logged != probeMisses {
                    observed.append(.invalid("deinits' misses: \(probeMisses), logged \(logged)"))
                }
                probeMisses = 0
                observed += wrongReasons.map { .invalid($0) }
                wrongReasons = []
                if messagesWhileBusy > 0 {
                    observed.append(.invalid("messages delivered while the hierarchy was busy: \(messagesWhileBusy)"))
                    messagesWhileBusy = 0
                }
            #endif
            raw.append(observed + deinitLog)
            deinitLog = []
            readThisStep = nil
            #if INTERPRET_SWINJECT
                if aborted { return (normalize(raw), index) }
            #endif
            _ = index
        }
        return (normalize(raw), nil)
    }

    #if !INTERPRET_SWINJECT
        /// Registers again what a key holds now, chosen so that the program keeps running: only a
        /// transient registration, whose entry alone changes (a scope that keeps instances would
        /// make its instance again, a graph's in the graph in flight too), and one without
        /// forwards of its own (registered again, they could replace a later registration of the
        /// forwarded type). What the program observes may still differ from its run without this
        /// function: a later forward step on the entry replaced does nothing, the new entry's
        /// counts start at 0, and a behavior is told of each registration.
        /// The logging function, told of any message but a probe's miss, makes a probe miss of its
        /// own on the program's thread: user code Graft runs while it logs, whose miss is logged
        /// once, whatever call is in flight.
        fileprivate func missOnLog() {
            guard pthread_equal(pthread_self(), programThread) != 0, let root = containers[0] else { return }
            probeMisses += 1
            _ = root.resolve(ModelProbe.self, name: unregisteredProbeName)
        }

        /// Told of any message on the program's thread, the logging function checks that the
        /// hierarchy is idle: under its mutex it would run user code holding a lock, and inside a
        /// request what it resolves would join that request.
        fileprivate func checkIdleOnLog() {
            guard pthread_equal(pthread_self(), programThread) != 0, let root = containers[0], let isBusy
            else { return }
            if isBusy(root) { messagesWhileBusy += 1 }
        }

        private func registerAgainOnLog() {
            let candidates = registrationByKey.filter { $0.value.scope == .transient && $0.value.forwards.isEmpty }
                .sorted { $0.key < $1.key }
            guard !candidates.isEmpty else { return }
            let registration = candidates[registrationsAgain % candidates.count].value
            registrationsAgain += 1
            if let container = containers[registration.container] { _ = register(registration, into: container) }
        }

        /// A registration's key in ``registrationByKey``, with the name as Graft compares it (the
        /// two spellings of "café" are one key).
        private static func key(container: Int, service: MType, name: MName?, args: MArgs) -> String {
            "\(container) \(service) \(name?.string ?? "-") \(args)"
        }

        private static func key(of registration: MRegistration) -> String {
            key(
                container: registration.container, service: registration.service, name: registration.name,
                args: registration.args)
        }

        /// `forward` of `registration` replaced what its key held.
        private func forgetForward(_ forward: MForward, of registration: MRegistration) {
            registrationByKey[
                Self.key(
                    container: registration.container, service: forward.type, name: forward.name,
                    args: registration.args)
            ] = nil
        }

        private func forgetRegistrations(of container: Int) {
            registrationByKey = registrationByKey.filter { $0.value.container != container }
        }
    #endif

    // MARK: Steps

    /// Sends Graft's log messages nowhere, but has them built (each failed resolution describes
    /// what exists nearby). Process-wide: for the processes that run only these programs.
    public static func discardLogMessages() {
        #if !INTERPRET_SWINJECT
            Container.loggingFunction = { _ in }
        #endif
    }

    func perform(_ step: MStep) -> [RawObservation] {
        switch step {
        case .register(let registration):
            guard let container = containers[registration.container] else { return [.invalid("freed container")] }
            forwarders.append(register(registration, into: container))
            #if !INTERPRET_SWINJECT
                forwarded.append(registration)
            #endif
            return []

        case .forward(let registration, let forward):
            guard !forwarders.isEmpty else { return [.invalid("no registration")] }
            forwarders[registration % forwarders.count](forward)
            #if !INTERPRET_SWINJECT
                forgetForward(forward, of: forwarded[registration % forwarders.count])
            #endif
            return []

        case .resolve(let container, let request):
            guard let container = containers[container] else { return [.invalid("freed container")] }
            let value = self.request(request, container)
            slots.append(value)
            return observe(value)

        case .resolveThroughView(let container, let request):
            guard let container = containers[container] else { return [.invalid("freed container")] }
            let value = self.request(request, container.synchronize())
            slots.append(value)
            return observe(value)

        case .withObjectGraph(let container, let slot, let field, let requests):
            guard let container = containers[container] else { return [.invalid("freed container")] }
            guard !slots.isEmpty, case .object(let holder) = slots[slot % slots.count] else {
                return [.invalid("no instance in the slot")]
            }
            let held = holder.fields.compactMap { field -> GraphIdentifier? in
                if case .graph(let graph) = field { return graph }
                return nil
            }
            guard !held.isEmpty else { return [.invalid("no graph identifier held")] }
            let graph = held[field % held.count]
            return container.withObjectGraph(graph) { c in
                var observed: [RawObservation] = []
                for request in requests {
                    let value = self.request(request, c)
                    slots.append(value)
                    observed += observe(value)
                    if let wrong = betweenCalls?(c) { observed.append(.invalid(wrong)) }
                }
                return observed
            }

        case .access(let slot, let field):
            guard !slots.isEmpty else { return [.invalid("no slot")] }
            var target = slots[slot % slots.count]
            if let field {
                guard case .object(let holder) = target, !holder.fields.isEmpty else {
                    return [.invalid("no instance with fields in the slot")]
                }
                target = holder.fields[field % holder.fields.count]
            }
            readThisStep = target
            guard let made = Self.read(target) else { return [.invalid("not a Lazy, Provider or @Injected")] }
            let value: InterpreterField = made.map { .object($0) } ?? .none
            slots.append(value)
            return observe(value)

        case .readRecent(let back, let offMain):
            guard slots.count - 1 - back >= 0 else { return [.invalid("no slot")] }
            let target = slots[slots.count - 1 - back]
            readThisStep = target
            let made: ModelNodeObject??
            if offMain {
                #if INTERPRET_SWINJECT
                    return [.invalid("reads on another thread are Graft's")]
                #else
                    made = onAnotherThread { Self.read(target) }
                #endif
            } else {
                made = Self.read(target)
            }
            guard let made else { return [.invalid("not a Lazy, Provider or @Injected")] }
            let value: InterpreterField = made.map { .object($0) } ?? .none
            slots.append(value)
            return observe(value)

        case .release(let slot):
            guard !slots.isEmpty else { return [.invalid("no slot")] }
            // Moved out first: the `deinit`s it runs may read `slots`.
            let dropped = slots[slot % slots.count]
            slots[slot % slots.count] = .none
            withExtendedLifetime(dropped) {}
            return []

        case .reset(let container, let scope, let service):
            guard let container = containers[container] else { return [.invalid("freed container")] }
            let object: ObjectScope
            switch scope.identity {
            case .transient: object = .transient
            case .container: object = .container
            case .weak: object = .weak
            case .customPermanent: object = permanentScope
            case .customGraph: object = graphStorageScope
            case .graph, .unspecified: object = .graph
            }
            if let service {
                container.resetObjectScope(object, serviceType: modelMetatype(service))
            } else {
                container.resetObjectScope(object)
            }
            return []

        case .removeAll(let container):
            guard let emptied = containers[container] else { return [.invalid("freed container")] }
            emptied.removeAll()
            #if !INTERPRET_SWINJECT
                forgetRegistrations(of: container)
            #endif
            return []

        case .resolveOffMain(let container, let request):
            #if INTERPRET_SWINJECT
                _ = (container, request)
                return [.invalid("main-actor services are Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                let view = container.synchronize()
                let value = onAnotherThread { self.request(request, view) }
                slots.append(value)
                return observe(value)
            #endif

        case .resolveInOverrides(let container, let override, let request):
            #if INTERPRET_SWINJECT
                _ = (container, override, request)
                return [.invalid("withOverrides is Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                let value = withResolver(container.synchronize()) {
                    withOverrides({ copy in if let override { _ = self.register(override, into: copy) } }) {
                        self.request(request, SynchronizedResolver.current)
                    }
                }
                slots.append(value)
                return observe(value)
            #endif

        case .freeContainer(let index):
            // Moved out first: the `deinit`s it runs may read `containers`.
            let dropped = containers[index]
            containers[index] = nil
            #if !INTERPRET_SWINJECT
                forgetRegistrations(of: index)
            #endif
            withExtendedLifetime(dropped) {}
            return []

        case .dumpContainer(let container):
            guard let container = containers[container] else { return [.invalid("freed container")] }
            var sink = DiscardingStream()
            dump(container, to: &sink)
            return []

        case .dumpSlot(let slot):
            guard !slots.isEmpty else { return [.invalid("no slot")] }
            var sink = DiscardingStream()
            switch slots[slot % slots.count] {
            case .none: dump(nil as Int?, to: &sink)
            case .object(let node): dump(node, to: &sink)
            case .lazy(let wrapper, _), .provider(let wrapper, _): dump(wrapper, to: &sink)
            case .injected(let holder): dump(holder, to: &sink)
            case .graph(let graph): dump(graph, to: &sink)
            case .collection(let elements): dump(elements, to: &sink)
            case .failure(let name, _): dump(name, to: &sink)
            }
            return []

        case .countLive:
            return [.count(live.count)]

        case .validate(let container):
            #if INTERPRET_SWINJECT
                _ = container
                return [.invalid("validate() is Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                _ = container.validate()
                return []
            #endif

        case .inspectRegistrations(let container):
            #if INTERPRET_SWINJECT
                _ = container
                return [.invalid("registrations is Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                // The interpreter's own probes are not the program's registrations.
                let programs = container.registrations.filter { info in
                    (MType.all + [.asyncService]).contains { modelMetatype($0) == info.serviceType }
                }
                return [.registrations(programs.map(registrationLine).sorted())]
            #endif

        case .registerAsync(let container, let name):
            #if INTERPRET_SWINJECT
                _ = (container, name)
                return [.invalid("registerAsync is Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                let wasRegistering = registering
                registering = true
                container.registerAsync(ModelAsyncService.self, name: name?.string) { _ in ModelAsyncService() }
                registering = wasRegistering
                return []
            #endif

        case .addBehavior(let container, let scope):
            #if INTERPRET_SWINJECT
                _ = (container, scope)
                return [.invalid("withOverrides is Graft's")]
            #else
                guard let container = containers[container] else { return [.invalid("freed container")] }
                container.addBehavior(CopyingBehavior(interpreter: self, scope: scope.flatMap(objectScope)))
                return []
            #endif

        case .resolveInCopy(let copy, let request):
            #if INTERPRET_SWINJECT
                _ = (copy, request)
                return [.invalid("withOverrides is Graft's")]
            #else
                guard !copies.isEmpty else { return [.invalid("no copy kept")] }
                let value = self.request(request, copies[copy % copies.count])
                slots.append(value)
                return observe(value)
            #endif

        case .makeInjected(let bindings, let request):
            #if INTERPRET_SWINJECT
                _ = (bindings, request)
                return [.invalid("@Injected is Graft's")]
            #else
                let value = makeInjected(bindings[...], request, main: false)
                slots.append(value)
                return [observeField(value)]
            #endif

        case .makeMainInjected(let bindings, let request):
            #if INTERPRET_SWINJECT
                _ = (bindings, request)
                return [.invalid("@MainInjected is Graft's")]
            #else
                let value = makeInjected(bindings[...], request, main: true)
                slots.append(value)
                return [observeField(value)]
            #endif
        }
    }

    /// Reads a `Lazy`, `Provider` or `@Injected`: `nil` when `field` is none of them.
    private static func read(_ field: InterpreterField) -> ModelNodeObject?? {
        switch field {
        case .lazy(_, let instance), .provider(_, let instance): return .some(instance())
        case .injected(let holder): return .some(holder.read())
        default: return nil
        }
    }

    #if !INTERPRET_SWINJECT
        /// Makes the `@Injected` (or, with `main`, `@MainInjected`) holder inside `bindings`,
        /// outermost first.
        private func makeInjected(
            _ bindings: ArraySlice<MBinding>, _ request: MRequest, main: Bool
        ) -> InterpreterField {
            guard let binding = bindings.first else {
                struct Make: ModelTypeVisitor {
                    let name: String?
                    let main: Bool
                    func visit<T>(_ type: T.Type) -> InjectedHolder {
                        main ? MainInjectedHandle<T>(name: name) : InjectedHandle<T>(name: name)
                    }
                }
                return .injected(withModelType(request.type, Make(name: request.name?.string, main: main)))
            }
            switch binding {
            case .resolver(let container):
                guard let container = containers[container] else { return .none }
                return withResolver(container.synchronize()) { makeInjected(bindings.dropFirst(), request, main: main) }
            case .overrides(let registration):
                let override = { (copy: Container) in
                    if let registration { _ = self.register(registration, into: copy) }
                }
                return withOverrides(override, operation: { makeInjected(bindings.dropFirst(), request, main: main) })
            }
        }
    #endif

    // MARK: Deinit actions

    /// Runs a `deinit` action that shows in the trace, unless one is running already.
    private func runDeinitAction(_ action: () -> Void) {
        guard !deinitActionRunning else { return }
        deinitActionRunning = true
        action()
        deinitActionRunning = false
    }

    /// Reads the wrapper `back` slots before the last one the step began with (`back` 2: the one
    /// the step reads), and logs what it got.
    private func deinitReadSlot(_ back: Int) {
        runDeinitAction {
            let target: InterpreterField
            if back >= 2 {
                guard let read = readThisStep else { return }
                target = read
            } else {
                let index = slotsAtStepStart - 1 - back
                guard index >= 0, index < slots.count else { return }
                target = slots[index]
            }
            // Only the serial is kept: a `Provider`'s instance dies inside this action.
            guard let serial = Self.read(target).map({ $0?.serial }) else { return }
            deinitLog.append(serial.map { .object($0) } ?? .none)
        }
    }

    private func deinitRegisterAgain(_ registration: MRegistration) {
        runDeinitAction {
            guard let container = containers[registration.container] else { return }
            _ = register(registration, into: container)
        }
    }

    private func observe(_ value: InterpreterField) -> [RawObservation] {
        switch value {
        case .object(let node):
            return [.object(node.serial)] + node.fields.flatMap(observeFields)
        case .collection(let elements):
            // Each element, the registration that made it, and its fields.
            return [.elements(elements.count)]
                + elements.flatMap { [.object($0.serial), .label($0.tag)] + $0.fields.flatMap(observeFields) }
        case .failure(let name, _):
            return [.thrown(name)]
        default:
            return [observeField(value)]
        }
    }

    /// A field as `observe` shows it: a collection with its elements and their registrations.
    private func observeFields(_ field: InterpreterField) -> [RawObservation] {
        guard case .collection(let elements) = field else { return [observeField(field)] }
        return [.elements(elements.count)] + elements.flatMap { [.object($0.serial), .label($0.tag)] }
    }

    private func observeField(_ field: InterpreterField) -> RawObservation {
        switch field {
        case .none: return .none
        case .object(let node): return .object(node.serial)
        case .lazy: return .lazy
        case .provider: return .provider
        case .injected: return .injected
        case .graph(let graph):
            if let index = graphs.firstIndex(of: graph) { return .graph(UInt64(index)) }
            graphs.append(graph)
            return .graph(UInt64(graphs.count - 1))
        case .collection(let elements): return .elements(elements.count)
        case .failure(let name, _): return .thrown(name)
        }
    }

    // MARK: Registration

    /// Registers `registration` in `container` (the one it names, or a copy `withOverrides` made);
    /// returns what `implements` on its entry.
    func register(_ registration: MRegistration, into container: Container) -> (MForward) -> Void {
        #if !INTERPRET_SWINJECT
            if container === containers[registration.container] {
                registrationByKey[Self.key(of: registration)] = registration
            }
        #endif
        struct Register: ModelTypeVisitor {
            let interpreter: ContainerInterpreter
            let registration: MRegistration
            let container: Container
            func visit<T>(_ type: T.Type) -> (MForward) -> Void {
                interpreter.register(type, registration, into: container)
            }
        }
        return withModelType(
            registration.service, Register(interpreter: self, registration: registration, container: container))
    }

    func register<T>(_ type: T.Type, _ registration: MRegistration, into container: Container) -> (MForward) -> Void {
        let name = registration.name?.string
        let make: (Resolver) -> T = { [unowned self] r in
            // Every registered type is a class the made instance is (the generator ensures it).
            // Never throws: a factory that may is registered with `fail`.
            try! self.make(registration, r) as! T  // swiftlint:disable:this force_cast force_try
        }
        let entry: ServiceEntry<T>
        let wasRegistering = registering
        registering = true
        #if !INTERPRET_SWINJECT
            // It holds what its error holds: released with the registration (replaced, even by
            // its own factory, removed, or its container freed), it makes a miss and a failure.
            let captured = ModelFactoryFailure(onDeinit: failureDeinit(in: registration.container))
            let fail: (Resolver) throws -> T = { [unowned self] r in
                withExtendedLifetime(captured) {}
                return try self.make(registration, r) as! T  // swiftlint:disable:this force_cast
            }
        #endif
        switch registration.args {
        #if !INTERPRET_SWINJECT
            case .none where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { r in try fail(r) }
            case .int where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { (r: Resolver, _: Int) in try fail(r) }
            case .string where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { (r: Resolver, _: String) in try fail(r) }
            case .intString where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { (r: Resolver, _: Int, _: String) in try fail(r) }
            case .void where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { (r: Resolver, _: Void) in try fail(r) }
            case .tuple where registration.registersThrowingFactory:
                entry = container.register(type, name: name) { (r: Resolver, _: (Int, String)) in try fail(r) }
            case .none where registration.isMain:
                // Safe: main-actor registrations are generated only for interpreters that run on
                // the main actor, so `make` (and this interpreter) stay on that one thread.
                nonisolated(unsafe) let makeOnMain = make
                entry = container.registerMain(type, name: name) { r in makeOnMain(r) }
        #endif
        case .none: entry = container.register(type, name: name) { r in make(r) }
        case .int: entry = container.register(type, name: name) { (r: Resolver, _: Int) in make(r) }
        case .string: entry = container.register(type, name: name) { (r: Resolver, _: String) in make(r) }
        case .intString: entry = container.register(type, name: name) { (r: Resolver, _: Int, _: String) in make(r) }
        case .void: entry = container.register(type, name: name) { (r: Resolver, _: Void) in make(r) }
        case .tuple: entry = container.register(type, name: name) { (r: Resolver, _: (Int, String)) in make(r) }
        }
        registering = wasRegistering
        if let scope = objectScope(registration.scope) { entry.inObjectScope(scope) }
        for completion in registration.completions {
            entry.initCompleted { [unowned self] r, service in
                guard let node = service as AnyObject as? ModelNodeObject else { return }
                #if INTERPRET_SWINJECT
                    depth += 1
                    defer { depth -= 1 }
                    if depth > 150 { aborted = true }
                    if aborted { return }
                #endif
                for request in completion {
                    let field = self.request(request, r)
                    if case .failure = field { node.fields.append(.none) } else { node.fields.append(field) }
                }
            }
        }
        let forward: (MForward) -> Void = { [weak entry] forward in
            guard let entry else { return }
            withModelType(forward.type, ModelImplements(entry: entry, name: forward.name?.string))
        }
        for item in registration.forwards { forward(item) }
        #if !INTERPRET_SWINJECT
            for item in registration.forwards { forgetForward(item, of: registration) }
        #endif
        return forward
    }

    #if !INTERPRET_SWINJECT
        /// `info` as the model prints a registration (``ReferenceModel/registrationLine(_:entry:level:)``).
        private func registrationLine(_ info: RegistrationInfo) -> String {
            let type =
                (MType.all + [.asyncService]).first { modelMetatype($0) == info.serviceType }.map { "\($0)" }
                ?? "\(info.serviceType)"
            let name = info.name.map { name in
                MName.allCases.first { $0.string == name }.map { "\($0.canonical)" } ?? name
            }
            let scope =
                MScope.allCases.first { $0 != .unspecified && objectScope($0) === info.objectScope }.map { "\($0)" }
                ?? "\(info.objectScope)"
            let arguments = info.argumentTypes.joined(separator: ",")
            return "\(type)|\(name ?? "-")|\(arguments)|\(scope)|L\(info.containerLevel)"
                + "|\(info.isForwarded ? "forward" : "own")"
                + "|made \(info.instanceCount)|resolved \(info.resolutionCount)"
        }
    #endif

    /// The scope object `scope` stands for; `nil` for `unspecified` (the container's default).
    fileprivate func objectScope(_ scope: MScope) -> ObjectScope? {
        switch scope {
        case .unspecified: return nil
        case .transient: return .transient
        case .graph: return .graph
        case .container: return .container
        case .weak: return .weak
        case .customPermanent: return permanentScope
        case .customGraph: return graphStorageScope
        }
    }

    #if !INTERPRET_SWINJECT
        /// What the error of a factory that throws after its dependencies does when it is
        /// released: on the program's thread, with the logging check on, what a `.resolveProbe`
        /// `deinit` does, and a resolution that fails. Released where the hierarchy releases it
        /// (the record that replaced it, a call's end), neither may be taken for a call's own:
        /// the miss is logged once, and a `require` waiting then throws its own failure.
        private func failureDeinit(in container: Int) -> (() -> Void)? {
            guard checksProbeMisses else { return nil }
            return { [weak self] in
                guard let self, pthread_equal(pthread_self(), programThread) != 0,
                    let target = containers[container]
                else { return }
                probeMisses += 1
                _ = target.resolve(ModelProbe.self, name: unregisteredProbeName)
                _ = target.resolve(ModelProbe.self, name: failingProbeName)
            }
        }
    #endif

    /// The factory: its action, its dependencies, its instance. It throws (registered with a
    /// throwing factory) where `registration` says: once it resolved its dependencies
    /// (`throwsAfterDependencies`), or what `try r.requireAll` threw (`rethrowsCollectionFailure`:
    /// it resolves nothing more). Elsewhere a `requireAll` that fails is `try?`, `nil`.
    private func make(_ registration: MRegistration, _ r: Resolver) throws -> ModelNodeObject {
        #if !INTERPRET_SWINJECT
            // Resolving the identifier keeps the graph's instances remembered when it ends, which
            // only a later `withObjectGraph` of that identifier could see: the program never has it.
            graphsOfRunningFactories.append(r.resolve(GraphIdentifier.self)!)
            defer { graphsOfRunningFactories.removeLast() }
        #endif
        runFactoryAction(registration)
        var fields: [InterpreterField] = []
        #if INTERPRET_SWINJECT
            depth += 1
            defer { depth -= 1 }
            if depth > 150 { aborted = true }
            if !aborted { fields = registration.dependencies.map { request($0, r) } }
        #else
            for dependency in registration.dependencies {
                let field = request(dependency, r)
                if case .failure(_, let error) = field {
                    if registration.rethrowsCollectionFailure { throw error }
                    fields.append(.none)
                } else {
                    fields.append(field)
                }
            }
            if registration.throwsAfterDependencies {
                throw ModelFactoryFailure(onDeinit: failureDeinit(in: registration.container))
            }
        #endif
        nextSerial += 1
        var onDeinit: (() -> Void)?
        let container = registration.container
        #if INTERPRET_SWINJECT
            // Swinject 2.10 stops the process ("Fatal access conflict" in GraphStorage) when a deinit
            // resolves while a graph ends, so deinit actions are skipped there; programs for Swinject
            // have none that shows in the trace (`ProgramFeatures.deinitEffects`).
            let deinitAction = Self.swinjectDeinitActions ? registration.onDeinit : .none
        #else
            let deinitAction = registration.onDeinit
        #endif
        switch deinitAction {
        case .none: onDeinit = nil
        case .resolveProbe:
            onDeinit = { [weak self] in
                guard let self, let target = containers[container] else { return }
                _ = target.resolve(ModelProbe.self)
                #if !INTERPRET_SWINJECT
                    // On the program's thread, where the step's logging function is bound.
                    guard checksProbeMisses, pthread_equal(pthread_self(), programThread) != 0 else { return }
                    probeMisses += 1
                    _ = target.resolve(ModelProbe.self, name: unregisteredProbeName)
                #endif
            }
        case .registerScratch:
            onDeinit = { [weak self] in
                guard let self, let target = containers[container] else { return }
                scratchCount += 1
                target.register(ModelScratch.self, name: "scratch\(scratchCount)") { _ in ModelScratch() }
            }
        case .readSlot:
            let back = registration.deinitSlot
            onDeinit = { [weak self] in self?.deinitReadSlot(back) }
        case .reregister:
            onDeinit = { [weak self] in self?.deinitRegisterAgain(registration) }
        }
        let tag = registration.tag
        switch registration.makes {
        case .a: return ModelA(serial: nextSerial, fields: fields, tag: tag, live: live, onDeinit: onDeinit)
        case .b: return ModelB(serial: nextSerial, fields: fields, tag: tag, live: live, onDeinit: onDeinit)
        case .c: return ModelC(serial: nextSerial, fields: fields, tag: tag, live: live, onDeinit: onDeinit)
        case .d: return ModelD(serial: nextSerial, fields: fields, tag: tag, live: live, onDeinit: onDeinit)
        }
    }

    /// What a factory does first, on its registration's container (if the program still holds it).
    private func runFactoryAction(_ registration: MRegistration) {
        if registration.factoryAction == .readInjected {
            // The `@Injected` of the newest slot as the step started (made outside a resolution).
            let index = slotsAtStepStart - 1
            if index >= 0, index < slots.count, case .injected(let holder) = slots[index], !holder.isMain {
                _ = holder.read()
            }
            return
        }
        guard let container = containers[registration.container] else { return }
        switch registration.factoryAction {
        case .none, .readInjected: break
        case .resetContainerScope: container.resetObjectScope(.container)
        case .resetGraphScope: container.resetObjectScope(.graph)
        case .reregister: _ = register(registration, into: container)
        case .removeAll:
            container.removeAll()
            #if !INTERPRET_SWINJECT
                forgetRegistrations(of: registration.container)
            #endif
        case .droppedChildResolves:
            let child = Container(parent: container)
            child.register(ModelProbePart.self) { _ in ModelProbePart() }
            _ = child.resolve(ModelProbePart.self)
        case .childDroppedByItsFactory:
            // The child's factory drops the program's one reference to the child, then resolves
            // through it (`require`, which borrows the resolver it is given, on Graft), a
            // dependency that exists and one that does not: the request's own reference keeps the
            // child alive until it returns.
            let box = ChildBox()
            box.child = Container(parent: container)
            box.child!.register(ModelProbePart.self) { _ in ModelProbePart() }
            box.child!.register(ModelProbe.self) { [unowned box] r in
                box.child = nil
                #if INTERPRET_SWINJECT
                    _ = r.resolve(ModelProbePart.self, name: "missing")
                    return ModelProbe(part: r.resolve(ModelProbePart.self))
                #else
                    _ = try? r.require(ModelProbePart.self, name: "missing")
                    return ModelProbe(part: try? r.require(ModelProbePart.self))
                #endif
            }
            _ = box.child!.resolve(ModelProbe.self)
        }
    }

    // MARK: Resolution

    func request(_ request: MRequest, _ r: Resolver) -> InterpreterField {
        var r = r
        if let through = request.through {
            guard let container = containers[through] else { return .none }
            r = container
        }
        if request.wrapper == .graphIdentifier {
            return r.resolve(GraphIdentifier.self).map { .graph($0) } ?? .none
        }
        struct Request: ModelTypeVisitor {
            let request: MRequest
            let resolver: Resolver
            func visit<T>(_ type: T.Type) -> InterpreterField {
                ContainerInterpreter.request(type, request, resolver)
            }
        }
        let field = withModelType(request.type, Request(request: request, resolver: r))
        #if !INTERPRET_SWINJECT
            if case .failure(let text, _) = field, text.hasPrefix(Self.wrongReasonPrefix) {
                wrongReasons.append(text)
                return .none  // the model's `nil`: the step's `invalid` observation shows it
            }
        #endif
        return field
    }

    static func request<T>(_ type: T.Type, _ request: MRequest, _ r: Resolver) -> InterpreterField {
        let name = request.name?.string
        switch request.wrapper {
        case .plain:
            return object(resolve(T.self, name, request.args, r))
        case .optional:
            let wrapped: T?? = resolve(T?.self, name, request.args, r)
            return object(wrapped.flatMap { $0 })
        case .lazy:
            guard let lazy = resolve(Lazy<T>.self, name, request.args, r) else { return .none }
            return .lazy(lazy) { lazy.instance as AnyObject as? ModelNodeObject }
        case .provider:
            guard let provider = resolve(Provider<T>.self, name, request.args, r) else { return .none }
            return .provider(provider) { provider.instance as AnyObject as? ModelNodeObject }
        case .graphIdentifier:
            return r.resolve(GraphIdentifier.self).map { .graph($0) } ?? .none
        case .discarded:
            _ = resolve(T.self, name, request.args, r)
            return .none
        case .fallback:
            return object(resolve(T.self, name, request.args, r) ?? resolve(T.self, name, request.args, r))
        #if INTERPRET_SWINJECT
            // Swinject has neither `require` nor `~>`: its `resolve` is what they handle a failure as.
            case .caughtRequire, .optionalOperator:
                return object(resolve(T.self, name, request.args, r))
            // Nor collections: never generated for it.
            case .collection, .requireCollection:
                return .none
        #else
            case .collection:
                guard let elements = r.resolveAll(T.self) else { return .none }
                return .collection(elements.compactMap { $0 as AnyObject as? ModelNodeObject })
            case .requireCollection:
                do {
                    let elements = try r.requireAll(T.self)
                    return .collection(elements.compactMap { $0 as AnyObject as? ModelNodeObject })
                } catch {
                    return .failure(failedElement(of: T.self, error), error)
                }
            case .caughtRequire:
                do {
                    return object(try require(T.self, name, request.args, r))
                } catch {
                    // A `require` throws its own failure; the failing probe's, which only a
                    // `deinit` resolves, shows where the model has `nil`.
                    let path = (error as? ResolutionError)?.path ?? []
                    // "Not registered" for a key the resolver lists is the wrong error: it hides
                    // why a registration that exists failed. No model is needed to see it.
                    if let listed = listedKey(T.self, name, request.args, r, ifMissReported: error) {
                        return .failure(wrongReasonPrefix + "\(listed), which is registered", error)
                    }
                    guard path.contains(where: { $0.contains(failingProbeName) }) else { return .none }
                    return .failure("a deinit's failure: \(path.joined(separator: " -> "))", error)
                }
            case .optionalOperator:
                let wrapped: T? = resolveWithOperator(T?.self, name, request.args, r)
                return object(wrapped)
        #endif
        }
    }

    #if !INTERPRET_SWINJECT
        /// The element whose failure `requireAll` threw, as `collectionElementName` writes it: the
        /// first label of the error's path, `Type` or `Type (name: "x")`.
        static func failedElement<T>(of _: T.Type, _ error: ResolutionError) -> String {
            let label = error.path.first ?? "?"
            for type in MType.all + [.asyncService] {
                let typeName = "\(modelMetatype(type))"
                if label == typeName { return collectionElementName(type, nil) }
                // The first of canonically equivalent names: their labels compare equal.
                if let name = MName.allCases.first(where: { label == "\(typeName) (name: \"\($0.string)\")" }) {
                    return collectionElementName(type, name.canonical)
                }
            }
            return "unknown(\(label))"
        }

        /// How a factory's `require` that threw "not registered" for a key its resolver lists is
        /// reported: an `invalid` observation of the step, which no model predicts.
        static let wrongReasonPrefix = "require threw \"not registered\" for "

        /// The key asked for, if `error` says it is not registered while the resolver lists it.
        static func listedKey<S>(
            _ type: S.Type, _ name: String?, _ args: MArgs, _ r: Resolver, ifMissReported error: any Error
        ) -> String? {
            // The failure must be about the key asked for: a factory may throw on a miss of its own
            // dependency (a `requireAll` whose element was removed), which reaches this `require`
            // as it is.
            let label = "\(type)" + (name.map { " (name: \"\($0)\")" } ?? "")
            guard let failure = error as? ResolutionError, case .notRegistered = failure.reason,
                failure.path.last == label, let container = r as? Container
            else { return nil }
            let argumentTypes: [String] =
                switch args {
                case .none: []
                case .int: ["\(Int.self)"]
                case .string: ["\(String.self)"]
                case .intString: ["\(Int.self)", "\(String.self)"]
                case .void: ["\(Void.self)"]
                case .tuple: ["\((Int, String).self)"]
                }
            let listed = container.registrations.contains {
                $0.serviceType == type && $0.name == name && $0.argumentTypes == argumentTypes
            }
            return listed ? "\(type)\(name.map { " named \"\($0)\"" } ?? "") taking \(argumentTypes)" : nil
        }

        static func require<S>(_ type: S.Type, _ name: String?, _ args: MArgs, _ r: Resolver) throws -> S {
            switch args {
            case .none: return try r.require(type, name: name)
            case .int: return try r.require(type, name: name, argument: 1)
            case .string: return try r.require(type, name: name, argument: "s")
            case .intString: return try r.require(type, name: name, arguments: 1, "s")
            case .void: return try r.require(type, name: name, argument: ())
            case .tuple: return try r.require(type, name: name, argument: (1, "s"))
            }
        }

        /// `~>` in the form the request's name and arguments call for, into `S` (an `Optional`).
        static func resolveWithOperator<S>(_ type: S.Type, _ name: String?, _ args: MArgs, _ r: Resolver) -> S {
            if let name {
                switch args {
                case .none: return r ~> (type, name: name)
                case .int: return r ~> (type, name: name, argument: 1)
                case .string: return r ~> (type, name: name, argument: "s")
                case .intString: return r ~> (type, name: name, arguments: (1, "s"))
                case .void: return r ~> (type, name: name, argument: ())
                case .tuple: return r ~> (type, name: name, argument: (1, "s"))
                }
            }
            switch args {
            case .none: return r~>
            case .int: return r ~> (type, argument: 1)
            case .string: return r ~> (type, argument: "s")
            case .intString: return r ~> (type, arguments: (1, "s"))
            case .void: return r ~> (type, argument: ())
            case .tuple: return r ~> (type, argument: (1, "s"))
            }
        }
    #endif

    static func object<T>(_ value: T?) -> InterpreterField {
        guard let value, let node = value as AnyObject as? ModelNodeObject else { return .none }
        return .object(node)
    }

    static func resolve<S>(_ type: S.Type, _ name: String?, _ args: MArgs, _ r: Resolver) -> S? {
        switch args {
        case .none: return r.resolve(type, name: name)
        case .int: return r.resolve(type, name: name, argument: 1)
        case .string: return r.resolve(type, name: name, argument: "s")
        case .intString: return r.resolve(type, name: name, arguments: 1, "s")
        case .void: return r.resolve(type, name: name, argument: ())
        case .tuple: return r.resolve(type, name: name, argument: (1, "s"))
        }
    }
}

#if !INTERPRET_SWINJECT
    /// Told about each registration of a model service in its container (a `Scratch` a `deinit`
    /// registers is not one; a forward is not a registration): sets the registration's scope
    /// (not an async one's),
    /// then copies the container as a test trait does and keeps the copy's resolver in the
    /// interpreter's list. Application code run inside `register`: it sees the registration as
    /// `register` hands it out, and copies what the container holds then.
    private final class CopyingBehavior: Behavior {
        weak var interpreter: ContainerInterpreter?
        let scope: ObjectScope?

        init(interpreter: ContainerInterpreter, scope: ObjectScope?) {
            self.interpreter = interpreter
            self.scope = scope
        }

        func container<Type, Service>(
            _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            guard let interpreter, interpreter.registering,
                ObjectIdentifier(Type.self) != ObjectIdentifier(ModelScratch.self)
            else { return }
            // An async registration takes only `.container` and `.transient` (another scope stops
            // the program); the model leaves its scope alone.
            if let scope, Service.self != ModelAsyncService.self { entry.inObjectScope(scope) }
            let copy = withResolver(container.synchronize()) {
                withOverrides({ _ in }) { SynchronizedResolver.current }
            }
            interpreter.copies.append(copy)
        }
    }

    /// What a new thread runs. Read by that thread only while the thread that made it waits in
    /// `pthread_join`: one thread at a time touches it, and what `body` reaches.
    private final class ThreadCall: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread (never the main one, so never the main actor) and waits for it.
    /// The calling thread does nothing meanwhile, so `body` may use what the caller uses.
    func onAnotherThread<T>(_ body: () -> T) -> T {
        var result: T?
        withoutActuallyEscaping(body) { body in
            // Retained once here, released once by the new thread.
            let context = Unmanaged.passRetained(ThreadCall { result = body() }).toOpaque()
            #if canImport(Darwin)
                var thread: pthread_t?
                let started = pthread_create(
                    &thread, nil,
                    { context in
                        Unmanaged<ThreadCall>.fromOpaque(context).takeRetainedValue().body()
                        return nil
                    }, context)
                precondition(started == 0, "pthread_create failed: \(started)")
                pthread_join(thread!, nil)
            #else
                var thread = pthread_t()
                let started = pthread_create(
                    &thread, nil,
                    { context in
                        Unmanaged<ThreadCall>.fromOpaque(context!).takeRetainedValue().body()
                        return nil
                    }, context)
                precondition(started == 0, "pthread_create failed: \(started)")
                pthread_join(thread, nil)
            #endif
        }
        return result!
    }
#endif

#if !INTERPRET_SWINJECT
    /// `GraphStorage`, with a check of when a graph ends: it follows which graph the storage is in
    /// as `GraphStorage` does (a graph nested in another sets the outer one's instance aside until
    /// it ends), and calls `ended` with the graph each `graphResolutionCompleted()` ends. A graph
    /// ends once its requests are done: never while one of its factories still runs (an undone
    /// failure inside it does not end it).
    final class GraphEndCheckingStorage: InstanceStorage {
        private let storage = GraphStorage()
        private var graph: GraphIdentifier?
        private var enclosing: [GraphIdentifier] = []
        private let ended: (GraphIdentifier) -> Void

        init(ended: @escaping (GraphIdentifier) -> Void) {
            self.ended = ended
        }

        var instance: Any? {
            get { storage.instance }
            set { storage.instance = newValue }
        }

        func graphResolutionCompleted() {
            if let graph { ended(graph) }
            graph = enclosing.popLast()
            storage.graphResolutionCompleted()
        }

        func instance(inGraph graph: GraphIdentifier) -> Any? {
            storage.instance(inGraph: graph)
        }

        func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
            if let current = self.graph, current != graph {
                if instance == nil {
                    if let index = enclosing.lastIndex(of: graph) { enclosing.remove(at: index) }
                } else if storage.instance != nil {
                    enclosing.append(current)
                }
            }
            if self.graph == nil || self.graph == graph || instance != nil { self.graph = graph }
            storage.setInstance(instance, inGraph: graph)
        }
    }
#endif

/// What the failing probe's factory throws.
struct ProbeFailure: Error {}

/// The name of a probe whose factory throws: a failure recorded and logged, which no step observes.
let failingProbeName = "always fails"

/// What a factory that throws after its dependencies throws, with what its `deinit` does.
final class ModelFactoryFailure: Error, @unchecked Sendable {  // immutable
    private let onDeinit: (() -> Void)?
    init(onDeinit: (() -> Void)? = nil) { self.onDeinit = onDeinit }
    deinit { onDeinit?() }
}

#if !INTERPRET_SWINJECT
    /// A count the logging function adds to, from the program's thread.
    final class LoggedMisses: @unchecked Sendable {  // touched only by the program's thread
        private var count = 0
        func add() { count += 1 }
        func take() -> Int {
            defer { count = 0 }
            return count
        }
    }
#endif
