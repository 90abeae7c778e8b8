import Foundation

// The registration scenario alone, timed in a process that does not count allocations
// (RegistrationTimes), or that does (RegistrationTimesCounted, the same code with the benchmark's
// counting `malloc` linked in): the difference between the two is what counting costs each library.

/// What a repetition starts from.
public enum Shape: String, CaseIterable, Sendable {
    /// An assembler applying one assembly of 1,000 named registrations to a container that already
    /// holds 100 other registrations (made before the clock starts), then the container dropped.
    case ontoHundred = "1,000 via assembler onto a container of 100"
    /// GraftBenchmarks' row: an assembler making its own empty container, then dropped.
    case fresh = "1,000 via assembler, new empty container"
}

final class Registered {}
final class Filler {}

let fillerNames = (0..<100).map { "filler-\($0)" }
let registrationNames = (0..<1_000).map { "service-\($0)" }

/// Assemblies per timed repetition: by default one, 1,000 registrations. A repetition must be short
/// beside the scheduler's time slice: on a machine busy with other work, one of several milliseconds
/// (Swinject's, at ten assemblies) is nearly always interrupted, one of well under a millisecond
/// seldom, and the median of the per-round ratios then measures the interruptions.
let assembliesPerRepetition = Int(ProcessInfo.processInfo.environment["REGBENCH_ASSEMBLIES"] ?? "") ?? 1

/// Jiffies the machine's cores spent busy and in all, since boot (/proc/stat's first line).
func cpuJiffies() -> (busy: Double, total: Double) {
    let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
    let fields = stat.split(separator: "\n").first?.split(separator: " ").dropFirst().compactMap { Double($0) } ?? []
    guard fields.count >= 5 else { return (0, 1) }
    let total = fields.reduce(0, +)
    return (total - fields[3] - fields[4], total)  // idle and iowait are not busy
}

nonisolated(unsafe) var sink: UInt = 0  // main thread only

/// Keeps a result alive until here, so the optimizer cannot drop the work that made it.
@inline(never)
func consume(_ value: AnyObject) { sink &+= UInt(bitPattern: ObjectIdentifier(value)) }

struct WrongAnswer: Error { let library: String }

func require(_ condition: Bool, _ library: String) throws {
    if !condition { throw WrongAnswer(library: library) }
}

func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The `fraction` quantile, interpolated between the two nearest values.
func quantile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    let position = fraction * Double(sorted.count - 1)
    let lower = Int(position)
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
}

/// Minor page faults of this process so far: memory the kernel maps in on first touch, as it does
/// for a large allocation, or for the heap grown again after the allocator gave its top back.
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// What one repetition took, per registration: wall-clock nanoseconds, this thread's CPU
/// nanoseconds (less than the wall-clock time when another process ran on its core meanwhile), and
/// minor page faults.
struct Repetition {
    let nanoseconds: Double
    let cpuNanoseconds: Double
    let faults: Double
}

/// One library's repetition: the containers it needs are made first, outside the time.
struct Side {
    let name: String
    let run: () -> Repetition

    static func graft(_ shape: Shape) -> Side {
        Side(name: "Graft") {
            var prepared = GraftSide.prepare(shape, assembliesPerRepetition)
            return timed { GraftSide.run(shape, assembliesPerRepetition, &prepared) }
        }
    }

    static func swinject(_ shape: Shape) -> Side {
        Side(name: "Swinject") {
            var prepared = SwinjectSide.prepare(shape, assembliesPerRepetition)
            return timed { SwinjectSide.run(shape, assembliesPerRepetition, &prepared) }
        }
    }

    /// Times `body`, one repetition, per registration: wall clock, the thread's CPU time, and
    /// minor page faults.
    private static func timed(_ body: () -> Void) -> Repetition {
        let faults = minorFaults()
        let cpuStart = now(CLOCK_THREAD_CPUTIME_ID)
        let start = now()
        body()
        let end = now()
        let cpuEnd = now(CLOCK_THREAD_CPUTIME_ID)
        let registrations = Double(assembliesPerRepetition * registrationNames.count)
        return Repetition(
            nanoseconds: Double(end - start) / registrations,
            cpuNanoseconds: Double(cpuEnd - cpuStart) / registrations,
            faults: Double(minorFaults() - faults) / registrations)
    }
}

