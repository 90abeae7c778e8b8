import Testing

@testable import Graft

private final class LifetimeHolder {
    var container: Container?
    weak var weakContainer: Container?
}

private struct PlanThrown: Error {}

// Unchecked: made, thrown and released on one thread.
private final class DeinitError: Error, @unchecked Sendable {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

private protocol PlanNamed { var label: String { get } }
private struct PlanValue: PlanNamed { let label: String }

@inline(never)
private func makeContainer() -> Container {
    let c = Container()
    c.register(Part.self, name: "leaf") { _ in Part("leaf") }
    c.register(Part.self) { r throws in Part("top", [try r.require(Part.self, name: "leaf")]) }
        .inObjectScope(.transient)
    return c
}

@inline(never)
private func requireGenerically<R: Resolver>(_ r: R) throws -> Part { try r.require(Part.self) }

/// `require` recognises a `Container` or a view by its type and uses it without a retain of its
/// own: the caller's reference must keep it alive for the whole call, even when a factory drops
/// every other one. And a throwing factory on the planned path fails, counts and recovers as on
/// the general path (forced there by an empty `initCompleted` action).
@Suite struct RequireLifetimeAndThrowingPlanTests {
    @Test func requireOnATemporaryContainer() throws {
        for _ in 0..<50 {
            #expect(try makeContainer().require(Part.self).children.first??.label == "leaf")
            #expect(try makeContainer().synchronize().require(Part.self).label == "top")
            #expect(try requireGenerically(makeContainer()).label == "top")
            #expect(try requireGenerically(makeContainer().synchronize()).label == "top")
        }
    }

    @Test func requireOnAContainerWhoseLastReferenceTheFactoryDrops() throws {
        for _ in 0..<50 {
            let holder = LifetimeHolder()
            let c = Container()
            c.register(Part.self, name: "leaf") { _ in Part("leaf") }
            c.register(Part.self) { [unowned holder] r throws in
                holder.container = nil
                return Part("top", [try r.require(Part.self, name: "leaf")])
            }
            .inObjectScope(.transient)
            holder.container = c
            holder.weakContainer = c
            _ = consume c
            #expect(try holder.container!.require(Part.self).label == "top")
            #expect(holder.weakContainer == nil)
        }
    }

    @Test func requireOnAViewWhoseLastReferenceTheFactoryDrops() throws {
        for _ in 0..<50 {
            let holder = LifetimeHolder()
            let c = Container()
            c.register(Part.self, name: "leaf") { _ in Part("leaf") }
            c.register(Part.self) { [unowned holder] r throws in
                holder.container = nil
                return Part("top", [try r.require(Part.self, name: "leaf")])
            }
            .inObjectScope(.transient)
            holder.container = c.synchronize()
            #expect(try holder.container!.require(Part.self).label == "top")
            withExtendedLifetime(c) {}
        }
    }

    /// A factory's `require` borrows the resolver it was given: when the factory has dropped
    /// every other reference and the nested `require` fails, its error still reaches the caller
    /// with the path, and the container is freed afterwards, through the container and its view.
    @Test func aFailingRequireThroughAContainerItsFactoryLetGo() {
        for throughView in [false, true] {
            for _ in 0..<50 {
                let holder = LifetimeHolder()
                let c = Container()
                c.register(Part.self) { [unowned holder] r throws in
                    holder.container = nil
                    return Part("top", [try r.require(Part.self, name: "missing")])
                }
                .inObjectScope(.transient)
                holder.container = throughView ? c.synchronize() : c
                holder.weakContainer = c
                _ = consume c
                let error = #expect(throws: ResolutionError.self) { try holder.container!.require(Part.self) }
                guard let error, case .notRegistered = error.reason else {
                    Issue.record("reason \(String(describing: error?.reason))")
                    continue
                }
                #expect(error.path == ["Part", "Part (name: \"missing\")"])
                #expect(holder.weakContainer == nil)
            }
        }
    }

