import Dispatch
import Testing

@testable import Graft

/// The registration table and instance cells under load: growth, replacement, removal, and
/// values of assorted sizes and alignments kept in every scope.
@Suite struct RegistrationTableTests {
    @Test func thousandsOfRegistrationsSurviveGrowth() {
        let container = Container()
        let names = (0..<5_000).map { "service-\($0)" }
        for (index, name) in names.enumerated() {
            container.register(Int.self, name: name) { _ in index }.inObjectScope(.container)
        }
        #expect(names.enumerated().allSatisfy { container.resolve(Int.self, name: $0.element) == $0.offset })
        #expect(container.services.count == 5_000)
        #expect(container.resolve(Int.self) == nil)
    }

    @Test func replacingAfterGrowthKeepsOneSlot() {
        let container = Container()
        for index in 0..<100 { container.register(Int.self, name: "\(index)") { _ in index } }
        for index in 0..<100 { container.register(Int.self, name: "\(index)") { _ in -index } }
        #expect(container.services.count == 100)
        #expect(container.resolve(Int.self, name: "42") == -42)
    }

    @Test func removeAllThenRegisterAgain() {
        let container = Container()
        for index in 0..<50 { container.register(Int.self, name: "\(index)") { _ in index } }
        container.removeAll()
        #expect(container.services.count == 0)
        #expect(container.resolve(Int.self, name: "7") == nil)
        container.register(Int.self, name: "7") { _ in 70 }
        #expect(container.resolve(Int.self, name: "7") == 70)
    }

    @Test func forwardsAndDirectEntriesShareOneCell() {
        let container = Container()
        for index in 0..<40 { container.register(Int.self, name: "filler-\(index)") { _ in index } }
        let dog = container.register(Dog.self) { _ in Dog() }.inObjectScope(.container)
        container.forward(Animal.self, to: dog)
        container.forward(Dog.self, name: "alias", to: dog)
        for index in 40..<80 { container.register(Int.self, name: "filler-\(index)") { _ in index } }
        let resolved = container.resolve(Dog.self)
        #expect(resolved != nil)
        #expect(container.resolve(Animal.self) === resolved)
        #expect(container.resolve(Dog.self, name: "alias") === resolved)
    }

    struct Wide: Equatable {
        var values: SIMD8<Double>
        var tag: String
    }

    @Test(arguments: [ObjectScope.transient, .graph, .container, .weak])
    func valuesOfAnyLayoutAreKept(_ scope: ObjectScope) {
        let container = Container()
        let wide = Wide(values: SIMD8(repeating: 1.5), tag: "wide")
        container.register(Wide.self) { _ in wide }.inObjectScope(scope)
        container.register(UInt8.self) { _ in 7 }.inObjectScope(scope)
        container.register(String.self) { _ in String(repeating: "x", count: 100) }.inObjectScope(scope)
        container.register(Animal?.self) { _ in nil }.inObjectScope(scope)
        for _ in 0..<3 {
            #expect(container.resolve(Wide.self) == wide)
            #expect(container.resolve(UInt8.self) == 7)
            #expect(container.resolve(String.self)?.count == 100)
            #expect(container.resolve((Animal?).self).map { $0 == nil } == true)
        }
        container.resetObjectScope(scope)
        #expect(container.resolve(Wide.self) == wide)
    }

    @Test func keptInstancesAreReleasedWithTheContainer() {
        let live = Counter()
        var container: Container? = Container()
        container?.register(Tracked.self) { _ in Tracked(live) }.inObjectScope(.container)
        container?.register(Tracked.self, name: "graph") { _ in Tracked(live) }
        _ = container?.resolve(Tracked.self)
        _ = container?.resolve(Tracked.self, name: "graph")
        #expect(live.value == 1)
        container = nil
        #expect(live.value == 0)
    }

    @Test func nameHashAgreesWithStringEquality() {
        let pairs = [
            ("caf\u{E9}", "cafe\u{301}"), ("\u{212A}", "K"), ("a\u{1FEF}b", "a`b"), ("\u{212B}", "\u{C5}"),
            ("\u{1E9B}\u{323}", "\u{17F}\u{323}\u{307}"), ("plain", "plain"), ("", ""),
        ]
        for (left, right) in pairs {
            #expect(left == right)
            #expect(RegistrationTable.NameHash.of(left) == RegistrationTable.NameHash.of(right))
        }
    }

    @Test func nameHashTellsApartNamesThatDifferInOneByteOrInLength() {
        var names = (0..<5_000).map { "service-\($0)" }
        names += ["", "a", "a\u{0}", "a\u{0}\u{0}", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "bbcdefgh"]
        names += (0..<64).map { String(repeating: "x", count: $0 + 1) }
        let hashes = Set(names.map(RegistrationTable.NameHash.of))
        #expect(hashes.count == names.count)
        let container = Container()
        for name in names { container.register(Unit.self, name: name) { _ in Unit() } }
        #expect(names.allSatisfy { container.resolve(Unit.self, name: $0) != nil })
        #expect(container.resolve(Unit.self, name: "service-5000") == nil)
    }

    /// Registering into a plain container from several threads at once is safe: every change
    /// takes the hierarchy's mutex. Each thread registers, replaces and forwards keys of its own
    /// while growing the shared table; every registration made last is the one found.
    @Test func registeringFromSeveralThreadsAtOnceKeepsEveryRegistration() {
        let threads = 4
        let names = (0..<threads).map { thread in (0..<300).map { "thread-\(thread)-\($0)" } }
        nonisolated(unsafe) let shared = Container()  // shared on purpose: its changes take the mutex
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<3 {
                for name in names[thread] {
                    let entry = shared.register(Int.self, name: name) { _ in round }
                    if round == 2 { shared.forward(Int.self, name: "forwarded-" + name, to: entry) }
                }
            }
        }
        for name in names.joined() {
            #expect(shared.resolve(Int.self, name: name) == 2)
            #expect(shared.resolve(Int.self, name: "forwarded-" + name) == 2)
        }
        #expect(shared.registrations.count == threads * 300 * 2)
    }
}
