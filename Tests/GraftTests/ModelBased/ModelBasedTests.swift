import Testing

@testable import Graft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs seeded random programs on Graft and compares each step with `ReferenceModel`.
/// `GRAFT_MODEL_PROGRAMS` (default 1000) and `GRAFT_MODEL_SEED` (default 1) choose the programs;
/// `GRAFT_MODEL_TRACE=1` prints each program before it runs. A program that stops the process has
/// its seed written to standard error first.
@Suite struct ModelBasedTests {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// One program: the modelled program and the first difference, if any.
    /// Besides the steps, every program checks that its hierarchy is freed once the program has
    /// dropped its containers: nothing Graft records may hold what owns it. With
    /// `registeringAgainOnLog`, under a logging function that registers again, that is all it
    /// checks: the steps then observe what the model does not (see `ContainerInterpreter.run`).
    static func check(
        _ program: MProgram, registeringAgainOnLog: Bool = false
    ) -> (program: MProgram, difference: String?) {
        let modelled = ReferenceModel.run(program)
        weak var hierarchy: SharedState?
        var liveInstances: () -> Int = { 0 }
        // A copy `withOverrides` makes is a hierarchy of its own, idle while a factory of the
        // program's runs: its messages are delivered there.
        let copiesContainers = modelled.program.render().contains("withOverrides")
        let isBusy: ((Container) -> Bool)? = copiesContainers ? nil : { isBusyOutsideValidation($0) }
        let actual = ContainerInterpreter.run(
            modelled.program, registeringAgainOnLog: registeringAgainOnLog, betweenCalls: keptPastItsCall,
            isBusy: isBusy
        ) {
            hierarchy = $0.hierarchy
            liveInstances = $1
        }.trace
        guard !registeringAgainOnLog, let index = firstDifference(modelled.trace, actual) else {
            // Only where the program's instances are all gone: a cycle of its own (an instance
            // holding a `Lazy` of itself) keeps what it holds, as it would in Swinject.
            guard hierarchy == nil || liveInstances() > 0 else {
                return (
                    modelled.program,
                    "The program's hierarchy is still alive after the program dropped every container: something "
                        + "Graft records holds what owns it.\n\(modelled.program.render())"
                )
            }
            return (modelled.program, nil)
        }
        return (
            modelled.program,
            describeDifference(program: modelled.program, expected: modelled.trace, actual: actual, at: index)
        )
    }

    /// Between two calls of a `withObjectGraph` body no factory runs: what the hierarchy kept
    /// for later (an error a record replaced, an entry refused, an instance dropped past a call)
    /// has been released, or a long body would pile it up until it ends.
    static func keptPastItsCall(_ container: Container) -> String? {
        let count = container.hierarchy.laterReleases.count
        return count == 0 ? nil : "\(count) values kept for later between two calls of a withObjectGraph body"
    }

    /// Whether the hierarchy is busy on this thread (a request in flight, a call or user code the
    /// library runs around this point, or its mutex held), other than while `validate()` runs,
    /// which writes each failure at once on purpose.
    static func isBusyOutsideValidation(_ container: Container) -> Bool {
        container.hierarchy.holdsMessages && !container.hierarchy.diagnostics.isValidating
    }

    /// On the main actor: programs register main-actor services and resolve them with the plain
    /// `resolve`, which works there. Graft's log messages are built (and captured) for every failure.
    @MainActor @Test func graftMatchesTheReferenceModel() {
        Self.runPrograms(features: .all)
    }

    /// The same with the factory variants (`ProgramFeatures.factoryVariants`), programs of their
    /// own: the seeds of the programs above keep their programs.
    @MainActor @Test func graftMatchesTheReferenceModelWithFactoryVariants() {
        Self.runPrograms(features: ProgramFeatures.all.union(.factoryVariants))
    }

    /// A logging function may change registrations whenever Graft logs, also while it holds an
    /// entry it is constructing: the programs (with the factory variants) run with one that
    /// registers a registration of the program again on every message. Nothing is compared with
    /// the model; each program must run to its end (debug builds check that no entry in use is
    /// freed) and free its hierarchy once it dropped its containers and instances.
    @MainActor @Test func everyProgramSurvivesALoggingFunctionThatRegistersAgain() {
        Self.runPrograms(features: ProgramFeatures.all.union(.factoryVariants), registeringAgainOnLog: true)
    }

