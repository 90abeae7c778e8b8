import Testing

@testable import Graft

// A lookup that misses in a container walks its ancestors without retaining them: these tests
// change the hierarchy from inside factories (dropping the last outside reference to the
// containers walked, registering in an ancestor mid-resolution) and check the walk's answers
// against a model of nearest-registration-wins.

private final class Tagged {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

private final class Outer {
    let inner: Tagged
    init(inner: Tagged) { self.inner = inner }
}

@Suite struct AncestorWalkTests {
    @Test func aFactoryThatDropsTheLastReferenceToTheHierarchyStillGetsItsDependencies() {
        var grandchild: Container? = {
            let root = Container()
            root.register(Tagged.self) { _ in Tagged(tag: 0) }
            let middle = Container(parent: root)
            return Container(parent: middle)
        }()
        weak let weakGrandchild = grandchild
        grandchild?.register(Outer.self) { r in
            grandchild = nil  // the resolution in flight holds the only reference left
            let child = Container(parent: r as? Container)  // a new level under the one resolving
            return Outer(inner: child.resolve(Tagged.self)!)
        }
        let outer = grandchild?.resolve(Outer.self)
        #expect(outer?.inner.tag == 0)
        #expect(weakGrandchild == nil)
    }

    @Test func aRegistrationInAnAncestorDuringAResolutionIsSeenByTheNextLookup() {
        let root = Container()
        let middle = Container(parent: root)
        let leaf = Container(parent: middle)
        root.register(Tagged.self) { _ in Tagged(tag: 0) }
        leaf.register(Outer.self) { r in
            let first = r.resolve(Tagged.self)!
            middle.register(Tagged.self) { _ in Tagged(tag: 1) }  // nearer than the root's
            let second = r.resolve(Tagged.self)!
            return Outer(inner: Tagged(tag: first.tag * 10 + second.tag))
        }
        #expect(leaf.resolve(Outer.self)?.inner.tag == 1)
        #expect(leaf.resolve(Tagged.self)?.tag == 1)
        #expect(root.resolve(Tagged.self)?.tag == 0)
    }

    /// Random hierarchies of up to eight levels, registrations of named and unnamed keys at
    /// random levels, and lookups from every level, against the model: the nearest level at or
    /// above the one asked that registers the key answers.
    @Test(arguments: 1...200 as ClosedRange<UInt64>)
    func lookupsFromEveryLevelFindTheNearestRegistration(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let depth = Int(random.next() % 8) + 1
        var levels: [Container] = [Container()]
        for _ in 1..<depth { levels.append(Container(parent: levels.last!)) }
        let names: [String?] = [nil, "a", "b"]
        var model: [[String?: Int]] = Array(repeating: [:], count: depth)
        for step in 0..<Int(random.next() % 12) {
            let level = Int(random.next() % UInt64(depth))
            let name = names[Int(random.next() % 3)]
            let tag = step + 1
            levels[level].register(Tagged.self, name: name) { _ in Tagged(tag: tag) }
            model[level][name] = tag
        }
        for (index, container) in levels.enumerated() {
            for name in names {
                let expected = (0...index).reversed().lazy.compactMap { model[$0][name] }.first
                #expect(
                    container.resolve(Tagged.self, name: name)?.tag == expected,
                    "seed \(seed), level \(index) of \(depth), name \(name ?? "nil")")
            }
        }
    }
}

/// A small seeded generator, so a failing seed reproduces.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
