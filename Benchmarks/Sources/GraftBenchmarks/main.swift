import Foundation

// First: every service type's metadata, placed before anything else asks the runtime for any
// (Services.swift says why).
placeServiceMetadata()

// Graft against Swinject 2.10.0 and swift-dependencies 1.17.1, interleaved in one process: each
// round times a repetition of Swinject, then of Graft, then of swift-dependencies, then of each
// matching floor, and every ratio is the median of the per-round ratios, so the machine's speed
// changes cancel out.

struct Scenario {
    let name: String
    /// Operations per timed repetition.
    let operations: Int
    /// What Graft's time is divided by, first the one the targets use.
    let floors: [Floor]
    let graft: () -> Workload
    let swinject: () -> Workload
    /// `nil` where swift-dependencies has no equivalent.
    let dependencies: (() -> Workload)?
    /// The threads the floors run on: as many as the scenario's own.
    var floorThreads = 1
}

// A table, one row per scenario, so the rows share a shape: everything below reads them in one loop.
let scenarios: [Scenario] = [
    Scenario(
        name: "transient resolve", operations: 6_000, floors: [.allocation, .bareAllocation],
        graft: GraftWorkloads.transient, swinject: SwinjectWorkloads.transient,
        dependencies: DependenciesWorkloads.transient),
    Scenario(
        name: "container-scoped resolve", operations: 8_000, floors: [.mutex],
        graft: GraftWorkloads.containerScoped, swinject: SwinjectWorkloads.containerScoped,
        dependencies: DependenciesWorkloads.containerScoped),
    Scenario(
        name: "10-node graph (18 resolves)", operations: 400, floors: [.handWiredGraph],
        graft: GraftWorkloads.graph, swinject: SwinjectWorkloads.graph, dependencies: nil),
    Scenario(
        name: "1 of 10 named", operations: 6_000, floors: [.allocation],
        graft: GraftWorkloads.named, swinject: SwinjectWorkloads.named, dependencies: nil),
    Scenario(
        name: "1 argument", operations: 5_000, floors: [.allocation],
        graft: GraftWorkloads.oneArgument, swinject: SwinjectWorkloads.oneArgument,
        dependencies: DependenciesWorkloads.oneArgument),
    Scenario(
        name: "3 arguments", operations: 5_000, floors: [.allocation],
        graft: GraftWorkloads.threeArguments, swinject: SwinjectWorkloads.threeArguments,
        dependencies: DependenciesWorkloads.threeArguments),
    Scenario(
        name: "from a grandchild", operations: 5_000, floors: [.allocation],
        graft: GraftWorkloads.grandchild, swinject: SwinjectWorkloads.grandchild,
        dependencies: DependenciesWorkloads.grandchild),
    // swift-dependencies has one form of read, safe from any thread: the same workloads as the
    // two rows above without a synchronized view.
    Scenario(
        name: "synchronized transient", operations: 5_000, floors: [.allocation],
        graft: GraftWorkloads.synchronizedTransient, swinject: SwinjectWorkloads.synchronizedTransient,
        dependencies: DependenciesWorkloads.transient),
    Scenario(
        name: "synchronized container-scoped", operations: 5_000, floors: [.mutex, .reference],
        graft: GraftWorkloads.synchronizedContainerScoped, swinject: SwinjectWorkloads.synchronizedContainerScoped,
        dependencies: DependenciesWorkloads.containerScoped),
    Scenario(
        name: "2 threads, one synchronized view", operations: 80_000, floors: [.mutex, .reference],
        graft: { GraftWorkloads.threads(2) }, swinject: { SwinjectWorkloads.threads(2) },
        dependencies: { DependenciesWorkloads.threads(2) }, floorThreads: 2),
    Scenario(
        name: "8 threads, one synchronized view", operations: 80_000, floors: [.mutex, .reference],
        graft: { GraftWorkloads.threads(8) }, swinject: { SwinjectWorkloads.threads(8) },
        dependencies: { DependenciesWorkloads.threads(8) }, floorThreads: 8),
    Scenario(
        name: "registration (1,000 via assembler)", operations: 10_000, floors: [],
        graft: GraftWorkloads.registration, swinject: SwinjectWorkloads.registration, dependencies: nil),
    Scenario(
        name: "failed resolution, logging off", operations: 500, floors: [],
        graft: GraftWorkloads.failedResolution, swinject: SwinjectWorkloads.failedResolution, dependencies: nil),
    Scenario(
        name: "start-up: 10,000 services, 100 assemblies", operations: 1, floors: [],
        graft: GraftWorkloads.startUp, swinject: SwinjectWorkloads.startUp, dependencies: nil),
]

