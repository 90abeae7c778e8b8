import Testing

@testable import Graft

/// A resolver written for Swinject 2.10: every fixed-arity form, no pack-based method. It records
/// which of its methods each call reached, with the static argument types it got.
private final class SwinjectShapedForwarder: Resolver {
    let base: Container
    private(set) var calls: [String] = []

    init(base: Container) { self.base = base }

    private func record(_ form: String, types: Any.Type...) {
        calls.append(form + " " + types.map { String(describing: $0) }.joined(separator: ","))
    }

    func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        calls.append("0")
        return base.resolve(serviceType)
    }
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        calls.append("0 named")
        return base.resolve(serviceType, name: name)
    }
    func resolve<Service, Arg1>(_ serviceType: Service.Type, argument: Arg1) -> Service? {
        record("1", types: Arg1.self)
        return base.resolve(serviceType, argument: argument)
    }
    func resolve<Service, Arg1>(_ serviceType: Service.Type, name: String?, argument: Arg1) -> Service? {
        record("1 named", types: Arg1.self)
        return base.resolve(serviceType, name: name, argument: argument)
    }
    func resolve<Service, Arg1, Arg2>(_ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2) -> Service? {
        record("2", types: Arg1.self, Arg2.self)
        return base.resolve(serviceType, arguments: arg1, arg2)
    }
    func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2
    ) -> Service? {
        record("2 named", types: Arg1.self, Arg2.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2)
    }
    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service? {
        record("3", types: Arg1.self, Arg2.self, Arg3.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3)
    }
    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3
    ) -> Service? {
        record("3 named", types: Arg1.self, Arg2.self, Arg3.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service? {
        record("4", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4
    ) -> Service? {
        record("4 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5
    ) -> Service? {
        record("5", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5
    ) -> Service? {
        record("5 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6
    ) -> Service? {
        record("6", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6
    ) -> Service? {
        record("6 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7
    ) -> Service? {
        record("7", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7
    ) -> Service? {
        record("7 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service? {
        record("8", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self, Arg8.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8
    ) -> Service? {
        record("8 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self, Arg8.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4, _ arg5: Arg5,
        _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service? {
        record(
            "9", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self, Arg8.self,
            Arg9.self)
        return base.resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }
    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type, name: String?, arguments arg1: Arg1, _ arg2: Arg2, _ arg3: Arg3, _ arg4: Arg4,
        _ arg5: Arg5, _ arg6: Arg6, _ arg7: Arg7, _ arg8: Arg8, _ arg9: Arg9
    ) -> Service? {
        record(
            "9 named", types: Arg1.self, Arg2.self, Arg3.self, Arg4.self, Arg5.self, Arg6.self, Arg7.self, Arg8.self,
            Arg9.self)
        return base.resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)
    }
}

/// Implements neither form for arguments: resolving with one must stop with a message.
private struct IncompleteResolver: Resolver {
    func resolve<Service>(_ serviceType: Service.Type) -> Service? { nil }
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? { nil }
}

/// Calls the fixed-arity requirement itself, as generic code written for Swinject's protocol would.
private func callTwoArgumentForm<R: FixedArityResolver>(_ resolver: R) -> String? {
    resolver.resolve(String.self, arguments: 1, 2)
}

/// A container with a `String` registration for every arity from 0 to 9, under no name and under
/// "named": each factory reports its arity, name and the sum of its `Int` arguments.
private func containerForEveryArity() -> Container {
    let container = Container()
    for name in [nil, "named"] as [String?] {
        let tag = name ?? "plain"
        container.register(String.self, name: name) { _ in "0 \(tag) 0" }
        container.register(String.self, name: name) { (_, a: Int) in "1 \(tag) \(a)" }
        container.register(String.self, name: name) { (_, a: Int, b: Int) in "2 \(tag) \(a + b)" }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int) in "3 \(tag) \(a + b + c)" }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int) in
            "4 \(tag) \(a + b + c + d)"
        }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int, e: Int) in
            "5 \(tag) \(a + b + c + d + e)"
        }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int) in
            "6 \(tag) \(a + b + c + d + e + f)"
        }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int) in
            "7 \(tag) \(a + b + c + d + e + f + g)"
        }
        container.register(String.self, name: name) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int) in
            "8 \(tag) \(a + b + c + d + e + f + g + h)"
        }
        container.register(String.self, name: name) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int) in
            "9 \(tag) \(a + b + c + d + e + f + g + h + i)"
        }
    }
    return container
}