    /// The factory that drops the last outside reference also empties the container and
    /// registers again before its nested `require`s: one fails (the registration is gone), the
    /// next finds the new one, through the container and its view, and the container is freed
    /// once the request ends.
    @Test func requireAfterItsFactoryEmptiedAndRefilledAContainerItLetGo() throws {
        for throughView in [false, true] {
            for _ in 0..<50 {
                let holder = LifetimeHolder()
                let c = Container()
                c.register(Part.self, name: "leaf") { _ in Part("leaf") }
                c.register(Part.self) { [unowned holder] r throws in
                    let own = holder.weakContainer!
                    holder.container = nil
                    own.removeAll()
                    let missing = (try? r.require(Part.self, name: "leaf")) == nil
                    own.register(Part.self, name: "leaf") { _ in Part("again") }
                    return Part(missing ? "top" : "wrong", [try r.require(Part.self, name: "leaf")])
                }
                .inObjectScope(.transient)
                holder.container = throughView ? c.synchronize() : c
                holder.weakContainer = c
                _ = consume c
                let made = try holder.container!.require(Part.self)
                #expect(made.label == "top")
                #expect(made.children.first??.label == "again")
                #expect(holder.weakContainer == nil)
            }
        }
    }

    @Test func requireThroughEveryKindOfResolverFromAThrowingFactory() throws {
        let c = Container()
        c.register(Part.self, name: "leaf") { _ in Part("leaf") }
        c.register(Part.self, name: "any") { r throws in
            Part("any", [try (r as any Resolver).require(Part.self, name: "leaf")])
        }
        c.register(Part.self, name: "wrap") { [unowned c] r throws in
            Part("wrap", [try Forwarding(container: c).require(Part.self, name: "leaf")])
        }
        c.register(Part.self, name: "view") { [unowned c] r throws in
            Part("view", [try c.synchronize().require(Part.self, name: "leaf")])
        }
        for name in ["any", "wrap", "view"] {
            #expect(try c.require(Part.self, name: name).children.first??.label == "leaf")
            #expect(try c.synchronize().require(Part.self, name: name).label == name)
        }
    }

    @Test func throwingFactoryOfValueAndExistential() throws {
        let c = Container()
        c.register(PlanValue.self) { _ throws in PlanValue(label: "v") }.inObjectScope(.graph)
        c.register((any PlanNamed).self) { r throws in try r.require(PlanValue.self) }.inObjectScope(.transient)
        c.register(PlanValue.self, name: "bad") { _ throws in throw PlanThrown() }
        c.register((any PlanNamed).self, name: "bad") { r throws in try r.require(PlanValue.self, name: "bad") }
        #expect(try c.require((any PlanNamed).self).label == "v")
        #expect(c.resolve((any PlanNamed).self, name: "bad") == nil)
        #expect(throws: ResolutionError.self) { try c.require((any PlanNamed).self, name: "bad") }
        #expect(c.resolve(PlanValue.self)?.label == "v")
    }

    /// The same failing programs, planned and forced general: counts and errors agree.
    @Test func countsAfterFailuresAgreeOnBothPaths() {
        func run(general: Bool) -> String {
            let c = Container()
            var out: [String] = []
            func entry<S>(_ e: ServiceEntry<S>) { if general { e.initCompleted { _, _ in } } }
            entry(c.register(Part.self, name: "leaf") { _ throws in Part("leaf") })
            entry(c.register(Part.self, name: "bad") { _ throws in throw PlanThrown() }.inObjectScope(.transient))
            entry(
                c.register(Part.self, name: "mid") { r throws in
                    Part("mid", [try r.require(Part.self, name: "leaf"), try r.require(Part.self, name: "bad")])
                })
            entry(
                c.register(Part.self, name: "top") { r throws in
                    Part(
                        "top",
                        [
                            try r.require(Part.self, name: "leaf"), try? r.require(Part.self, name: "mid"),
                            r.resolve(Part.self, name: "leaf"),
                        ])
                }.inObjectScope(.transient))
            entry(
                c.register(Part.self, name: "loopA") { r throws in Part("a", [try r.require(Part.self, name: "loopB")])
                })
            entry(
                c.register(Part.self, name: "loopB") { r throws in Part("b", [try r.require(Part.self, name: "loopA")])
                }.inObjectScope(.transient))
            for name in ["top", "mid", "bad", "loopA", "loopB", "leaf"] {
                for _ in 0..<2 {
                    out.append("\(name): \(c.resolve(Part.self, name: name)?.label ?? "nil")")
                    do { _ = try c.require(Part.self, name: name); out.append("ok") } catch {
                        out.append("\(error.reason) \(error.path) \(error)")
                    }
                    out.append(
                        c.withObjectGraph(GraphIdentifier()) { $0.resolve(Part.self, name: name)?.label ?? "nil" })
                }
            }
            for r in c.registrations.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                out.append("\(r.name ?? "-") \(r.resolutionCount) \(r.instanceCount)")
            }
            return out.joined(separator: "\n")
        }
        let planned = run(general: false)
        let general = run(general: true)
        #expect(planned == general)
    }

