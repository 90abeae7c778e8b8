// Runs seeded model-based programs on Graft and on Swinject 2.10.0 and compares, step by step,
// nil-ness and identity patterns. Each difference is minimized, classified, and the summary is
// grouped by kind. Exit status 1 when a difference is not one of the intended ones below.
//
// Usage: differential [PROGRAMS] [FIRST_SEED]   (or DIFF_PROGRAMS / DIFF_SEED)

import GraftRunner
import ModelCore
import SwinjectRunner

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Documented, intended differences (see Documentation/MigratingFromSwinject.md).
let intended: [String: String] = [
    "constructor-cycle":
        "Swinject recurses to 200 levels and stops the process (the interpreter cuts it short); "
        + "Graft fails at the first re-entry, and the cycle fails the whole request the application started "
        + "(whatever Optional, ??, try? or ~> stood between): it returns nil and keeps nothing it made",
    "failed-resolution-rollback":
        "Graft keeps nothing a failed resolution made; in Swinject only cyclic resolutions fail, "
        + "so this shows up as constructor-cycle",
    "reset(serviceType:) — model agrees with Graft":
        "resetObjectScope(_:serviceType:) walks every ancestor in Graft; Swinject stops at the first "
        + "container that has no registration of that type",
    "graph-memory":
        "Graft's GraphStorage forgets a graph once its resolution ends; the model drops such steps",
]

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

let arguments = CommandLine.arguments
let count = (arguments.count > 1 ? Int(arguments[1]) : nil) ?? environment("DIFF_PROGRAMS").flatMap { Int($0) } ?? 1000
let firstSeed =
    (arguments.count > 2 ? UInt64(arguments[2]) : nil) ?? environment("DIFF_SEED").flatMap { UInt64($0) } ?? 1
let verbose = environment("DIFF_VERBOSE") == "1"

struct Comparison {
    var index: Int
    var kind: String
    var graft: Trace
    var swinject: Trace
    var model: Trace
}

func stepKind(_ step: MStep) -> String {
    switch step {
    case .register: return "register"
    case .forward: return "forward"
    case .resolve(_, let request): return "resolve(\(request.wrapper))"
    case .withObjectGraph: return "withObjectGraph"
    case .access: return "access"
    case .release: return "release"
    case .reset(_, _, let service): return service == nil ? "reset" : "reset(serviceType:)"
    case .removeAll: return "removeAll"
    case .resolveThroughView(_, let request): return "resolveThroughView(\(request.wrapper))"
    case .resolveOffMain(_, let request): return "resolveOffMain(\(request.wrapper))"
    case .resolveInOverrides(_, _, let request): return "resolveInOverrides(\(request.wrapper))"
    case .freeContainer: return "freeContainer"
    case .dumpContainer: return "dumpContainer"
    case .dumpSlot: return "dumpSlot"
    case .countLive: return "countLive"
    case .inspectRegistrations: return "inspectRegistrations"
    case .validate: return "validate"
    case .makeInjected: return "makeInjected"
    case .makeMainInjected: return "makeMainInjected"
    case .readRecent(_, let offMain): return offMain ? "readRecent(offMain)" : "readRecent"
    case .registerAsync: return "registerAsync"
    case .addBehavior: return "addBehavior"
    case .resolveInCopy(_, let request): return "resolveInCopy(\(request.wrapper))"
    }
}

/// The features of a (minimized) program that usually explain a difference.
func features(_ program: MProgram) -> String {
    var found: Set<String> = []
    for step in program.steps {
        switch step {
        case .register(let r):
            found.insert("scope:\(r.scope.identity)")
            if r.args != .none { found.insert("args:\(r.args)") }
            if r.name == .cafeDecomposed || r.name == .cafeComposed { found.insert("unicode-name") }
            if !r.completions.isEmpty { found.insert("initCompleted") }
            if !r.forwards.isEmpty { found.insert("implements") }
            if r.onDeinit != .none { found.insert("deinit:\(r.onDeinit)") }
            if r.factoryAction != .none { found.insert("factory:\(r.factoryAction)") }
            if r.dependencies.contains(where: { $0.wrapper == .discarded }) { found.insert("discarded") }
            if program.parents.count > 1 && r.container != 0 { found.insert("child-registration") }
        case .forward: found.insert("implements-later")
        case .reset(_, _, let service): found.insert(service == nil ? "reset" : "reset(serviceType:)")
        case .removeAll: found.insert("removeAll")
        case .withObjectGraph: found.insert("withObjectGraph")
        case .access: found.insert("access")
        case .release: found.insert("release")
        case .resolve: break
        case .resolveThroughView: found.insert("view")
        case .resolveOffMain: found.insert("off-main")
        case .resolveInOverrides: found.insert("overrides")
        case .freeContainer: found.insert("freeContainer")
        case .dumpContainer, .dumpSlot: found.insert("dump")
        case .countLive: found.insert("countLive")
        case .inspectRegistrations: found.insert("registrations")
        case .validate: found.insert("validate")
        case .makeInjected: found.insert("injected")
        case .makeMainInjected: found.insert("main-injected")
        case .readRecent(_, let offMain): found.insert(offMain ? "read-off-main" : "access")
        case .registerAsync: found.insert("registerAsync")
        case .addBehavior: found.insert("behavior")
        case .resolveInCopy: found.insert("copy")
        }
    }
    return found.sorted().joined(separator: " ")
}

