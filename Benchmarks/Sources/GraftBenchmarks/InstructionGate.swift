import Foundation

// `GraftBenchmarks --instruction-gate [part of a name]`: Graft's workload of every scenario and
// layer, for scripts/instruction-gate.sh, which runs this under callgrind with
// `--dump-after=*instructionGateRun*`: callgrind writes its counters out, and zeroes them, each
// time `instructionGateRun` returns, so a dump holds what ran since the previous one.
//
// Where a key lands in a container's table depends on its type's metadata address and its name.
// The services' metadata is placed by the runtime at the same address in every build
// (Services.swift), so the counts do not move with the binary's layout; the 100 unrelated
// registrations still decide which keys meet one another. So a workload whose containers hold
// them is built `fillerSets.count` times, each set of fillers under other names, and the script
// keeps the lowest count: the path with its keys found where they first look.
//
// Each workload is built and checked for every set, all are run `n` operations to warm up
// (tables and the allocator reach their size; that dump also holds the start-up, set-up and
// checks, and is not used), then each is run `n` and `2n` operations, whose dumps hold those runs
// alone (and the few instructions between the calls). The script divides the difference by `n`,
// so what a run costs once (the call, starting threads or a task) cancels out. One line per
// workload on standard output, `gate<TAB>name<TAB>n<TAB>sets`, after its `1 + 2 * sets` dumps.

/// Runs each workload `count` operations: the one function callgrind watches. Not inlined, so
/// it exists as a function.
@inline(never)
func instructionGateRun(_ workloads: [Workload], _ count: Int) {
    for workload in workloads { workload.run(count) }
}

/// The sets of names for the 100 unrelated registrations, the first the benchmark's own.
private let fillerSets = [fillerNames] + (1..<32).map { set in (0..<100).map { "filler-\(set)-\($0)" } }

/// For each workload: its operations per measured run (the smaller of the two, summed over the
/// filler sets: about 10 million instructions), and whether its containers hold the fillers.
/// The registration rows (`register`, `registerMain`, `registerAsync`) and start-up build their
/// own containers, with a thousand keys or more.
private let gateRuns: [String: (operations: Int, fillers: Bool)] = [
    "transient resolve": (12_800, true),
    "container-scoped resolve": (51_200, true),
    "10-node graph (18 resolves)": (640, true),
    "1 of 10 named": (12_800, true),
    "1 argument": (12_800, true),
    "3 arguments": (9_600, true),
    "from a grandchild": (9_600, true),
    "synchronized transient": (9_600, true),
    "synchronized container-scoped": (32_000, true),
    "2 threads, one synchronized view": (51_200, true),
    "8 threads, one synchronized view": (51_200, true),
    "registration (1,000 via assembler)": (5_000, false),
    "register (1,000 directly on a container)": (5_000, false),
    "failed resolution, logging off": (12_800, true),
    "start-up: 10,000 services, 100 assemblies": (1, false),
    "resolve through SynchronizedResolver.current (bound by withResolver)": (25_600, true),
    "@Injected: object made, then first access (plain: object made resolving in init)": (6_400, true),
    "@Injected, later access": (38_400, true),
    "transient with one transient dependency (plain: two transient resolves)": (6_400, true),
    "require on a hit (plain container)": (96_000, true),
    "10-node graph, factories use require (plain: resolve(...)!)": (640, true),
    "resolveAsync of a built singleton": (25_600, true),
    "resolveMain of a built main-actor singleton": (4_800, true),
    "resolveAll of 3 transients (plain: 3 named resolves)": (1_600, true),
    "resolveAll of 3 sharing a graph dependency (plain: 3 resolves in one graph)": (1_600, true),
    // One assembler of 1,000 registrations, the least the workload runs: registerMain takes about
    // 157 million instructions for it (each registration scans the container's earlier main-actor
    // registrations for one to replace), registerAsync about 17 million.
    "registerMain (1,000 via assembler)": (1_000, false),
    "registerAsync (1,000 via assembler)": (1_000, false),
    // The floors the transient and the graph are held to, counted the same way. Their code does
    // not change with the library's: their rows say what the machine and the toolchain cost.
    "floor: lookup + allocation": (12_800, false),
    "floor: hand-wired graph": (640, false),
]

func runInstructionGate(_ scenarios: [Scenario], only: String?) throws {
    func gate(_ name: String, _ make: () -> Workload) throws {
        guard let (operations, fillers) = gateRuns[name] else {
            throw WrongAnswer(description: "no instruction gate operation count for '\(name)'")
        }
        let workloads = (fillers ? fillerSets : [fillerNames]).map { names in
            GraftWorkloads.fillers = names
            return make()
        }
        GraftWorkloads.fillers = fillerNames
        for workload in workloads { try workload.check() }
        let each = max(1, operations / workloads.count)
        instructionGateRun(workloads, each)
        for workload in workloads {
            instructionGateRun([workload], each)
            instructionGateRun([workload], 2 * each)
        }
        print("gate\t\(name)\t\(each)\t\(workloads.count)")
    }
    for scenario in scenarios where only.map({ scenario.name.contains($0) }) ?? true {
        try gate(scenario.name, scenario.graft)
    }
    for floor in [Floor.allocation, .handWiredGraph] where only.map({ "floor: \(floor.rawValue)".contains($0) }) ?? true
    {
        try gate("floor: \(floor.rawValue)") { Workload(check: {}, run: floor.workload()) }
    }
    let layerNames = GraftWorkloads.layers().map(\.name)
    for (index, name) in layerNames.enumerated() where only.map({ name.contains($0) }) ?? true {
        try gate(name) { GraftWorkloads.layers()[index].layer }
    }
}