/// Heap allocations per registration of one repetition, `count` being the process's count.
func allocationsPerRegistration(_ count: () -> UInt64, _ shape: Shape, graft: Bool) -> Double {
    var graftPrepared = GraftSide.prepare(shape, assembliesPerRepetition)
    var swinjectPrepared = SwinjectSide.prepare(shape, assembliesPerRepetition)
    let before = count()
    if graft {
        GraftSide.run(shape, assembliesPerRepetition, &graftPrepared)
    } else {
        SwinjectSide.run(shape, assembliesPerRepetition, &swinjectPrepared)
    }
    return Double(count() - before) / Double(assembliesPerRepetition * registrationNames.count)
}

/// Times Swinject and Graft in alternating rounds (each round runs one repetition of each, the
/// first library alternating between rounds) and prints every round, then the median of the
/// per-round ratios (Swinject's time over Graft's) with its quartiles. `allocationCount`, given
/// where the process counts allocations, adds allocations per registration.
public func runRegistrationComparison(label: String, allocationCount: (() -> UInt64)?) throws {
    let environment = ProcessInfo.processInfo.environment
    let rounds = Int(environment["REGBENCH_ROUNDS"] ?? "") ?? 101
    let shapes = Shape.allCases.filter { environment["REGBENCH_SHAPE"].map($0.rawValue.contains) ?? true }
    try GraftSide.check()
    try SwinjectSide.check()

    // Only one library's repetitions, for a profiler: REGBENCH_PROFILE=Graft or Swinject.
    if let profiled = environment["REGBENCH_PROFILE"] {
        for shape in shapes {
            let side = profiled == "Graft" ? Side.graft(shape) : Side.swinject(shape)
            for _ in 0..<rounds { _ = side.run() }
        }
        return
    }

    print(
        "# \(label): \(rounds) rounds, \(assembliesPerRepetition * registrationNames.count) registrations per repetition"
    )
    print("# load average at start: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")")
    for shape in shapes {
        let graft = Side.graft(shape)
        let swinject = Side.swinject(shape)
        _ = graft.run()  // warm-up: caches and the allocator reach their size
        _ = swinject.run()
        var graftTimes: [Double] = []
        var swinjectTimes: [Double] = []
        var ratios: [Double] = []
        let cpuBefore = cpuJiffies()
        print(
            "\n## \(shape.rawValue)\nround\tfirst\tSwinject ns/reg\tGraft ns/reg\tSwinject / Graft\tSwinject faults/reg\tGraft faults/reg\tSwinject CPU ns/reg\tGraft CPU ns/reg"
        )
        for round in 0..<rounds {
            let graftFirst = round.isMultiple(of: 2)
            let (graftRun, swinjectRun) =
                graftFirst
                ? (graft.run(), swinject.run())
                : {
                    let s = swinject.run(); return (graft.run(), s)
                }()
            let (g, s) = (graftRun.nanoseconds, swinjectRun.nanoseconds)
            graftTimes.append(g)
            swinjectTimes.append(s)
            ratios.append(s / g)
            print(
                String(
                    format: "%d\t%@\t%.1f\t%.1f\t%.2f\t%.3f\t%.3f\t%.1f\t%.1f", round,
                    graftFirst ? "Graft" : "Swinject",
                    s, g, s / g, swinjectRun.faults, graftRun.faults, swinjectRun.cpuNanoseconds,
                    graftRun.cpuNanoseconds))
        }
        let cpuAfter = cpuJiffies()
        // Cores busy during the rounds, this process's one included: 1 on an otherwise idle machine.
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let busy = cores * (cpuAfter.busy - cpuBefore.busy) / max(1, cpuAfter.total - cpuBefore.total)
        print(String(format: "busy\t%.2f cores busy during the rounds (this process's one included)", busy))
        print(
            String(
                format: "summary\t%@\t%@\tratio median %.2fx, IQR %.2f to %.2f, range %.2f to %.2f; "
                    + "Graft median %.1f ns/reg (IQR %.1f to %.1f), Swinject median %.1f ns/reg (IQR %.1f to %.1f)",
                label, shape.rawValue, quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75),
                ratios.min()!, ratios.max()!, quantile(graftTimes, 0.5), quantile(graftTimes, 0.25),
                quantile(graftTimes, 0.75), quantile(swinjectTimes, 0.5), quantile(swinjectTimes, 0.25),
                quantile(swinjectTimes, 0.75)))
        if let allocationCount {
            print(
                String(
                    format: "allocations\t%@\tper registration: Graft %.2f, Swinject %.2f", shape.rawValue,
                    allocationsPerRegistration(allocationCount, shape, graft: true),
                    allocationsPerRegistration(allocationCount, shape, graft: false)))
        }
    }
}
