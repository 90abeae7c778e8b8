import Foundation
import Graft
import Testing

private final class Stamp: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class Unrelated {}

/// How many times each async registration's factory has run.
private final class Builds: @unchecked Sendable {  // `counts` is only touched under `lock`
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    /// Counts a build of registration `id`; returns how many ran before it.
    func next(_ id: Int) -> Int {
        lock.withLock {
            defer { counts[id, default: 0] += 1 }
            return counts[id, default: 0]
        }
    }
}

/// Which registration of the service each container holds, in the model.
private enum ModelRegistration: Equatable {
    case none
    case synchronous
    /// An async registration, by its number.
    case async(Int)
}

/// Seeded random programs over a root container, its child and its grandchild: async and
/// synchronous registrations of one service, unrelated registrations, `removeAll`, `resetObjectScope`,
/// containers replaced or made for one resolution and dropped, and resolutions through each
/// container's view, checked step by step against a model of the registration a lookup finds.
///
/// `resolveAsync` keeps an answer from an earlier lookup (a built service, and what it knew of the
/// tables then); these programs look for a step after which that answer no longer matches the
/// registration a lookup would find. After each resolution of an async registration they also
/// check what `registrations` lists for it: its scope, its resolutions (`resolveAsync` and
/// `resolve` both count) and the instances its builds made. Each of those three misreported on
/// purpose is found by the first program.
@Suite struct AsyncRegistrationModelTests {
    @Test func randomProgramsMatchTheModel() async throws {
        for seed in UInt64(1)...1000 {
            if let mismatch = try await run(seed: seed, steps: 40) {
                Issue.record(Comment(rawValue: mismatch))
                return
            }
        }
    }

    /// Runs one program; returns its trace ending at the first step that differs from the model.
    private func run(seed: UInt64, steps: Int) async throws -> String? {
        var random = SplitMix64(seed: seed)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        let builds = Builds()
        let parents = [-1, 0, 1]
        var containers: [Container] = []
        for index in 0..<3 { containers.append(Container(parent: index == 0 ? nil : containers[index - 1])) }
        var model: [ModelRegistration] = [.none, .none, .none]
        var built: [Int: Int] = [:]  // registration number -> serial of the instance kept
        var madeBuilds: [Int: Int] = [:]  // registration number -> builds so far
        var resolutions: [Int: Int] = [:]  // registration number -> resolutions counted so far
        var registrations = 0
        var trace = ["seed \(seed):"]

        /// The level of the container whose registration a lookup from `index` finds, walking up.
        func holder(from index: Int) -> Int? {
            var level = index
            while level >= 0 {
                if model[level] != .none { return level }
                level = parents[level]
            }
            return nil
        }

        /// The registration a lookup from `index` finds.
        func found(from index: Int) -> ModelRegistration {
            holder(from: index).map { model[$0] } ?? .none
        }

        /// Checks `resolveAsync` and `resolve` through a view of `container`, whose lookup the model
        /// answers from `index` (with `container`'s own registrations, if any, not in the model).
        func check(_ container: Container, from index: Int) async -> String? {
            let view = container.synchronize()
            let registration = found(from: index)
            let async: Int?
            do { async = try await view.resolveAsync(Stamp.self).serial } catch { async = nil }
            var expectedAsync: Int?
            if case .async(let id) = registration {
                if built[id] == nil {
                    built[id] = id * 1000 + madeBuilds[id, default: 0]
                    madeBuilds[id, default: 0] += 1
                }
                expectedAsync = built[id]
            }
            guard async == expectedAsync else {
                return "resolveAsync gave \(async.map(String.init) ?? "a failure"), "
                    + "the model \(expectedAsync.map(String.init) ?? "a failure")"
            }
            let sync = view.resolve(Stamp.self)?.serial
            let expectedSync: Int? =
                switch registration {
                case .none: nil
                case .synchronous: -1
                case .async(let id): built[id]
                }
            guard sync == expectedSync else {
                return
                    "resolve gave \(sync.map(String.init) ?? "nil"), the model \(expectedSync.map(String.init) ?? "nil")"
            }
            // `registrations` of the container holding an async registration reports its own scope,
            // both resolutions just made, and the builds its factory ran.
            guard case .async(let id) = registration, let level = holder(from: index) else { return nil }
            resolutions[id, default: 0] += 2
            let row = containers[level].registrations.first {
                $0.serviceType == Stamp.self && $0.name == nil && $0.containerLevel == 0
            }
            guard let row else { return "registrations lists no Stamp in c\(level)" }
            let listed = "\(row.objectScope), resolved \(row.resolutionCount), made \(row.instanceCount)"
            let modelled = "container, resolved \(resolutions[id, default: 0]), made \(madeBuilds[id, default: 0])"
            guard listed == modelled else { return "registrations lists Stamp as \(listed), the model \(modelled)" }
            return nil
        }

        for _ in 0..<steps {
            let index = pick(3)
            let step = pick(100)
            switch step {
            case 0..<20:
                registrations += 1
                let id = registrations
                containers[index].registerAsync(Stamp.self) { _ in Stamp(serial: id * 1000 + builds.next(id)) }
                model[index] = .async(id)
                trace.append("  c\(index).registerAsync  // registration \(id)")
            case 20..<33:
                containers[index].register(Stamp.self) { _ in Stamp(serial: -1) }
                model[index] = .synchronous
                trace.append("  c\(index).register")
            case 33..<40:
                if pick(2) == 0 {
                    containers[index].register(Unrelated.self) { _ in Unrelated() }
                } else {
                    containers[index].register(Stamp.self, name: "spare") { _ in Stamp(serial: -2) }
                }
                trace.append("  c\(index).register(another key)")
            case 40..<47:
                containers[index].removeAll()
                model[index] = .none
                trace.append("  c\(index).removeAll()")
            case 47..<53:
                containers[index].resetObjectScope(.container)
                var level = index
                while level >= 0 {
                    if case .async(let id) = model[level] { built[id] = nil }
                    level = parents[level]
                }
                trace.append("  c\(index).resetObjectScope(.container)")
            case 53..<58 where index > 0:
                // A new container in place of this one (and of its descendants).
                for level in index..<3 {
                    containers[level] = Container(parent: containers[level - 1])
                    model[level] = .none
                }
                trace.append("  c\(index) and below replaced by new containers")
            case 58..<64:
                trace.append("  resolve through a new child of c\(index), then drop it")
                if let mismatch = await check(Container(parent: containers[index]), from: index) {
                    return (trace + ["  -> " + mismatch]).joined(separator: "\n")
                }
            case 64..<68:
                trace.append("  resolve through a new child of a new child of c\(index), then drop both")
                let between = Container(parent: containers[index])
                if let mismatch = await check(Container(parent: between), from: index) {
                    return (trace + ["  -> " + mismatch]).joined(separator: "\n")
                }
            default:
                trace.append("  resolve through c\(index)")
                if let mismatch = await check(containers[index], from: index) {
                    return (trace + ["  -> " + mismatch]).joined(separator: "\n")
                }
            }
        }
        return nil
    }
}
