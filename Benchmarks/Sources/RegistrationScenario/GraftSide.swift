import Graft

/// Graft's side of the registration scenario; SwinjectSide.swift is the same code against Swinject.
enum GraftSide {
    struct ThousandServices: Assembly {
        func assemble(container: Container) {
            for name in registrationNames { container.register(Registered.self, name: name) { _ in Registered() } }
        }
    }

    static func container() -> Container {
        let container = Container()
        for name in fillerNames { container.register(Filler.self, name: name) { _ in Filler() } }
        return container
    }

    static func check() throws {
        let assembler = ContainerAssembler([ThousandServices()], container: container())
        try require(assembler.resolver.resolve(Registered.self, name: registrationNames[999]) != nil, "Graft")
        try require(assembler.resolver.resolve(Filler.self, name: fillerNames[99]) != nil, "Graft: fillers")
    }

    static func prepare(_ shape: Shape, _ count: Int) -> [Container?] {
        shape == .ontoHundred ? (0..<count).map { _ in container() } : []
    }

    /// One repetition: `count` assemblies applied, each to a container of its own, then dropped.
    @inline(never)
    static func run(_ shape: Shape, _ count: Int, _ prepared: inout [Container?]) {
        switch shape {
        case .ontoHundred:
            for index in 0..<count {
                let assembler = ContainerAssembler([ThousandServices()], container: prepared[index]!)
                prepared[index] = nil  // the assembler holds the only reference: dropped below
                consume(assembler)
            }
        case .fresh:
            for _ in 0..<count { consume(ContainerAssembler([ThousandServices()])) }
        }
    }
}