    @Test func deepThrowingChainFailsAtTheBottom() {
        for general in [false, true] {
            let c = Container()
            let levels = 45
            for level in 0..<levels {
                let e = c.register(Part.self, name: "\(level)") { r throws in
                    if level == levels - 1 { throw PlanThrown() }
                    return Part("\(level)", [try r.require(Part.self, name: "\(level + 1)")])
                }
                if level % 2 == 0 { e.inObjectScope(.transient) }
                if general { e.initCompleted { _, _ in } }
            }
            let error = #expect(throws: ResolutionError.self) { try c.require(Part.self, name: "0") }
            #expect(error?.path.count == levels)
            #expect(c.resolve(Part.self, name: "0") == nil)
            c.register(Part.self, name: "\(levels - 1)") { _ in Part("end") }
            #expect(c.resolve(Part.self, name: "0") != nil)
        }
    }

    @Test func anErrorWhoseDeinitResolvesAndRegisters() {
        for general in [false, true] {
            let c = Container()
            var deinits = 0
            c.register(Part.self, name: "ok") { _ in Part("ok") }
            let e = c.register(Part.self) { r throws in
                _ = r.resolve(Part.self, name: "ok")
                throw DeinitError {
                    deinits += 1
                    _ = c.resolve(Part.self, name: "ok")
                    c.register(Part.self, name: "late\(deinits)") { _ throws in Part("late") }
                    _ = c.resolve(Part.self, name: "late\(deinits)")
                }
            }
            .inObjectScope(.transient)
            if general { e.initCompleted { _, _ in } }
            for _ in 0..<3 {
                #expect(c.resolve(Part.self) == nil)
                #expect(throws: ResolutionError.self) { try c.require(Part.self) }
            }
            #expect(c.resolve(Part.self, name: "ok") != nil)
        }
    }

    @Test func aThrowingFactoryThatChangesItsOwnEntryThenThrows() {
        let c = Container()
        var entry: ServiceEntry<Part>?
        var runs = 0
        entry = c.register(Part.self) { r throws in
            runs += 1
            entry?.initCompleted { _, _ in }
            entry?.inObjectScope(.container)
            if runs == 1 { throw PlanThrown() }
            return Part("second")
        }
        .inObjectScope(.transient)
        #expect(c.resolve(Part.self) == nil)
        let second = c.resolve(Part.self)
        #expect(second?.label == "second")
        #expect(c.resolve(Part.self) === second)
        let f = c.register(Part.self, name: "r") { r throws in
            c.register(Part.self, name: "r") { _ in Part("new") }
            c.removeAll()
            throw PlanThrown()
        }
        _ = f
        #expect(c.resolve(Part.self, name: "r") == nil)
        entry = nil
    }

    @Test func unboundCurrentRequireThrows() {
        #expect(throws: ResolutionError.self) { try SynchronizedResolver.current.require(Part.self) }
    }

    @Test func concurrentRequireThroughAViewWithThrowingFactories() async {
        let c = Container()
        c.register(Part.self, name: "leaf") { _ throws in Part("leaf") }.inObjectScope(.transient)
        c.register(Part.self, name: "bad") { _ throws in throw PlanThrown() }
        c.register(Part.self) { r throws in
            Part("top", [try r.require(Part.self, name: "leaf"), try? r.require(Part.self, name: "bad")])
        }
        let view = c.synchronize()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var ok = 0
                    for _ in 0..<200 {
                        if (try? view.require(Part.self)) != nil { ok += 1 }
                        if (try? view.require(Part.self, name: "leaf")) != nil { ok += 1 }
                    }
                    return ok
                }
            }
            var total = 0
            for await n in group { total += n }
            #expect(total >= 4 * 200)
        }
    }
}