    /// Runs the programs of `GRAFT_MODEL_PROGRAMS` seeds (1,000 by default) from `GRAFT_MODEL_SEED`
    /// (1) with `features`, each checked against the model (or, `registeringAgainOnLog`, only for
    /// what it frees: see ``check(_:registeringAgainOnLog:)``); reports the first 5 that differ, shrunk.
    @MainActor static func runPrograms(features: ProgramFeatures, registeringAgainOnLog: Bool = false) {
        LogCapture.buildMessagesProcessWide()
        let count = Self.environment("GRAFT_MODEL_PROGRAMS").flatMap { Int($0) } ?? 1000
        let firstSeed = Self.environment("GRAFT_MODEL_SEED").flatMap { UInt64($0) } ?? 1
        let trace = Self.environment("GRAFT_MODEL_TRACE") == "1"
        let stats = Self.environment("GRAFT_MODEL_STATS") == "1"
        var failures = 0
        var keptSteps = 0
        var reentered: [UInt64] = []
        var reenteredByWrapper: [MFirstAccessWrapper: Int] = [:]
        var failedByWrapper: [MFirstAccessWrapper: Int] = [:]
        var skippedSteps: [String: Int] = [:]
        let stopReport = StopReport()
        defer { stopReport.remove() }
        for seed in firstSeed..<(firstSeed + UInt64(count)) {
            stopReport.set(
                "Graft model-based tests: the process stopped while running the program of seed \(seed)"
                    + (registeringAgainOnLog ? " with a logging function that registers again" : "")
                    + "; rerun it with GRAFT_MODEL_SEED=\(seed) GRAFT_MODEL_PROGRAMS=1 GRAFT_MODEL_TRACE=1\n")
            let program = ProgramGenerator.generate(seed: seed, features: features)
            if stats {
                let modelled = ReferenceModel.run(program)
                keptSteps += modelled.program.steps.count
                if !modelled.firstAccesses.reentered.isEmpty { reentered.append(seed) }
                for wrapper in modelled.firstAccesses.reentered.keys { reenteredByWrapper[wrapper, default: 0] += 1 }
                for wrapper in modelled.firstAccesses.failed.keys { failedByWrapper[wrapper, default: 0] += 1 }
                for reason in modelled.skipped { skippedSteps[reason, default: 0] += 1 }
            }
            if trace { print("seed \(seed):\n\(ReferenceModel.run(program).program.render())\n") }
            func check(_ program: MProgram) -> (program: MProgram, difference: String?) {
                Self.check(program, registeringAgainOnLog: registeringAgainOnLog)
            }
            guard check(program).difference != nil else { continue }
            failures += 1
            let shrunk = ProgramShrinker.shrink(check(program).program) { check($0).difference != nil }
            let report = check(shrunk).difference ?? "(the difference vanished while shrinking)"
            Issue.record("seed \(seed): Graft differs from the model.\n\(report)")
            if failures >= 5 { break }
        }
        if stats {
            print("modelled steps: \(keptSteps), skipped: \(skippedSteps.sorted { $0.value > $1.value })")
            print(
                "programs with a first access re-entered by a deinit: \(reentered.count), seeds \(reentered.prefix(20))"
            )
            func byWrapper(_ counts: [MFirstAccessWrapper: Int]) -> String {
                MFirstAccessWrapper.allCases.map { "\($0.rawValue): \(counts[$0, default: 0])" }.joined(separator: ", ")
            }
            print("  by wrapper: \(byWrapper(reenteredByWrapper))")
            print("programs with a failed first access, by wrapper: \(byWrapper(failedByWrapper))")
        }
    }

    /// The default programs reach what the first-access component promises for every wrapper: a
    /// first access re-entered by a `deinit` (for `Lazy`, `Provider`, `@Injected`, `@MainInjected`)
    /// and one that fails and is not kept (for `@Injected`, `@MainInjected`; a failure stops a
    /// `Lazy` or a `Provider`, so those are not modelled), each in many programs, so a divergent
    /// rule in any of them shows in `graftMatchesTheReferenceModel`.
    @Test func theProgramsReenterAndFailEveryFirstAccess() {
        var reentered: [MFirstAccessWrapper: Int] = [:]
        var failed: [MFirstAccessWrapper: Int] = [:]
        for seed in UInt64(1)...1000 {
            let counts = ReferenceModel.run(ProgramGenerator.generate(seed: seed)).firstAccesses
            for (wrapper, count) in counts.reentered where count > 0 { reentered[wrapper, default: 0] += 1 }
            for (wrapper, count) in counts.failed where count > 0 { failed[wrapper, default: 0] += 1 }
        }
        for wrapper in MFirstAccessWrapper.allCases {
            #expect(reentered[wrapper, default: 0] >= 20, "programs re-entering a first access of \(wrapper)")
        }
        for wrapper in [MFirstAccessWrapper.injected, .mainInjected] {
            #expect(failed[wrapper, default: 0] >= 20, "programs with a failed first access of \(wrapper)")
        }
    }

