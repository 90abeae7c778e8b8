import Dependencies

// swift-dependencies in its idiomatic form: each service is a `DependencyKey` with a `liveValue`,
// exposed as a `DependencyValues` property and read through `@Dependency` in the type that uses
// it; reading the property is the resolution. The library caches every live value it has read
// once, so a `liveValue` that is an object is one shared instance (the container-scoped rows); a
// service made anew on each use, with or without arguments, is a dependency whose value is a
// closure that makes it (a "client", as the library's documentation designs them).

/// Makes a new `Service` on each call: the transient rows.
struct ServiceClient: Sendable {
    var make: @Sendable () -> Service
}

/// Makes a `WithArguments` from one or three arguments: the argument rows.
struct WithArgumentsClient: Sendable {
    var makeOne: @Sendable (Int) -> WithArguments
    var makeThree: @Sendable (Int, String, Double) -> WithArguments
}

/// How many `withDependencies` scopes enclose a read: what the hierarchy row's scopes override.
struct ScopeDepth: Sendable {
    var depth: Int
}

extension ServiceClient: DependencyKey {
    static let liveValue = ServiceClient { Service() }
}

extension WithArgumentsClient: DependencyKey {
    static let liveValue = WithArgumentsClient(
        makeOne: { a in WithArguments(a) },
        makeThree: { a, b, c in WithArguments(a + b.utf8.count + Int(c)) }
    )
}

extension ScopeDepth: DependencyKey {
    static let liveValue = ScopeDepth(depth: 0)
}

private enum SingletonKey: DependencyKey {
    static let liveValue = Singleton()
}

// One property per key, each the same accessor: `@Dependency` reads a dependency through its key path.
extension DependencyValues {
    var serviceClient: ServiceClient {
        get { self[ServiceClient.self] }
        set { self[ServiceClient.self] = newValue }
    }
    var withArgumentsClient: WithArgumentsClient {
        get { self[WithArgumentsClient.self] }
        set { self[WithArgumentsClient.self] = newValue }
    }
    var scopeDepth: ScopeDepth {
        get { self[ScopeDepth.self] }
        set { self[ScopeDepth.self] = newValue }
    }
    var singleton: Singleton {
        get { self[SingletonKey.self] }
        set { self[SingletonKey.self] = newValue }
    }
}

/// The type that uses the services, as an application's model would: each row reads one of its
/// properties per operation.
struct DependenciesUser: Sendable {
    @Dependency(\.serviceClient) var serviceClient
    @Dependency(\.withArgumentsClient) var withArgumentsClient
    @Dependency(\.singleton) var singleton
    @Dependency(\.scopeDepth) var scopeDepth
}

/// swift-dependencies' side of the scenarios that have an equivalent there.
enum DependenciesWorkloads {
    static func transient() -> Workload {
        let user = DependenciesUser()
        return Workload(
            check: {
                let first = user.serviceClient.make()
                try require(first !== user.serviceClient.make(), "swift-dependencies: transient shared")
            },
            run: { count in for _ in 0..<count { BlackHole.consume(user.serviceClient.make()) } }
        )
    }

    static func containerScoped() -> Workload {
        let user = DependenciesUser()
        let first = user.singleton
        return Workload(
            check: {
                try require(
                    user.singleton === first && DependenciesUser().singleton === first, "swift-dependencies: singleton")
            },
            run: { count in for _ in 0..<count { BlackHole.consume(user.singleton) } }
        )
    }

    static func oneArgument() -> Workload {
        let user = DependenciesUser()
        return Workload(
            check: { try require(user.withArgumentsClient.makeOne(42).sum == 42, "swift-dependencies: 1 argument") },
            run: { count in
                for index in 0..<count { BlackHole.consume(user.withArgumentsClient.makeOne(index)) }
            }
        )
    }

    static func threeArguments() -> Workload {
        let user = DependenciesUser()
        return Workload(
            check: {
                try require(
                    user.withArgumentsClient.makeThree(1, "ab", 3.0).sum == 6, "swift-dependencies: 3 arguments")
            },
            run: { count in
                for index in 0..<count { BlackHole.consume(user.withArgumentsClient.makeThree(index, "ab", 3.0)) }
            }
        )
    }

    /// A child container is a `withDependencies` scope that overrides one dependency; the
    /// grandchild is a scope inside it. The service read there is the root's live value.
    static func grandchild() -> Workload {
        func inGrandchild<R>(_ body: (DependenciesUser) throws -> R) rethrows -> R {
            try withDependencies {
                $0.scopeDepth = ScopeDepth(depth: 1)
            } operation: {
                try withDependencies {
                    $0.scopeDepth = ScopeDepth(depth: 2)
                } operation: {
                    try body(DependenciesUser())
                }
            }
        }
        return Workload(
            check: {
                try inGrandchild { user in
                    try require(user.scopeDepth.depth == 2, "swift-dependencies: scope override not seen")
                    try require(
                        user.serviceClient.make() !== user.serviceClient.make(), "swift-dependencies: grandchild")
                }
            },
            run: { count in
                inGrandchild { user in for _ in 0..<count { BlackHole.consume(user.serviceClient.make()) } }
            }
        )
    }

    static func threads(_ threads: Int) -> Workload {
        let user = DependenciesUser()
        return Workload(
            check: { try require(user.singleton === DependenciesUser().singleton, "swift-dependencies: threads") },
            run: { count in
                onThreads(threads, perThread: count / threads) { perThread in
                    var found = 0
                    for _ in 0..<perThread where user.singleton === SingletonKey.liveValue { found += 1 }
                    precondition(found == perThread, "swift-dependencies: a threaded read failed")
                }
            }
        )
    }
}
