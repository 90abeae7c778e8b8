import Swinject

// Same workloads as GraftWorkloads.swift, compiled against Swinject: keep the two in step.
/// Swinject's side of every scenario.
enum SwinjectWorkloads {
    /// A container holding the 100 unrelated registrations every scenario has.
    static func container(parent: Container? = nil) -> Container {
        let container = Container(parent: parent)
        for name in fillerNames { container.register(Filler.self, name: name) { _ in Filler() } }
        return container
    }

    static func transient() -> Workload {
        let container = container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.transient)
        return resolving("Swinject") { container.resolve(Service.self) }
    }

    static func containerScoped() -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let first = container.resolve(Singleton.self)
        return resolving("Swinject", { container.resolve(Singleton.self) }) { $0 === first }
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

    static func graph() -> Workload {
        let container = container()
        registerGraph(container)
        return resolving("Swinject", { container.resolve(Root.self) }, check: isConsistent)
    }

    static func named() -> Workload {
        let container = container()
        for (index, name) in namedNames.enumerated() {
            container.register(Named.self, name: name) { _ in Named(index: index) }.inObjectScope(.transient)
        }
        let name = namedNames[7]
        return Workload(
            check: { try require(container.resolve(Named.self, name: name)?.index == 7, "Swinject: wrong named") },
            run: { count in for _ in 0..<count { BlackHole.consume(container.resolve(Named.self, name: name)) } }
        )
    }

    static func oneArgument() -> Workload {
        let container = container()
        container.register(WithArguments.self) { (_, a: Int) in WithArguments(a) }.inObjectScope(.transient)
        return Workload(
            check: {
                try require(container.resolve(WithArguments.self, argument: 42)?.sum == 42, "Swinject: 1 argument")
            },
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
                    container.resolve(WithArguments.self, arguments: 1, "ab", 3.0)?.sum == 6, "Swinject: 3 arguments")
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
        return resolving("Swinject") { grandchild.resolve(Service.self) }
    }

    static func synchronizedTransient() -> Workload {
        let container = container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.transient)
        let resolver = container.synchronize()
        return resolving("Swinject") { resolver.resolve(Service.self) }
    }

    static func synchronizedContainerScoped() -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let first = container.resolve(Singleton.self)
        let resolver = container.synchronize()
        return resolving("Swinject", { resolver.resolve(Singleton.self) }) { $0 === first }
    }

    static func threads(_ threads: Int) -> Workload {
        let container = container()
        container.register(Singleton.self) { _ in Singleton() }.inObjectScope(.container)
        let resolver = UncheckedResolver(container.synchronize())
        return Workload(
            check: { try require(resolver.resolve(Singleton.self) != nil, "Swinject: threads") },
            run: { count in
                onThreads(threads, perThread: count / threads) { perThread in
                    var found = 0
                    for _ in 0..<perThread where resolver.resolve(Singleton.self) != nil { found += 1 }
                    precondition(found == perThread, "Swinject: a threaded resolution failed")
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
                let assembler = Assembler([ThousandServices()], container: container())
                try require(
                    assembler.resolver.resolve(Service.self, name: registrationNames[999]) != nil,
                    "Swinject: registration")
            },
            run: { count in
                for _ in 0..<(count / registrationNames.count) {
                    BlackHole.consume(Assembler([ThousandServices()]))
                }
            }
        )
    }

    static func failedResolution() -> Workload {
        // Swinject logs only when SWINJECT_LOGGING_ENABLED=1, which the benchmark does not set;
        // it still describes every registration for the message it then drops.
        let container = container()
        container.register(Service.self) { _ in Service() }
        return Workload(
            check: { try require(container.resolve(Singleton.self) == nil, "Swinject: unregistered type resolved") },
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

/// Swinject's synchronized resolver is safe to share but not declared `Sendable`.
struct UncheckedResolver: @unchecked Sendable {  // wraps Swinject's lock-guarded synchronized container
    let resolver: Resolver
    init(_ resolver: Resolver) { self.resolver = resolver }
    func resolve<T>(_ type: T.Type) -> T? { resolver.resolve(type) }
}
