import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs seeded random programs on Graft and compares each step with `ReferenceModel`.
/// `GRAFT_MODEL_PROGRAMS` (default 1000) and `GRAFT_MODEL_SEED` (default 1) choose the programs;
/// `GRAFT_MODEL_TRACE=1` prints each program before it runs (to find one that crashes).
@Suite struct ModelBasedTests {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// One program: the modelled program and the first difference, if any.
    static func check(_ program: MProgram) -> (program: MProgram, difference: String?) {
        let modelled = ReferenceModel.run(program)
        let actual = ContainerInterpreter.run(modelled.program).trace
        guard let index = firstDifference(modelled.trace, actual) else { return (modelled.program, nil) }
        return (
            modelled.program,
            describeDifference(program: modelled.program, expected: modelled.trace, actual: actual, at: index)
        )
    }

    @Test func graftMatchesTheReferenceModel() {
        let count = Self.environment("GRAFT_MODEL_PROGRAMS").flatMap { Int($0) } ?? 1000
        let firstSeed = Self.environment("GRAFT_MODEL_SEED").flatMap { UInt64($0) } ?? 1
        let trace = Self.environment("GRAFT_MODEL_TRACE") == "1"
        let stats = Self.environment("GRAFT_MODEL_STATS") == "1"
        var failures = 0
        var keptSteps = 0
        var skippedSteps: [String: Int] = [:]
        for seed in firstSeed..<(firstSeed + UInt64(count)) {
            let program = ProgramGenerator.generate(seed: seed)
            if stats {
                let modelled = ReferenceModel.run(program)
                keptSteps += modelled.program.steps.count
                for reason in modelled.skipped { skippedSteps[reason, default: 0] += 1 }
            }
            if trace { print("seed \(seed):\n\(ReferenceModel.run(program).program.render())\n") }
            guard Self.check(program).difference != nil else { continue }
            failures += 1
            let shrunk = ProgramShrinker.shrink(Self.check(program).program) { Self.check($0).difference != nil }
            let report = Self.check(shrunk).difference ?? "(the difference vanished while shrinking)"
            Issue.record("seed \(seed): Graft differs from the model.\n\(report)")
            if failures >= 5 { break }
        }
        if stats { print("modelled steps: \(keptSteps), skipped: \(skippedSteps)") }
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
        #expect(trace[4] == [.none])
    }
}