/// Graft against Swinject on one (already modelled) program.
func compare(_ program: MProgram) -> Comparison? {
    let graft = GraftRunner.ContainerInterpreter.run(program).trace
    let swinject = SwinjectRunner.ContainerInterpreter.run(program)
    guard let index = firstDifference(graft, swinject.trace) else { return nil }
    let model = ReferenceModel.run(program).trace
    let kind: String
    if let aborted = swinject.abortedAt, aborted <= index {
        kind = "constructor-cycle"
    } else {
        let e = index < model.count ? model[index] : nil
        let side =
            e == (index < graft.count ? graft[index] : nil)
            ? "model agrees with Graft"
            : e == (index < swinject.trace.count ? swinject.trace[index] : nil)
                ? "model agrees with Swinject"
                : "model agrees with neither"
        let resetsByServiceType = program.steps.contains {
            if case .reset(_, _, let service) = $0 { return service != nil }
            return false
        }
        // A reset by service type that Graft carries further up the hierarchy than Swinject shows
        // at the next resolution, not at the reset itself.
        kind =
            side == "model agrees with Graft" && resetsByServiceType
            ? "reset(serviceType:) — model agrees with Graft"
            : "\(stepKind(program.steps[index])) — \(side)"
    }
    return Comparison(index: index, kind: kind, graft: graft, swinject: swinject.trace, model: model)
}

func show(_ trace: Trace, _ index: Int) -> String {
    index < trace.count ? "[" + trace[index].map(\.description).joined(separator: ", ") + "]" : "(missing)"
}

var groups: [String: (count: Int, example: String, seeds: [UInt64])] = [:]
var skippedSteps = 0
for seed in firstSeed..<(firstSeed + UInt64(count)) {
    if verbose { print("seed \(seed)") }
    // Only what Swinject has: no registerMain, @Injected, withResolver/withOverrides, views as
    // parents, nor deinit actions that show in the trace (Swinject's interpreter runs no deinit
    // action: Swinject 2.10 stops the process when a deinit resolves while a graph ends).
    let modelled = ReferenceModel.run(ProgramGenerator.generate(seed: seed, features: .swinjectCompatible))
    skippedSteps += modelled.skipped.count
    guard let found = compare(modelled.program) else { continue }
    let minimized = ProgramShrinker.shrink(modelled.program, budget: 1500) { candidate in
        let sanitized = ReferenceModel.run(candidate).program
        return sanitized == candidate && compare(candidate)?.kind == found.kind
    }
    let final = compare(minimized) ?? found
    let group = final.kind + (intended[final.kind] == nil ? " | " + features(minimized) : "")
    if groups[group] == nil {
        let example =
            "step \(final.index): Graft \(show(final.graft, final.index)), "
            + "Swinject \(show(final.swinject, final.index)), model \(show(final.model, final.index))\n"
            + minimized.render()
        groups[group] = (0, example, [])
    }
    groups[group]!.count += 1
    if groups[group]!.seeds.count < 8 { groups[group]!.seeds.append(seed) }
}

print("Differential run: \(count) programs from seed \(firstSeed) (\(skippedSteps) unmodelled steps dropped)")
var unexpected = 0
for (group, info) in groups.sorted(by: { $0.value.count > $1.value.count }) {
    let kind = String(group.split(separator: "|").first ?? "").trimmingCharacters()
    let isIntended = intended[kind] != nil
    if !isIntended { unexpected += info.count }
    print("\n== \(isIntended ? "intended" : "UNEXPECTED"): \(group) — \(info.count) program(s), seeds \(info.seeds)")
    if let why = intended[kind] { print("   (\(why))") }
    print(info.example.split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
}
print("\n\(groups.values.reduce(0) { $0 + $1.count }) program(s) differ, \(unexpected) unexpectedly")
exit(unexpected == 0 ? 0 : 1)

extension String {
    func trimmingCharacters() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
