import Testing

@testable import Graft

#if canImport(Glibc)
    import Glibc
#endif

/// A plain registration is one entry object and its cell; the rarely used settings live in
/// `extras`, made the first time one is set.
@Suite struct EntryExtrasTests {
    @Test func aPlainRegistrationHasNoExtras() {
        let container = Container()
        let entry = container.register(Part.self) { _ in Part("p") }.inObjectScope(.container)
        #expect(entry.extras == nil)
        #expect(ObjectIdentifier(entry.argumentsType) == ObjectIdentifier((any Resolver).self))
        #expect(container.resolve(Part.self) === container.resolve(Part.self))
        #expect(entry.extras == nil)
    }

    #if canImport(Glibc)
        /// A plain registration of a class type is one allocation: the entry, with its cell inside,
        /// in at most 152 usable bytes (one 160-byte chunk of glibc's malloc).
        @Test func aPlainEntryOfAClassTypeIsOneAllocation() {
            let container = Container()
            let entry = container.register(Part.self) { _ in Part("p") }
            #expect(entry.outOfLineCellMemory == nil)
            #expect(entry.cell.base == _getUnsafePointerToStoredProperties(entry))
            // `malloc_usable_size` is not in the Glibc module: looked up by name.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size") else {
                Issue.record("malloc_usable_size not found")
                return
            }
            typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
            let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
            let usable = usableSize(Unmanaged.passUnretained(entry).toOpaque())
            #expect(usable >= 64 && usable <= 152, "ServiceEntry takes \(usable) usable bytes")
        }
    #endif

    /// Values that are not one class reference get a cell of their own, sized and aligned for them.
    @Test func otherTypesHaveACellOfTheirOwn() {
        struct Wide {
            var a = 1, b = 2, c = 3
        }
        let container = Container()
        let wide = container.register(Wide.self) { _ in Wide() }.inObjectScope(.container)
        let shape = container.register((any Shape).self) { _ in Circle {} }.inObjectScope(.container)
        #expect(wide.outOfLineCellMemory != nil && shape.outOfLineCellMemory != nil)
        #expect(container.resolve(Wide.self)?.c == 3)
        #expect(container.resolve((any Shape).self) === container.resolve((any Shape).self))
    }

    @Test func eachRareSettingMakesExtrasAndWorks() {
        let container = Container()
        let withArgument = container.register(Part.self, name: "a") { _, label in Part(label) }
        #expect(withArgument.extras != nil)
        #expect(ObjectIdentifier(withArgument.argumentsType) == ObjectIdentifier((any Resolver, String).self))
        #expect(container.resolve(Part.self, name: "a", argument: "x")?.label == "x")

        let weak = container.register(Part.self, name: "w") { _ in Part("w") }.inObjectScope(.weak)
        var held = container.resolve(Part.self, name: "w")
        #expect(weak.extras != nil)
        #expect(container.resolve(Part.self, name: "w") === held)
        #expect(weak.weakInstance != nil)
        held = nil
        #expect(weak.weakInstance == nil)
        #expect(container.resolve(Part.self, name: "w")?.label == "w")

        var completed = 0
        let withAction = container.register(Part.self, name: "c") { _ in Part("c") }
            .initCompleted { _, _ in completed += 1 }
        #expect(withAction.extras != nil)
        _ = container.resolve(Part.self, name: "c")
        #expect(completed == 1)

        let throwing = container.register(Part.self, name: "t") { _ throws in Part("t") }
        #expect(throwing.extras != nil && throwing.hasThrowingFactory)
        #expect(container.resolve(Part.self, name: "t")?.label == "t")
    }
}