/// Resolves through `resolver` with `arity` arguments 1, 2, …, as application code writes it.
private func resolveWithArity(_ arity: Int, name: String?, through resolver: any Resolver) -> String? {
    let r = resolver
    switch (arity, name) {
    case (0, nil): return r.resolve(String.self)
    case (0, let name?): return r.resolve(String.self, name: name)
    case (1, nil): return r.resolve(String.self, argument: 1)
    case (1, let name?): return r.resolve(String.self, name: name, argument: 1)
    case (2, nil): return r.resolve(String.self, arguments: 1, 2)
    case (2, let name?): return r.resolve(String.self, name: name, arguments: 1, 2)
    case (3, nil): return r.resolve(String.self, arguments: 1, 2, 3)
    case (3, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3)
    case (4, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4)
    case (4, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4)
    case (5, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4, 5)
    case (5, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4, 5)
    case (6, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6)
    case (6, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4, 5, 6)
    case (7, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7)
    case (7, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4, 5, 6, 7)
    case (8, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8)
    case (8, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4, 5, 6, 7, 8)
    case (9, nil): return r.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9)
    case (9, let name?): return r.resolve(String.self, name: name, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9)
    default: return nil
    }
}

@Suite struct FixedArityResolverTests {
    @Test(arguments: 0...9, [nil, "named"] as [String?])
    func swinjectShapedResolverIsReachedThroughTheExistential(arity: Int, name: String?) {
        let container = containerForEveryArity()
        let forwarder = SwinjectShapedForwarder(base: container)

        let result = resolveWithArity(arity, name: name, through: forwarder)

        #expect(result == "\(arity) \(name ?? "plain") \(arity * (arity + 1) / 2)")
        let types = Array(repeating: "Int", count: arity).joined(separator: ",")
        let form = "\(arity)" + (name == nil ? "" : " named")
        #expect(forwarder.calls == [arity == 0 ? form : form + " " + types])
        // The same call on the container itself gives the same answer.
        #expect(resolveWithArity(arity, name: name, through: container) == result)
    }

    @Test func existentialArgumentKeepsItsStaticTypeThroughTheForwarder() {
        let container = Container()
        container.register(PetOwner.self) { (_, pet: Animal) in PetOwner(pet: pet) }
        container.register(PetOwner.self) { (_, pet: Animal, food: Food) in PetOwner(pet: pet) }
        let forwarder = SwinjectShapedForwarder(base: container)
        let resolver: any Resolver = forwarder
        let pet: Animal = Dog(name: "Rex")
        let food: Food = Sushi()

        #expect(resolver.resolve(PetOwner.self, argument: pet)?.pet === pet)
        #expect(resolver.resolve(PetOwner.self, arguments: pet, food)?.pet === pet)
        #expect(forwarder.calls == ["1 Animal", "2 Animal,Food"])
    }

    @Test func fixedArityCallOnAPackConformerReachesItsPackMethod() {
        let container = containerForEveryArity()
        let forwarder = PackForwarder(base: container)

        #expect(callTwoArgumentForm(forwarder) == "2 plain 3")
        #expect(forwarder.packCalls == 1)
        #expect(callTwoArgumentForm(container) == "2 plain 3")
        #expect(callTwoArgumentForm(container.synchronize()) == "2 plain 3")
    }

    @Test func moreThanNineArgumentsThroughAFixedArityResolverStopWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let resolver: any Resolver = SwinjectShapedForwarder(base: Container())
            let _: Unit? = resolver.resolve(Unit.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("at most 9 arguments; 10 were passed for Unit"))
    }

    @Test func resolverImplementingNeitherFormStopsWithAMessage() async throws {
        let throughExistential = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let resolver: any Resolver = IncompleteResolver()
            _ = resolver.resolve(Int.self, arguments: 1, "a")
        }
        let stderr = String(decoding: try #require(throughExistential).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("IncompleteResolver conforms to Resolver but implements neither"))
        #expect(stderr.contains("resolve(_:arguments:_:)"))
        await #expect(processExitsWith: .failure) {
            _ = IncompleteResolver().resolve(Int.self, argument: 1)
        }
    }
}
