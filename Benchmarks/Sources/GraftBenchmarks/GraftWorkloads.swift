import Graft

// Same workloads as SwinjectWorkloads.swift, compiled against Graft: keep the two in step.
/// Graft's side of every scenario.
enum GraftWorkloads {
    /// The names of the 100 unrelated registrations of the containers made next: `fillerNames`,
    /// except while the instruction gate builds workloads with other names.
    nonisolated(unsafe) static var fillers = fillerNames  // main thread only

    /// A container holding the 100 unrelated registrations every scenario has.
    static func container(parent: Container? = nil) -> Container {
        let container = Container(parent: parent)
        for name in fillers { container.register(Filler.self, name: name) { _ in Filler() } }
        return container
    }

    static func transient() -> Workload {
        let container = container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.transient)
        return resolving("Graft") { container.resolve(Service.self) }
    }

    static func containerScoped() -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let first = container.resolve(Singleton.self)
        return resolving("Graft", { container.resolve(Singleton.self) }) { $0 === first }
    }

    static func registerGraph(_ container: Container) {
        container.register(N9.self) { _ in N9() }
        container.register(N8.self) { _ in N8() }
        container.register(N7.self) { r in N7(r.resolve(N9.self)!) }
        container.register(N6.self) { r in N6(r.resolve(N9.self)!) }
        container.register(N5.self) { r in N5(r.resolve(N8.self)!) }
        container.register(N4.self) { r in N4(r.resolve(N8.self)!) }
        container.register(N3.self) { r in N3(r.resolve(N5.self)!, r.resolve(N6.self)!, r.resolve(N7.self)!) }
        container.register(N2.self) { r in N2(r.resolve(N4.self)!, r.resolve(N6.self)!) }
        container.register(N1.self) { r in N1(r.resolve(N4.self)!, r.resolve(N5.self)!) }
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        container.register(Root.self) { r in Root(r.resolve(N1.self)!, r.resolve(N2.self)!, r.resolve(N3.self)!) }
            .initCompleted { r, root in
                root.n8 = r.resolve(N8.self)
                root.n9 = r.resolve(N9.self)
                root.singleton = r.resolve(Singleton.self)
            }
    }

    /// ``registerGraph(_:)`` with factories that `require` their dependencies (the style that
    /// makes a missing one a thrown, validated error) instead of force-unwrapping `resolve`. The
    /// same graph spelled the other way, line for line: keep the two in step.
    static func registerGraphRequiring(_ container: Container) {
        container.register(N9.self) { _ in N9() }
        container.register(N8.self) { _ in N8() }
        container.register(N7.self) { r in try N7(r.require(N9.self)) }
        container.register(N6.self) { r in try N6(r.require(N9.self)) }
        container.register(N5.self) { r in try N5(r.require(N8.self)) }
        container.register(N4.self) { r in try N4(r.require(N8.self)) }
        container.register(N3.self) { r in try N3(r.require(N5.self), r.require(N6.self), r.require(N7.self)) }
        container.register(N2.self) { r in try N2(r.require(N4.self), r.require(N6.self)) }
        container.register(N1.self) { r in try N1(r.require(N4.self), r.require(N5.self)) }
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        container.register(Root.self) { r in try Root(r.require(N1.self), r.require(N2.self), r.require(N3.self)) }
            .initCompleted { r, root in
                root.n8 = try? r.require(N8.self)
                root.n9 = try? r.require(N9.self)
                root.singleton = try? r.require(Singleton.self)
            }
    }

    static func graph() -> Workload {
        let container = container()
        registerGraph(container)
        return resolving("Graft", { container.resolve(Root.self) }, check: isConsistent)
    }

    static func named() -> Workload {
        let container = container()
        for (index, name) in namedNames.enumerated() {
            container.register(Named.self, name: name) { _ in Named(index: index) }.inObjectScope(.transient)
        }
        let name = namedNames[7]
        return Workload(
            check: { try require(container.resolve(Named.self, name: name)?.index == 7, "Graft: wrong named") },
            run: { count in for _ in 0..<count { BlackHole.consume(container.resolve(Named.self, name: name)) } }
        )
    }

    static func oneArgument() -> Workload {
        let container = container()
        container.register(WithArguments.self) { (_, a: Int) in WithArguments(a) }.inObjectScope(.transient)
        return Workload(
            check: { try require(container.resolve(WithArguments.self, argument: 42)?.sum == 42, "Graft: 1 argument") },
            run: { count in
                for index in 0..<count { BlackHole.consume(container.resolve(WithArguments.self, argument: index)) }
            }
        )
    }

    static func threeArguments() -> Workload {
        let container = container()
        container.register(WithArguments.self) { (_, a: Int, b: String, c: Double) in
            WithArguments(a + b.utf8.count + Int(c))
        }.inObjectScope(.transient)
        return Workload(
            check: {
                try require(
                    container.resolve(WithArguments.self, arguments: 1, "ab", 3.0)?.sum == 6, "Graft: 3 arguments")
            },
            run: { count in
                for index in 0..<count {
                    BlackHole.consume(container.resolve(WithArguments.self, arguments: index, "ab", 3.0))
                }
            }
        )
    }

    static func grandchild() -> Workload {
        let root = container()
        root.register(Service.self) { _ in Service() }.inObjectScope(.transient)
        let grandchild = container(parent: container(parent: root))
        return resolving("Graft") { grandchild.resolve(Service.self) }
    }

    static func synchronizedTransient() -> Workload {
        let container = container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.transient)
        let resolver = container.synchronize()
        return resolving("Graft") { resolver.resolve(Service.self) }
    }

    static func synchronizedContainerScoped() -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let first = container.resolve(Singleton.self)
        let resolver = container.synchronize()
        return resolving("Graft", { resolver.resolve(Singleton.self) }) { $0 === first }
    }

    static func threads(_ threads: Int) -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let resolver = container.synchronize()
        return Workload(
            check: { try require(resolver.resolve(Singleton.self) != nil, "Graft: threads") },
            run: { count in
                onThreads(threads, perThread: count / threads) { perThread in
                    var found = 0
                    for _ in 0..<perThread where resolver.resolve(Singleton.self) != nil { found += 1 }
                    precondition(found == perThread, "Graft: a threaded resolution failed")
                }
            }
        )
    }

    struct ThousandServices: Assembly {
        func assemble(container: Container) {
            for name in registrationNames { container.register(Service.self, name: name) { _ in Service() } }
        }
    }

    static func registration() -> Workload {
        Workload(
            check: {
                let assembler = ContainerAssembler([ThousandServices()], container: container())
                try require(
                    assembler.resolver.resolve(Service.self, name: registrationNames[999]) != nil, "Graft: registration"
                )
            },
            run: { count in
                for _ in 0..<(count / registrationNames.count) {
                    BlackHole.consume(ContainerAssembler([ThousandServices()]))
                }
            }
        )
    }

    /// As ``registration()``, without the assembler: each `register` a call of its own on the
    /// container, the way code registers outside an assembly.
    static func directRegistration() -> Workload {
        func registered() -> Container {
            let container = Container()  // as the assembler's: no fillers
            ThousandServices().assemble(container: container)
            return container
        }
        return Workload(
            check: {
                try require(
                    registered().resolve(Service.self, name: registrationNames[999]) != nil,
                    "Graft: direct registration")
            },
            run: { count in
                for _ in 0..<(count / registrationNames.count) { BlackHole.consume(registered()) }
            }
        )
    }

    static func failedResolution() -> Workload {
        Container.loggingFunction = nil
        let container = container()
        container.register(Service.self) { _ in Service() }
        return Workload(
            check: { try require(container.resolve(Singleton.self) == nil, "Graft: unregistered type resolved") },
            run: { count in for _ in 0..<count { BlackHole.consume(container.resolve(Singleton.self)) } }
        )
    }

    /// Resident bytes added by `count` resolutions of a 4-node graph.
    static func memoryGrowth(_ count: Int) -> Int {
        let container = container()
        container.register(Leaf.self) { _ in Leaf() }
        container.register(Branch.self) { r in Branch(r.resolve(Leaf.self)!, r.resolve(Leaf.self)!) }
        container.register(Tree.self) { r in Tree(r.resolve(Branch.self)!, r.resolve(Leaf.self)!) }
        for _ in 0..<10_000 { BlackHole.consume(container.resolve(Tree.self)) }
        let before = residentBytes()
        for _ in 0..<count { BlackHole.consume(container.resolve(Tree.self)) }
        return residentBytes() - before
    }
}