    /// The model itself on hand-written programs whose answer is known.
    @Test func modelKnowsTheBasics() {
        let graphPair = MRegistration(
            container: 0, service: .cls(.a), makes: .a, name: nil, args: .none, scope: .unspecified,
            dependencies: [
                MRequest(type: .cls(.b), name: nil, args: .none, wrapper: .plain),
                MRequest(type: .cls(.b), name: nil, args: .none, wrapper: .plain),
            ],
            completions: [], forwards: [], onDeinit: .none)
        var b = graphPair
        b.service = .cls(.b)
        b.makes = .b
        b.dependencies = []
        var cycle = b
        cycle.dependencies = [MRequest(type: .cls(.a), name: nil, args: .none, wrapper: .plain)]
        let program = MProgram(
            parents: [-1],
            steps: [
                .register(graphPair), .register(b),
                .resolve(container: 0, MRequest(type: .cls(.a), name: nil, args: .none, wrapper: .plain)),
                .register(cycle),
                .resolve(container: 0, MRequest(type: .cls(.a), name: nil, args: .none, wrapper: .plain)),
            ])
        let trace = ReferenceModel.run(program).trace
        #expect(trace[2] == [.new, .new, .same(1)])
        // B's factory meets a cycle: the whole request fails, whatever B's factory does with `nil`.
        #expect(trace[4] == [.none])
    }
}

extension ModelBasedTests {
    /// The model's collections on a hand-written program: the root's names first, each table's in
    /// registration order, a child's name hiding its ancestor's in the ancestor's place, one graph
    /// per call, and the first failing element named by `requireAll`.
    @Test func modelKnowsCollections() {
        func contribution(_ container: Int, _ name: MName?, makes: MClass, sharing: Bool) -> MRegistration {
            MRegistration(
                container: container, service: .proto(.p), makes: makes, name: name, args: .none, scope: .unspecified,
                dependencies: sharing ? [MRequest(type: .cls(.c), name: nil, args: .none, wrapper: .plain)] : [],
                completions: [], forwards: [], onDeinit: .none)
        }
        let shared = MRegistration(
            container: 0, service: .cls(.c), makes: .c, name: nil, args: .none, scope: .graph, dependencies: [],
            completions: [], forwards: [], onDeinit: .none)
        var failing = contribution(0, .cafeDecomposed, makes: .a, sharing: false)
        failing.throwsAfterDependencies = true
        let all = MRequest(type: .proto(.p), name: nil, args: .none, wrapper: .collection)
        let require = MRequest(type: .proto(.p), name: nil, args: .none, wrapper: .requireCollection)
        let program = MProgram(
            parents: [-1, 0],
            steps: [
                .register(shared),
                .register(contribution(0, .x, makes: .a, sharing: false)),
                .register(contribution(0, nil, makes: .b, sharing: true)),
                .register(contribution(1, .y, makes: .d, sharing: true)),
                .register(contribution(1, .x, makes: .d, sharing: false)),
                .resolve(container: 1, all),
                .resolveThroughView(container: 0, all),
                .removeAll(container: 1),
                .resolve(container: 1, require),
                .register(failing),
                .resolve(container: 1, require),
                .resolve(container: 1, all),
                .resolve(container: 1, MRequest(type: .proto(.q), name: nil, args: .none, wrapper: .requireCollection)),
            ])
        let trace = ReferenceModel.run(program).trace
        // c1's "x" in the root's "x"'s place, the root's unnamed one, c1's "y"; the two last share one C.
        #expect(
            trace[5] == [
                .elements(3), .new, .label("P(\"x\")@c1"), .new, .label("P@c0"), .new, .new, .label("P(\"y\")@c1"),
                .same(5),
            ])
        #expect(trace[6] == [.elements(2), .new, .label("P(\"x\")@c0"), .new, .label("P@c0"), .new])
        #expect(trace[8] == [.elements(2), .new, .label("P(\"x\")@c0"), .new, .label("P@c0"), .new])
        #expect(trace[10] == [.thrown(collectionElementName(.proto(.p), MName.cafeComposed.rawValue))])
        #expect(trace[11] == [.none])
        #expect(trace[12] == [.elements(0)])
    }
}

/// Writes a message to standard error if the process stops on a trap or an abort while it is
/// installed, then lets the handler that was there before (the runtime's backtracer) run. The
/// message is written into a fixed buffer beforehand: a signal handler may only call `write`.
private final class StopReport {
    private static let signals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS]

    init() {
        for number in Self.signals {
            stopReportPrevious[Int(number)] = signal(number) { number in stopReportHandler(number) }
        }
    }

    func set(_ message: String) {
        let bytes = Array(message.utf8.prefix(stopReportCapacity))
        bytes.withUnsafeBufferPointer { stopReportBuffer.update(from: $0.baseAddress!, count: bytes.count) }
        stopReportLength = bytes.count
    }

    func remove() {
        stopReportLength = 0
        for number in Self.signals { signal(number, stopReportPrevious[Int(number)]) }
    }
}

private let stopReportCapacity = 512
// Written by the test (one thread) before each program; read by the signal handler.
nonisolated(unsafe) private let stopReportBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: stopReportCapacity)
nonisolated(unsafe) private var stopReportLength = 0
nonisolated(unsafe) private var stopReportPrevious = [(@convention(c) (Int32) -> Void)?](repeating: nil, count: 64)

private func stopReportHandler(_ number: Int32) {
    if stopReportLength > 0 { _ = write(2, stopReportBuffer, stopReportLength) }
    signal(number, stopReportPrevious[Int(number)])
    raise(number)
}
