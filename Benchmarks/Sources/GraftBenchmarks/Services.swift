// The services both libraries build. Identical classes, so only the containers differ.

final class Service {}
final class Singleton: Sendable {}  // Sendable: swift-dependencies' values must be
final class Filler {}
final class Named {
    let index: Int
    init(index: Int) { self.index = index }
}
final class WithArguments {
    let sum: Int
    init(_ sum: Int) { self.sum = sum }
}

// A 10-node graph with shared nodes and an initCompleted: resolving Root makes 18 resolve calls
// (15 through initializers, 3 in Root's initCompleted), and graph scope shares N4, N5, N6, N8, N9.
final class N9 {}
final class N8 {}
final class N7 { let n9: N9; init(_ n9: N9) { self.n9 = n9 } }
final class N6 { let n9: N9; init(_ n9: N9) { self.n9 = n9 } }
final class N5 { let n8: N8; init(_ n8: N8) { self.n8 = n8 } }
final class N4 { let n8: N8; init(_ n8: N8) { self.n8 = n8 } }
final class N3 {
    let n5: N5, n6: N6, n7: N7
    init(_ n5: N5, _ n6: N6, _ n7: N7) { self.n5 = n5; self.n6 = n6; self.n7 = n7 }
}
final class N2 { let n4: N4, n6: N6; init(_ n4: N4, _ n6: N6) { self.n4 = n4; self.n6 = n6 } }
final class N1 { let n4: N4, n5: N5; init(_ n4: N4, _ n5: N5) { self.n4 = n4; self.n5 = n5 } }
final class Root {
    let n1: N1, n2: N2, n3: N3
    var n8: N8?
    var n9: N9?
    var singleton: Singleton?
    init(_ n1: N1, _ n2: N2, _ n3: N3) { self.n1 = n1; self.n2 = n2; self.n3 = n3 }
}

/// Whether a resolved Root is the graph it should be: shared nodes shared, injected nodes injected.
func isConsistent(_ root: Root) -> Bool {
    root.n1.n4 === root.n2.n4 && root.n1.n5 === root.n3.n5 && root.n2.n6 === root.n3.n6
        && root.n1.n4.n8 === root.n1.n5.n8 && root.n2.n6.n9 === root.n3.n7.n9
        && root.n8 === root.n1.n4.n8 && root.n9 === root.n3.n7.n9 && root.singleton != nil
}

// A 4-node graph for the memory scenario.
final class Leaf {}
final class Branch { let left: Leaf, right: Leaf; init(_ l: Leaf, _ r: Leaf) { left = l; right = r } }
final class Tree { let branch: Branch, leaf: Leaf; init(_ b: Branch, _ l: Leaf) { branch = b; leaf = l } }

/// Names for the fillers and for the registration scenario, made once outside timed code.
let fillerNames = (0..<100).map { "filler-\($0)" }
let registrationNames = (0..<1_000).map { "service-\($0)" }
let namedNames = (0..<10).map { "named-\($0)" }