struct Result {
    let scenario: Scenario
    let graft: Double
    let swinject: Double
    let dependencies: Double?
    let speedUp: Double
    let dependenciesSpeedUp: Double?
    /// Graft's time over each of the scenario's floors, in the same order.
    let overFloors: [Double]
    /// Each floor's own time per operation (median), in the same order.
    let floorTimes: [Double]
    var overFloor: Double? { overFloors.first }
}

// The instruction gate (scripts/instruction-gate.sh) runs only Graft's workloads, under callgrind.
if CommandLine.arguments.dropFirst().first == "--instruction-gate" {
    try runInstructionGate(scenarios, only: CommandLine.arguments.dropFirst(2).first)
    exit(0)
}

// Profiling: GRAFT_BENCH_PROFILE=<part of a scenario name> runs only Graft's workload, 200,000
// operations, for `valgrind --tool=callgrind` to count; "floor: <part of its name>" runs a floor.
if let profiled = ProcessInfo.processInfo.environment["GRAFT_BENCH_PROFILE"] {
    for scenario in scenarios where scenario.name.contains(profiled) {
        let workload = scenario.graft()
        try workload.check()
        workload.run(200_000)
        print("profiled \(scenario.name)")
    }
    for (name, layer, _) in GraftWorkloads.layers() where name.contains(profiled) {
        try layer.check()
        layer.run(200_000)
        print("profiled \(name)")
    }
    for floor in [Floor.allocation, .bareAllocation, .mutex, .reference, .handWiredGraph]
    where "floor: \(floor.rawValue)".contains(profiled) {
        floor.workload()(200_000)
        print("profiled floor: \(floor.rawValue)")
    }
    exit(0)
}

let rounds = Int(ProcessInfo.processInfo.environment["GRAFT_BENCH_ROUNDS"] ?? "") ?? 15
let only = ProcessInfo.processInfo.environment["GRAFT_BENCH_ONLY"]

var results: [Result] = []
var failed = false
var memoryFlat: Bool?
var containerAllocations: Double?
var startUpBytes: (Double, Double)?
func ratioText(_ ratio: Double?) -> String { ratio.map { String(format: "%.1fx", $0) } ?? "-" }
func nsText(_ ns: Double?) -> String { ns.map { String(format: "%.1f", $0) } ?? "-" }
func floorsText(_ result: Result) -> String {
    let parts = zip(result.scenario.floors, result.overFloors).map { String(format: "%.2fx (%@)", $1, $0.rawValue) }
    return parts.isEmpty ? "-" : parts.joined(separator: "; ")
}

for scenario in scenarios where only.map({ scenario.name.contains($0) }) ?? true {
    let graft = scenario.graft()
    let swinject = scenario.swinject()
    let dependencies = scenario.dependencies?()
    do {
        try graft.check()
        try swinject.check()
        try dependencies?.check()
    } catch {
        print("WRONG ANSWER in '\(scenario.name)': \(error)")
        failed = true
        continue
    }
    let floors = scenario.floors.map { $0.workload(threads: scenario.floorThreads) }
    // Warm-up repetitions, untimed.
    graft.run(scenario.operations)
    swinject.run(scenario.operations)
    dependencies?.run(scenario.operations)
    for floor in floors { floor(scenario.operations) }

    var graftTimes: [Double] = []
    var swinjectTimes: [Double] = []
    var dependenciesTimes: [Double] = []
    var speedUps: [Double] = []
    var dependenciesSpeedUps: [Double] = []
    var overFloors = [[Double]](repeating: [], count: floors.count)
    var floorTimes = [[Double]](repeating: [], count: floors.count)
    for _ in 0..<rounds {
        let s = measure(scenario.operations, swinject.run)
        let g = measure(scenario.operations, graft.run)
        swinjectTimes.append(s)
        graftTimes.append(g)
        speedUps.append(s / g)
        if let dependencies {
            let d = measure(scenario.operations, dependencies.run)
            dependenciesTimes.append(d)
            dependenciesSpeedUps.append(d / g)
        }
        for (index, floor) in floors.enumerated() {
            let f = measure(scenario.operations, floor)
            floorTimes[index].append(f)
            overFloors[index].append(g / f)
        }
    }
    let result = Result(
        scenario: scenario, graft: median(graftTimes), swinject: median(swinjectTimes),
        dependencies: dependenciesTimes.isEmpty ? nil : median(dependenciesTimes),
        speedUp: median(speedUps),
        dependenciesSpeedUp: dependenciesSpeedUps.isEmpty ? nil : median(dependenciesSpeedUps),
        overFloors: overFloors.map(median), floorTimes: floorTimes.map(median))
    results.append(result)
    print(
        String(
            format: "%-36@ %10.1f %12.1f %9.1fx %12@ %9@   %@", scenario.name as NSString, result.graft,
            result.swinject,
            result.speedUp, nsText(result.dependencies) as NSString, ratioText(result.dependenciesSpeedUp) as NSString,
            floorsText(result) as NSString))
}

