// The services both libraries build. Identical classes, so only the containers differ.
//
// Each is a generic class used at one argument, `Placed`, under the name the workloads use: a
// container's table hashes a service's type metadata address, and the metadata of a non-generic
// class sits in this executable's data, where every change of the library's size, and the length
// of the checkout's path (the binary embeds source paths), moves it. That moved the instruction
// gate's rows by a few instructions for changes that did not touch the path they count (a key's
// probe met another). A generic instantiation's metadata is made by the runtime, in its own
// allocator, when first asked for; `placeServiceMetadata()`, the first statement of main.swift,
// asks for all of them before anything else runs, so each lands at the same address in every
// build, wherever it is built.

enum Placed {}

final class ServiceOf<Tag> {}
final class SingletonOf<Tag>: Sendable {}  // Sendable: swift-dependencies' values must be
final class FillerOf<Tag> {}
final class NamedOf<Tag> {
    let index: Int
    init(index: Int) { self.index = index }
}
final class WithArgumentsOf<Tag> {
    let sum: Int
    init(_ sum: Int) { self.sum = sum }
}
typealias Service = ServiceOf<Placed>
typealias Singleton = SingletonOf<Placed>
typealias Filler = FillerOf<Placed>
typealias Named = NamedOf<Placed>
typealias WithArguments = WithArgumentsOf<Placed>

// A 10-node graph with shared nodes and an initCompleted: resolving Root makes 18 resolve calls
// (15 through initializers, 3 in Root's initCompleted), and graph scope shares N4, N5, N6, N8, N9.
final class N9Of<Tag> {}
final class N8Of<Tag> {}
final class N7Of<Tag> { let n9: N9; init(_ n9: N9) { self.n9 = n9 } }
final class N6Of<Tag> { let n9: N9; init(_ n9: N9) { self.n9 = n9 } }
final class N5Of<Tag> { let n8: N8; init(_ n8: N8) { self.n8 = n8 } }
final class N4Of<Tag> { let n8: N8; init(_ n8: N8) { self.n8 = n8 } }
final class N3Of<Tag> {
    let n5: N5, n6: N6, n7: N7
    init(_ n5: N5, _ n6: N6, _ n7: N7) { self.n5 = n5; self.n6 = n6; self.n7 = n7 }
}
final class N2Of<Tag> { let n4: N4, n6: N6; init(_ n4: N4, _ n6: N6) { self.n4 = n4; self.n6 = n6 } }
final class N1Of<Tag> { let n4: N4, n5: N5; init(_ n4: N4, _ n5: N5) { self.n4 = n4; self.n5 = n5 } }
final class RootOf<Tag> {
    let n1: N1, n2: N2, n3: N3
    var n8: N8?
    var n9: N9?
    var singleton: Singleton?
    init(_ n1: N1, _ n2: N2, _ n3: N3) { self.n1 = n1; self.n2 = n2; self.n3 = n3 }
}
typealias N9 = N9Of<Placed>
typealias N8 = N8Of<Placed>
typealias N7 = N7Of<Placed>
typealias N6 = N6Of<Placed>
typealias N5 = N5Of<Placed>
typealias N4 = N4Of<Placed>
typealias N3 = N3Of<Placed>
typealias N2 = N2Of<Placed>
typealias N1 = N1Of<Placed>
typealias Root = RootOf<Placed>

/// Whether a resolved Root is the graph it should be: shared nodes shared, injected nodes injected.
func isConsistent(_ root: Root) -> Bool {
    root.n1.n4 === root.n2.n4 && root.n1.n5 === root.n3.n5 && root.n2.n6 === root.n3.n6
        && root.n1.n4.n8 === root.n1.n5.n8 && root.n2.n6.n9 === root.n3.n7.n9
        && root.n8 === root.n1.n4.n8 && root.n9 === root.n3.n7.n9 && root.singleton != nil
}

// A 4-node graph for the memory scenario.
final class LeafOf<Tag> {}
final class BranchOf<Tag> { let left: Leaf, right: Leaf; init(_ l: Leaf, _ r: Leaf) { left = l; right = r } }
final class TreeOf<Tag> { let branch: Branch, leaf: Leaf; init(_ b: Branch, _ l: Leaf) { branch = b; leaf = l } }
typealias Leaf = LeafOf<Placed>
typealias Branch = BranchOf<Placed>
typealias Tree = TreeOf<Placed>

/// A `Sendable` service for the async scenario.
final class SharedOf<Tag>: Sendable {}
typealias Shared = SharedOf<Placed>

/// A service made and used on the main actor: a view model, say.
@MainActor final class MainModelOf<Tag> {}
typealias MainModel = MainModelOf<Placed>

/// Every service type's metadata, asked for in one fixed order (see the top of this file).
/// Not inlined, and its result kept, so the metatypes are really asked for.
@inline(never)
func placeServiceMetadata() {
    let types: [Any.Type] = [
        Service.self, Singleton.self, Filler.self, Named.self, WithArguments.self,
        N9.self, N8.self, N7.self, N6.self, N5.self, N4.self, N3.self, N2.self, N1.self, Root.self,
        Leaf.self, Branch.self, Tree.self, Shared.self, MainModel.self,
    ]
    for type in types { BlackHole.sink &+= UInt(bitPattern: ObjectIdentifier(type).hashValue) }
}

/// Names for the fillers and for the registration scenario, made once outside timed code.
let fillerNames = (0..<100).map { "filler-\($0)" }
let registrationNames = (0..<1_000).map { "service-\($0)" }
let namedNames = (0..<10).map { "named-\($0)" }
