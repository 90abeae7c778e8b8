import Foundation
import Swinject

// Same start-up as GraftLayers.swift's, compiled against Swinject: keep the two in step.
extension SwinjectWorkloads {
    struct HundredServices: Assembly {
        let names: [String]
        func assemble(container: Container) {
            for name in names { container.register(Service.self, name: name) { _ in Service() } }
        }
    }

    /// One operation: 10,000 registrations through 100 assemblies, then each resolved once.
    static func startUp() -> Workload {
        func run() -> Int {
            let assembler = Assembler(startUpNames.map(HundredServices.init))
            let resolver = assembler.resolver
            var resolved = 0
            for names in startUpNames {
                for name in names where resolver.resolve(Service.self, name: name) != nil { resolved += 1 }
            }
            return resolved
        }
        return Workload(
            check: { try require(run() == 10_000, "Swinject: start-up resolved fewer than 10,000") },
            run: { count in for _ in 0..<count { BlackHole.consume(run() as AnyObject) } }
        )
    }

    /// Heap bytes in use per registration of the start-up container, kept alive.
    static func startUpBytesPerRegistration() -> Double {
        let before = heapInUse()
        let assembler = Assembler(startUpNames.map(HundredServices.init))
        let after = heapInUse()
        withExtendedLifetime(assembler) {}
        return Double(after - before) / 10_000
    }
}