print("\n## Results (\(rounds) interleaved rounds, medians; ns per operation)\n")
print(
    "| scenario | Graft ns/op | Swinject ns/op | swift-dependencies ns/op | Swinject / Graft | swift-dependencies / Graft | Graft / floor |"
)
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for result in results {
    print(
        String(
            format: "| %@ | %.1f | %.1f | %@ | %.1fx | %@ | %@ |", result.scenario.name, result.graft, result.swinject,
            nsText(result.dependencies), result.speedUp, ratioText(result.dependenciesSpeedUp), floorsText(result)))
}

// Start-up at scale, per registration.
if let startUp = results.first(where: { $0.scenario.name.hasPrefix("start-up") }) {
    let graftBytes = GraftWorkloads.startUpBytesPerRegistration()
    let swinjectBytes = SwinjectWorkloads.startUpBytesPerRegistration()
    print("\n## Start-up at scale: 10,000 registrations in 100 assemblies, each resolved once\n")
    print("| | Graft | Swinject |")
    print("| --- | ---: | ---: |")
    print(
        String(
            format: "| ns per registration (registered and resolved once) | %.1f | %.1f |",
            startUp.graft / 10_000, startUp.swinject / 10_000))
    print(String(format: "| heap bytes per registration | %.0f | %.0f |", graftBytes, swinjectBytes))
    startUpBytes = (graftBytes, swinjectBytes)
}

// The layers added since the first benchmarks, each next to the plain path it wraps.
var layerRatios: [(String, Double)] = []
if only == nil || "layers".contains(only!) {
    print("\n## New layers, each against the plain path it wraps (\(rounds) interleaved rounds, medians)\n")
    print("| layer | layer ns/op | plain ns/op | layer / plain |")
    print("| --- | ---: | ---: | ---: |")
    for (name, layer, plain) in GraftWorkloads.layers() {
        do {
            try layer.check()
            try plain.check()
        } catch {
            print("WRONG ANSWER in layer '\(name)': \(error)")
            failed = true
            continue
        }
        layer.run(2_000)
        plain.run(2_000)
        var layerTimes: [Double] = []
        var plainTimes: [Double] = []
        var ratios: [Double] = []
        for _ in 0..<rounds {
            let l = measure(5_000, layer.run)
            let p = measure(5_000, plain.run)
            layerTimes.append(l)
            plainTimes.append(p)
            ratios.append(l / p)
        }
        layerRatios.append((name, median(ratios)))
        print(
            String(format: "| %@ | %.1f | %.1f | %.2fx |", name, median(layerTimes), median(plainTimes), median(ratios))
        )
    }
}

@MainActor func result(_ name: String) -> Result? { results.first { $0.scenario.name == name } }

// Contention: what a resolution costs, in aggregate, on more threads than one, for Graft and for
// the two floors (a locked lookup, and a lookup with no lock that still returns a shared reference).
if let one = result("synchronized container-scoped") {
    let threaded = [2, 8].compactMap { count in result("\(count) threads, one synchronized view").map { (count, $0) } }
    if !threaded.isEmpty {
        print("\n## Contention: ns per resolution in aggregate, and against one thread\n")
        print(
            "| | 1 thread | " + threaded.map { "\($0.0) threads" }.joined(separator: " | ") + " | "
                + threaded.map { "\($0.0) / 1" }.joined(separator: " | ") + " |")
        print("|" + String(repeating: " --- |", count: 2 + 2 * threaded.count))
        let rows: [(String, Double, [Double])] =
            [("Graft, one synchronized view", one.graft, threaded.map { $0.1.graft })]
            + one.scenario.floors.enumerated().map { index, floor in
                ("floor: \(floor.rawValue)", one.floorTimes[index], threaded.map { $0.1.floorTimes[index] })
            }
        for (name, single, many) in rows {
            print(
                "| \(name) | \(nsText(single)) | " + many.map(nsText).joined(separator: " | ") + " | "
                    + many.map { String(format: "%.2fx", $0 / single) }.joined(separator: " | ") + " |")
        }
    }
}

// Floors, measured alone for reference.
for floor in [Floor.allocation, .bareAllocation, .mutex, .reference, .handWiredGraph] {
    let run = floor.workload()
    run(10_000)
    print(String(format: "floor %@: %.1f ns", floor.rawValue, median((0..<rounds).map { _ in measure(20_000, run) })))
}

// Heap allocations per operation, counted by the benchmark's malloc.
if only == nil {
    print("\n## Heap allocations per operation\n")
    print("| scenario | Graft | Swinject | swift-dependencies |")
    print("| --- | ---: | ---: | ---: |")
    for scenario in scenarios.prefix(9) {
        let graft = allocations(10_000, scenario.graft().run)
        let swinject = allocations(1_000, scenario.swinject().run)
        let dependencies = scenario.dependencies.map { allocations(10_000, $0().run) }
        print(
            String(
                format: "| %@ | %.2f | %.2f | %@ |", scenario.name, graft, swinject,
                dependencies.map { String(format: "%.2f", $0) } ?? "-"))
    }

    print("\n## Memory: resident bytes added by 1,000,000 resolutions of a 4-node graph\n")
    let graftGrowth = GraftWorkloads.memoryGrowth(1_000_000)
    let swinjectGrowth = SwinjectWorkloads.memoryGrowth(1_000_000)
    print("| Graft | Swinject |")
    print("| ---: | ---: |")
    print(String(format: "| %.1f MB | %.1f MB |", Double(graftGrowth) / 1e6, Double(swinjectGrowth) / 1e6))
    memoryFlat = graftGrowth < 4_000_000
    containerAllocations = allocations(10_000, GraftWorkloads.containerScoped().run)
}

// Targets.
var targets: [(String, Bool?)] = []
let resolveScenarios = results.filter {
    !$0.scenario.name.hasPrefix("registration") && !$0.scenario.name.hasPrefix("failed")
        && !$0.scenario.name.hasPrefix("start-up")
}
targets.append(
    (
        "every resolve scenario >= 10x faster than Swinject",
        resolveScenarios.isEmpty ? nil : resolveScenarios.allSatisfy { $0.speedUp >= 10 }
    ))
targets.append(("registration >= 5x faster", result("registration (1,000 via assembler)").map { $0.speedUp >= 5 }))
targets.append(("failed resolution >= 20x faster", result("failed resolution, logging off").map { $0.speedUp >= 20 }))
targets.append(("transient <= 3x the allocation floor", result("transient resolve")?.overFloor.map { $0 <= 3 }))
targets.append(
    (
        "synchronized container-scoped <= 3x the mutex floor",
        result("synchronized container-scoped")?.overFloor.map { $0 <= 3 }
    ))
targets.append(
    ("plain container-scoped < the mutex floor", result("container-scoped resolve")?.overFloor.map { $0 < 1 }))
if let one = result("synchronized container-scoped") {
    if let two = result("2 threads, one synchronized view") {
        let ratio = two.graft / one.graft
        targets.append(
            (
                "2 threads: a resolution in aggregate no dearer than on one (\(String(format: "%.2fx", ratio)))",
                ratio <= 1
            ))
    }
    if let eight = result("8 threads, one synchronized view") {
        let ratio = eight.graft / one.graft
        targets.append(
            ("8 threads: a resolution in aggregate cheaper than on one (\(String(format: "%.2fx", ratio)))", ratio < 1))
    }
}
targets.append(("zero allocations on a container-scoped resolve", containerAllocations.map { $0 == 0 }))
targets.append(
    ("transient <= 1.3x a bare allocation behind a call", result("transient resolve").map { $0.overFloors[1] <= 1.3 }))
targets.append(
    ("10-node graph <= 2x the hand-wired graph", result("10-node graph (18 resolves)")?.overFloor.map { $0 <= 2 }))
let dependenciesRows = results.filter { $0.dependenciesSpeedUp != nil }
targets.append(
    (
        "ahead of swift-dependencies on every row it can express",
        dependenciesRows.isEmpty ? nil : dependenciesRows.allSatisfy { $0.dependenciesSpeedUp! > 1 }
    ))
targets.append(
    (
        "start-up at scale >= 5x faster than Swinject",
        result("start-up: 10,000 services, 100 assemblies").map { $0.speedUp >= 5 }
    ))
targets.append(("start-up: fewer heap bytes per registration than Swinject", startUpBytes.map { $0.0 < $0.1 }))
for (name, ratio) in layerRatios {
    targets.append(("\(name) <= 1.5x its plain path (\(String(format: "%.2fx", ratio)))", ratio <= 1.5))
}
targets.append(("flat memory over 1,000,000 graph resolutions", memoryFlat))

print("\n## Targets\n")
for (target, met) in targets {
    print(
        "- [\(met == true ? "x" : " ")] \(target)\(met == nil ? " (not measured in this run)" : met! ? "" : ": NOT MET")"
    )
}
for slowest in resolveScenarios where slowest.speedUp < 10 {
    print("  below 10x: \(slowest.scenario.name) at \(String(format: "%.1fx", slowest.speedUp))")
}
if failed { exit(1) }
