import Foundation
import GraftTesting
import Testing

@testable import Graft

private final class Unregistered {}
private final class Wallet {}
private final class Ticket {}
private final class Badge {}
private final class Stray {}
private final class Crate {}
private protocol Shelf {}
private enum Elsewhere {
    final class Ticket {}
}
private struct Jammed: Error {}
private final class Gadget {}
private final class Sprocket {}
private final class Widget { init(_ sprocket: Sprocket?) {} }
private final class OptionalGuest {}
private final class Visitor { let guest: OptionalGuest?; init(guest: OptionalGuest?) { self.guest = guest } }
private final class Fragile {}
private final class Hinge {}
private final class Door { init(_ hinge: Hinge?) {} }

@Suite(.capturedLog) struct LoggingTests {
    @Test func unregisteredTypeReturnsNilAndSaysNothingExists() {
        let log = LogCapture()
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        let before = container.description

        #expect(log.capturing { container.resolve(Unregistered.self) } == nil)
        let messages = log.messages(mentioning: "no registration of Unregistered taking no arguments")
        #expect(messages.count == 1)
        #expect(messages.first?.contains("No registration of Unregistered exists") == true)
        #expect(container.description == before)
        #expect(container.resolve(Animal.self) != nil)
    }

    @Test func wrongNameListsTheRegistrationsThatExist() {
        let log = LogCapture()
        let parent = Container()
        parent.register(Wallet.self, name: "leather") { _ in Wallet() }
        let container = Container(parent: parent)
        container.register(Wallet.self) { (_, owner: String) in Wallet() }

        #expect(log.capturing { container.resolve(Wallet.self, name: "plastic") } == nil)
        let message = log.messages(mentioning: "no registration of Wallet named \"plastic\"").first ?? ""
        #expect(message.contains("Registrations of Wallet that exist:"))
        #expect(message.contains("Name: \"leather\", Factory: Resolver -> Wallet, ObjectScope: graph } in its parent"))
        #expect(message.contains("Factory: (Resolver, String) -> Wallet, ObjectScope: graph } in this container"))
    }

    /// A type registered under many names: a miss lists the first 20, nearest container first and
    /// in registration order, counts the rest, and still suggests a near name beyond those listed.
    @Test func aMissListsAtMostTwentyRegistrationsOfTheTypeAndCountsTheRest() {
        let log = LogCapture()
        let parent = Container()
        for index in 0..<10 { parent.register(Wallet.self, name: "p\(index)") { _ in Wallet() } }
        let container = Container(parent: parent)
        for index in 10..<35 { container.register(Wallet.self, name: "w\(index)") { _ in Wallet() } }

        #expect(log.capturing { container.resolve(Wallet.self, name: "w3") } == nil)
        let message = log.messages(mentioning: "named \"w3\"").first ?? ""
        let listed = message.split(separator: "\n").filter { $0.hasPrefix("    { ") }
        #expect(listed.count == 20)
        #expect(message.contains("Name: \"w10\""))
        #expect(message.contains("Name: \"w29\""))
        #expect(!message.contains("Name: \"w30\""))
        #expect(!message.contains("Name: \"p0\""))
        #expect(message.contains("    and 15 more of Wallet (`registrations` lists every one)."))
        #expect(message.contains("Did you mean `p3` or `w13` or `w23` or `w30` or `w31` or `w32` or `w33` or `w34`?"))

        container.register(Wallet.self, name: "w3") { _ in Wallet() }
        #expect(container.resolve(Wallet.self, name: "w3") != nil)
    }

    @Test func nearNameIsSuggested() {
        let log = LogCapture()
        let container = Container()
        container.register(Wallet.self, name: "payments") { _ in Wallet() }
        container.register(Wallet.self, name: "shipping") { _ in Wallet() }

        #expect(log.capturing { container.resolve(Wallet.self, name: "paymnets") } == nil)
        #expect(log.capturing { container.resolve(Wallet.self, name: "Shipping") } == nil)
        #expect(log.capturing { container.resolve(Wallet.self, name: "refunds") } == nil)
        #expect(log.messages(mentioning: "named \"paymnets\"").first?.contains("Did you mean `payments`?") == true)
        #expect(log.messages(mentioning: "named \"Shipping\"").first?.contains("Did you mean `shipping`?") == true)
        #expect(log.messages(mentioning: "named \"refunds\"").first?.contains("Did you mean") == false)
    }

    /// A `Lazy` or `Provider` needs no registration of its own: a mistyped name through one is
    /// explained for the service it wraps, with the same suggestions.
    @Test func mistypedNameThroughALazyOrProviderNamesTheServiceAndSuggestsNearNames() throws {
        let log = LogCapture()
        let container = Container()
        container.register(Wallet.self, name: "payments") { _ in Wallet() }

        #expect(log.capturing { container.resolve(Lazy<Wallet>.self, name: "paymints") } == nil)
        let logged = log.messages(mentioning: "named \"paymints\"").first ?? ""
        #expect(
            logged.contains(
                "no registration of Wallet named \"paymints\" taking no arguments (asked for as Lazy<Wallet>)."))
        #expect(logged.contains("Did you mean `payments`?"))
        #expect(logged.contains("Registrations of Wallet that exist:"))
        let error = try #require(
            #expect(throws: ResolutionError.self) {
                try container.synchronize().require(Provider<Wallet>.self, name: "paymints")
            })
        #expect(error.description.contains("no registration of Wallet named \"paymints\""))
        #expect(error.description.contains("(asked for as Provider<Wallet>)"))
        #expect(error.description.contains("Did you mean `payments`?"))
    }

    @Test func nearNameRegisteredOnlyWithOtherArgumentsIsNotSuggestedButExplained() throws {
        let container = Container()
        container.register(Wallet.self, name: "payments") { (_: Resolver, _: Int) in Wallet() }

        let error = try #require(
            #expect(throws: ResolutionError.self) { try container.require(Wallet.self, name: "payment") })

        #expect(!error.description.contains("Did you mean"))
        #expect(
            error.description.contains(
                "`payments` is registered with arguments (Int); this request passes no arguments."))
        #expect(container.resolve(Wallet.self, name: "payments", argument: 1) != nil)
    }

    @Test func nearNameIsSuggestedOnlyFromRegistrationsTakingTheArgumentsAsked() throws {
        let container = Container()
        container.register(Wallet.self, name: "payments") { (_: Resolver, _: Int) in Wallet() }
        container.register(Wallet.self, name: "refunds") { (_: Resolver, _: String) in Wallet() }
        container.register(Wallet.self, name: "refund") { _ in Wallet() }

        let error = try #require(
            #expect(throws: ResolutionError.self) { try container.require(Wallet.self, name: "refundz", argument: 2) })

        #expect(!error.description.contains("Did you mean"))
        #expect(
            error.description.contains("`refund` is registered with no arguments; this request passes arguments (Int).")
        )
        #expect(
            error.description.contains(
                "`refunds` is registered with arguments (String); this request passes arguments (Int)."))

        let nearby = try #require(
            #expect(throws: ResolutionError.self) { try container.require(Wallet.self, name: "paymentz", argument: 2) })
        #expect(nearby.description.contains("Did you mean `payments`?"))
        #expect(!nearby.description.contains("is registered with"))
    }

    @Test func typeOfTheSameNameElsewhereIsSuggested() {
        let log = LogCapture()
        let container = Container()
        container.register(Elsewhere.Ticket.self) { _ in Elsewhere.Ticket() }

        #expect(log.capturing { container.resolve(Ticket.self) } == nil)
        let message = log.messages(mentioning: "no registration of Ticket taking no arguments").first ?? ""
        #expect(message.contains("Elsewhere.Ticket`? The type asked for is `GraftTests."))
        #expect(message.contains("a different type of the same name"))
    }

    @Test func typeRegisteredNowhereNamesTheLikelyCauses() {
        let log = LogCapture()
        let container = Container()
        #expect(log.capturing { container.resolve((any Shelf).self) } == nil)
        #expect(log.capturing { container.resolve(Crate.self) } == nil)
        let shelf = log.messages(mentioning: "no registration of Shelf taking no arguments").first ?? ""
        #expect(shelf.contains("the Assembly that registers it was not applied to this container or an ancestor"))
        #expect(shelf.contains("register it as `Shelf.self`, or add `.implements(Shelf.self)`"))
        #expect(shelf.contains("it is registered in a container this one does not see"))
        #expect(!shelf.contains("never sees"))  // no child of this hierarchy registers it
        let crate = log.messages(mentioning: "no registration of Crate taking no arguments").first ?? ""
        #expect(crate.contains("the Assembly that registers it was not applied"))
        #expect(!crate.contains(".implements"))  // a class is not asked for as a protocol
    }

    @Test func registrationOnlyInAChildSaysAParentNeverSeesIt() {
        let log = LogCapture()
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Crate.self, name: "child only") { _ in Crate() }
        #expect(log.capturing { parent.resolve(Crate.self, name: "child only") } == nil)
        let message = log.messages(mentioning: "no registration of Crate named \"child only\"").first ?? ""
        #expect(message.contains("in a child container, not visible from here"))
        #expect(message.contains("A parent never sees the registrations of its children"))
        withExtendedLifetime(child) {}
    }

    @Test func registrationOnlyInASiblingNamesTheSiblingAndNotAChild() {
        let log = LogCapture()
        let parent = Container()
        let orders = Container(parent: parent)
        let payments = Container(parent: parent)
        payments.register(Crate.self, name: "sibling only") { _ in Crate() }
        #expect(log.capturing { orders.resolve(Crate.self, name: "sibling only") } == nil)
        let message = log.messages(mentioning: "no registration of Crate named \"sibling only\"").first ?? ""
        #expect(message.contains("in a sibling container (another child of this container's parent), not visible"))
        #expect(message.contains("never those of a sibling"))
        #expect(!message.contains("a child container"))
        #expect(!message.contains("A parent never sees"))
        withExtendedLifetime((orders, payments)) {}
    }

    @Test func registrationInAnotherBranchIsPlacedInThatBranch() {
        let log = LogCapture()
        let root = Container()
        let feature = Container(parent: root)
        let screen = Container(parent: feature)
        let leaf = Container(parent: feature)
        let other = Container(parent: root)
        let otherScreen = Container(parent: other)
        let grandchild = Container(parent: screen)
        otherScreen.register(Crate.self, name: "cousin") { _ in Crate() }
        other.register(Crate.self, name: "uncle") { _ in Crate() }
        grandchild.register(Crate.self, name: "nephew") { _ in Crate() }

        #expect(log.capturing { leaf.resolve(Crate.self, name: "absent") } == nil)
        #expect(log.capturing { feature.resolve(Crate.self, name: "absent") } == nil)

        let fromLeaf = log.messages(mentioning: "Crate named \"absent\"").first ?? ""
        #expect(
            fromLeaf.contains("Name: \"cousin\", Factory: Resolver -> Crate } in another container of this hierarchy"))
        #expect(
            fromLeaf.contains("\"uncle\", Factory: Resolver -> Crate } in a child of an ancestor of this container"))
        #expect(fromLeaf.contains("\"nephew\", Factory: Resolver -> Crate } in a descendant of a sibling container"))
        #expect(!fromLeaf.contains("A parent never sees"))
        let fromFeature = log.messages(mentioning: "Crate named \"absent\"").last ?? ""
        #expect(
            fromFeature.contains("\"nephew\", Factory: Resolver -> Crate } in a descendant container (below a child"))
        #expect(fromFeature.contains("\"uncle\", Factory: Resolver -> Crate } in a sibling container"))
        #expect(fromFeature.contains("A parent never sees the registrations of its children"))
        withExtendedLifetime((leaf, otherScreen, grandchild)) {}
    }

    @Test func wrongArgumentTypesNameTheTypesGivenAndRegistered() {
        let log = LogCapture()
        let container = Container()
        container.register(Ticket.self) { (_, seat: Int) in Ticket() }

        #expect(log.capturing { container.resolve(Ticket.self, arguments: "12A", true) } == nil)
        let message = log.messages(mentioning: "no registration of Ticket taking arguments (String, Bool)").first
        #expect(message?.contains("Factory: (Resolver, Int) -> Ticket") == true)
        #expect(container.resolve(Ticket.self, argument: 12) != nil)
    }

    @Test func failedResolutionChangesNothing() {
        let container = Container()
        container.register(Badge.self) { _ in Badge() }.inObjectScope(.container)
        let badge = container.resolve(Badge.self)
        let description = container.description
        _ = LogCapture().capturing {
            (
                container.resolve(Badge.self, name: "x"), container.resolve(Badge.self, argument: 1),
                container.resolve(Stray.self)
            )
        }
        #expect(container.description == description)
        #expect(container.resolve(Badge.self) === badge)
        #expect(container.hierarchy.resolution.depth == 0)
    }

    /// `require` throws its failure: the caller has it, and logging it too would report a
    /// failure the caller may have handled.
    @Test func requireFailureIsThrownNotLogged() {
        let log = LogCapture()
        let container = Container()
        container.register(Gadget.self) { _ in throw Jammed() }
        container.register(Widget.self) { r in Widget(try r.require(Sprocket.self)) }

        #expect(throws: ResolutionError.self) { try container.require(Gadget.self) }
        #expect(throws: ResolutionError.self) { try container.synchronize().require(Gadget.self) }
        #expect(throws: ResolutionError.self) { try container.require(Widget.self) }
        #expect(throws: ResolutionError.self) { try container.require(Sprocket.self, argument: 1) }
        #expect(log.messages(mentioning: "Gadget").isEmpty)
        #expect(log.messages(mentioning: "Sprocket").isEmpty)
    }

    fileprivate final class ResolvesOnDeinit {
        let resolve: () -> Void
        init(_ resolve: @escaping () -> Void) { self.resolve = resolve }
        deinit { resolve() }
    }
    fileprivate final class Holding { init(_ unused: ResolvesOnDeinit?) {} }
    fileprivate protocol NotImplemented {}
    fileprivate final class Caught { var error: ResolutionError? }
    /// A custom scope's storage that never answers an instance and keeps the last one given,
    /// releasing the one before.
    fileprivate final class KeepsTheLast: InstanceStorage {
        private var held: Any?
        var instance: Any? {
            get { nil }
            set { withExtendedLifetime(exchange(&held, newValue)) {} }
        }
    }

    /// A resolution that user code starts while a top-level `require` runs (a `deinit` of a
    /// graph-scoped instance released as the request ends) is a call of its own: its failure is
    /// logged as any `resolve`'s, though it starts at the frame count of the `require`, whose own
    /// failure is thrown. The same for a `require` in a factory whose construction fails: the
    /// graph-scoped instance it made is dropped, and its `deinit` resolves at that frame count; and
    /// for a `require` of a type a transient registration was forwarded to, whose instance is not
    /// one: the instance is dropped there too; and for a custom scope's storage that releases the
    /// instance it held when it is given the new one.
    @Test(arguments: [
        "require", "resolve", "a factory's failed require", "a forward to a type not implemented",
        "a custom storage replacing its instance",
    ])
    func aResolutionADeinitStartsDuringARequireLogsItsFailure(top: String) {
        let log = LogCapture()
        let container = Container()
        container.register(ResolvesOnDeinit.self) { _ in
            ResolvesOnDeinit { [weak container] in _ = container?.resolve(Stray.self) }
        }
        container.register(Holding.self) { r in
            _ = r.resolve(ResolvesOnDeinit.self)
            if top == "a factory's failed require" { throw Jammed() }
            return Holding(nil)
        }
        container.register(Door.self) { r in Door((try? r.require(Holding.self)).map { _ in Hinge() }) }
        container.register(ResolvesOnDeinit.self, name: "forwarded") { _ in
            ResolvesOnDeinit { [weak container] in _ = container?.resolve(Stray.self) }
        }.inObjectScope(.transient).implements(NotImplemented.self, name: "forwarded")
        container.register(ResolvesOnDeinit.self, name: "stored") { _ in
            ResolvesOnDeinit { [weak container] in _ = container?.resolve(Stray.self) }
        }.inObjectScope(ObjectScope(storageFactory: KeepsTheLast.init))
        let replacing = top == "a custom storage replacing its instance"
        if replacing { _ = container.resolve(ResolvesOnDeinit.self, name: "stored") }
        let made: AnyObject? = log.capturing {
            if replacing { return try? container.require(ResolvesOnDeinit.self, name: "stored") }
            switch top {
            case "require": return try? container.require(Holding.self)
            case "resolve": return container.resolve(Holding.self)
            case "a factory's failed require": return container.resolve(Door.self)
            default:
                #expect(throws: ResolutionError.self) { try container.require(NotImplemented.self, name: "forwarded") }
                return container
            }
        }
        #expect(made != nil)
        #expect(log.messages(mentioning: "no registration of Stray").count == 1)
    }

    fileprivate final class Partner { var other: ResolvesOnDeinit? }
    fileprivate final class Loop { init(_ unused: ResolvesOnDeinit?) {} }

    /// An instance Graft drops at the frame count of a `require` runs its `deinit` outside that
    /// call: a miss it makes is logged, once, and the `require` throws its own failure, not one
    /// the `deinit` met. The instance of a factory whose request a cycle below it failed, at the
    /// top level, through a `require` in a factory or an `@Injected` first read; and the instance
    /// a factory made after an `initCompleted` action resolved the same graph-scoped service again
    /// (the graph keeps that one).
    @Test(arguments: [
        "a cycle fails the request", "a factory's require", "an instance the graph had already",
        "an @Injected first read",
    ])
    func anInstanceDroppedAtARequiresFrameCountRunsItsDeinitOutsideTheCall(shape: String) {
        let log = LogCapture()
        let container = Container()
        container.register(Gadget.self) { _ in throw Jammed() }
        container.register(ResolvesOnDeinit.self) { r in
            _ = r.resolve(Loop.self)
            return ResolvesOnDeinit { [weak container] in
                _ = container?.resolve(Stray.self)
                _ = container?.resolve(Gadget.self)
            }
        }
        container.register(Loop.self) { r in Loop(r.resolve(ResolvesOnDeinit.self)) }
        let deinits = Counter()
        container.register(ResolvesOnDeinit.self, name: "twice") { r in
            _ = r.resolve(Partner.self)
            return ResolvesOnDeinit { [weak container] in
                deinits.increment()
                _ = container?.resolve(Stray.self)
            }
        }
        container.register(Partner.self) { _ in Partner() }
            .initCompleted { r, partner in partner.other = r.resolve(ResolvesOnDeinit.self, name: "twice") }
        container.register(Door.self) { r in Door((try? r.require(ResolvesOnDeinit.self)).map { _ in Hinge() }) }
        var thrown: ResolutionError?
        log.capturing {
            switch shape {
            case "a cycle fails the request":
                do { _ = try container.require(ResolvesOnDeinit.self) } catch { thrown = error as? ResolutionError }
            case "a factory's require": #expect(container.resolve(Door.self) == nil)
            case "an @Injected first read":
                final class Reader { @Injected var part: ResolvesOnDeinit? }
                withResolver(container.synchronize()) { #expect(Reader().part == nil) }
            default: #expect((try? container.require(ResolvesOnDeinit.self, name: "twice")) != nil)
            }
        }
        #expect(log.messages(mentioning: "no registration of Stray").count == (shape.hasSuffix("already") ? 2 : 1))
        #expect(deinits.value == (shape.hasSuffix("already") ? 2 : 0))
        if shape == "a cycle fails the request" {
            var isCycle = false
            if case .circularDependency = thrown?.reason { isCycle = true }
            #expect(isCycle, "\(thrown?.message ?? "nothing thrown")")
        }
    }

    /// An instance dropped past a `require` with no factory running is released when that
    /// `require` returns: at the top level, and inside a `withObjectGraph` body (a scope is then
    /// open around it, and nothing piles up until the body ends). Dropped in a factory, it is
    /// released when the request running that factory ends, so that its `deinit` resolves as a
    /// request of its own; inside a `withObjectGraph` body too.
    @Test(arguments: ["top level", "withObjectGraph", "factory", "factory in withObjectGraph"])
    func anInstanceDroppedPastARequireIsReleasedWhenTheRequireReturnsOrItsFactorysRequestEnds(place: String) {
        let container = Container()
        let deinits = Counter()
        container.register(ResolvesOnDeinit.self) { r in
            _ = r.resolve(Loop.self)
            return ResolvesOnDeinit { deinits.increment() }
        }
        container.register(Loop.self) { r in Loop(r.resolve(ResolvesOnDeinit.self)) }
        let requireEach = { (r: Resolver) in
            for count in 1...3 {
                #expect((try? r.require(ResolvesOnDeinit.self)) == nil)
                #expect(deinits.value == count)
            }
        }
        container.register(Door.self) { r in
            #expect((try? r.require(ResolvesOnDeinit.self)) == nil)
            #expect(deinits.value == 0)
            return Door(nil)
        }
        switch place {
        case "top level": requireEach(container)
        case "withObjectGraph": container.withObjectGraph(GraphIdentifier()) { requireEach($0) }
        case "factory":
            #expect(container.resolve(Door.self) == nil)  // the cycle fails the whole request
            #expect(deinits.value == 1)
        default:
            container.withObjectGraph(GraphIdentifier()) { r in
                #expect(r.resolve(Door.self) == nil)
                #expect(deinits.value == 1)
            }
        }
    }

    fileprivate final class Dropped {
        let onDeinit: () -> Void
        init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }
    fileprivate final class DroppedPartner { var other: Dropped? }
    fileprivate final class Ping { init(_ unused: Pong?) {} }
    fileprivate final class Pong { init(_ unused: Ping?) {} }

    /// The `deinit` of an instance a factory's `require` dropped (the graph already held the one an
    /// `initCompleted` action made meanwhile) is no part of that factory's resolution: a cycle it
    /// meets fails only its own request, and a graph-scoped service it resolves is not the
    /// factory's graph's.
    @Test(arguments: ["a cycle", "a graph-scoped service"])
    func theDeinitOfAnInstanceAFactorysRequireDroppedResolvesAsARequestOfItsOwn(resolving: String) {
        let container = Container()
        final class Seen { var gadget, factorysGadget: Gadget? }
        let seen = Seen()
        container.register(Dropped.self) { [weak container] r in
            _ = r.resolve(DroppedPartner.self)
            return Dropped {
                if resolving == "a cycle" {
                    _ = container?.resolve(Ping.self)
                } else if seen.gadget == nil {
                    seen.gadget = container?.resolve(Gadget.self)
                }
            }
        }
        container.register(DroppedPartner.self) { _ in DroppedPartner() }
            .initCompleted { r, partner in partner.other = r.resolve(Dropped.self) }
        container.register(Ping.self) { r in Ping(r.resolve(Pong.self)) }
        container.register(Pong.self) { r in Pong(r.resolve(Ping.self)) }
        container.register(Gadget.self) { _ in Gadget() }
        container.register(Badge.self) { r in
            #expect((try? r.require(Dropped.self)) != nil)
            seen.factorysGadget = r.resolve(Gadget.self)
            return Badge()
        }
        #expect((try? container.require(Badge.self)) != nil)
        if resolving == "a graph-scoped service" {
            #expect(seen.gadget != nil && seen.factorysGadget != nil && seen.gadget !== seen.factorysGadget)
        }
    }

    /// A `require` of a type a transient registration was forwarded to, whose instance is not one,
    /// throws that wrong type, also when the dropped instance's `deinit` resolves a service whose
    /// factory throws: at the top level and in a factory that catches it.
    @Test(arguments: [false, true])
    func aRequireOfAForwardNotImplementedThrowsItsOwnFailureWhateverTheDeinitResolves(inAFactory: Bool) {
        let container = Container()
        container.register(Gadget.self) { _ in throw Jammed() }
        container.register(ResolvesOnDeinit.self) { _ in
            ResolvesOnDeinit { [weak container] in _ = container?.resolve(Gadget.self) }
        }.inObjectScope(.transient).implements(NotImplemented.self)
        let caught = Caught()
        container.register(Badge.self) { r in
            do { _ = try r.require(NotImplemented.self) } catch { caught.error = error as? ResolutionError }
            return Badge()
        }
        if inAFactory {
            #expect(container.resolve(Badge.self) != nil)
        } else {
            do { _ = try container.require(NotImplemented.self) } catch { caught.error = error }
        }
        var isWrongType = false
        if case .wrongType = caught.error?.reason { isWrongType = true }
        #expect(isWrongType, "\(caught.error?.message ?? "nothing thrown")")
    }

    /// A failure that a factory caught from `require` is handled: the outer `resolve` returns the
    /// factory's instance, and the failure is logged, once.
    @Test func caughtRequireFailureIsLoggedOnceAndTheOuterResolutionStands() {
        let log = LogCapture()
        let container = Container()
        container.register(Hinge.self) { _ in throw Jammed() }
        container.register(Door.self) { r in Door(try? r.require(Hinge.self)) }

        #expect(container.resolve(Door.self) != nil)
        let messages = log.messages(mentioning: "the factory of Hinge threw Jammed()")
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Path: Door -> Hinge") == true)
    }

    /// An optional dependency not registered is a deliberate "maybe", as in Swinject: no message,
    /// at the top or inside a factory; nor for `GraphIdentifier` outside a resolution.
    @Test func optionalNotRegisteredAndGraphIdentifierOutsideAResolutionAreNotLogged() throws {
        let log = LogCapture()
        let container = Container()
        container.register(Visitor.self) { r in Visitor(guest: r.resolve(OptionalGuest?.self) ?? nil) }

        #expect(try #require(container.resolve(Visitor.self)).guest == nil)
        #expect(container.resolve(OptionalGuest?.self) != nil)
        #expect(container.synchronize().resolve(OptionalGuest?.self) != nil)
        #expect(container.resolve(Lazy<OptionalGuest>?.self) != nil)
        #expect(container.resolve(GraphIdentifier.self) == nil)
        #expect(log.messages(mentioning: "OptionalGuest").isEmpty)
        #expect(log.messages(mentioning: "no registration of GraphIdentifier taking no arguments").isEmpty)
    }

    /// An optional dependency that is registered but fails is logged, and the factory that asked
    /// for it goes on without it.
    @Test func registeredOptionalThatFailsIsLoggedWithItsPath() {
        let log = LogCapture()
        let container = Container()
        container.register(Fragile.self) { _ in throw Jammed() }
        container.register(Stray.self) { r in
            _ = r.resolve(Fragile?.self)
            return Stray()
        }
        #expect(container.resolve(Stray.self) != nil)
        let messages = log.messages(mentioning: "the factory of Fragile threw")
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Path: Stray -> Fragile") == true)
    }

    @Test func silencedSinkBuildsNoMessage() {
        let sink = LogSink()
        sink.function = nil
        var built = false
        sink.log {
            built = true
            return "unused"
        }
        #expect(!built)
    }

    fileprivate struct Tagged: Error { let tag: String }
    fileprivate final class FailsOnDeinit: Error, @unchecked Sendable {  // immutable; one thread
        let onDeinit: () -> Void
        init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }
    fileprivate final class Seat {}
    fileprivate final class Bench {}

    /// A value the hierarchy releases past a call that hands its failure to its caller runs its
    /// `deinit` outside that call, at the top level and inside a `withObjectGraph` body: a failure
    /// the `deinit` meets is logged, and `require` throws (a `Lazy` logs) the call's own failure.
    /// Two such values: the error a record replaced (a graph-scoped instance the failed request
    /// dropped resolved a service whose error fails a resolution as it is released), and an entry
    /// its own factory replaced (its factory's captures fail a resolution as they are released).
    @Test(
        arguments: ["a replaced error", "an entry its factory replaced"],
        [
            "require", "require in withObjectGraph", "Lazy", "Lazy in withObjectGraph",
        ])
    func aValueReleasedPastACallRunsItsDeinitOutsideIt(value: String, call: String) {
        let log = LogCapture()
        let container = Container()
        container.register(Seat.self) { _ throws -> Seat in throw Tagged(tag: "seat") }
        if value == "a replaced error" {
            container.register(Bench.self) { [unowned container] _ throws -> Bench in
                throw FailsOnDeinit { _ = container.resolve(Seat.self) }
            }
            container.register(Dropped.self) { [unowned container] _ in
                Dropped { _ = container.resolve(Bench.self) }
            }.inObjectScope(.graph)
            container.register(Door.self) { r throws -> Door in
                _ = r.resolve(Dropped.self)
                throw Tagged(tag: "door")
            }
        } else {
            let failsOnDeinit = { [unowned container] in Dropped { _ = container.resolve(Seat.self) } }
            container.register(Door.self) { [unowned container, captured = failsOnDeinit()] _ throws -> Door in
                withExtendedLifetime(captured) {}
                container.register(Door.self) { _ in Door(nil) }
                throw Tagged(tag: "door")
            }
        }
        let run = { (r: Resolver) in
            if call.hasPrefix("require") {
                do {
                    _ = try r.require(Door.self)
                    Issue.record("require returned")
                } catch {
                    let message = (error as? ResolutionError)?.message ?? "\(error)"
                    #expect(message.contains("tag: \"door\""), "\(message)")
                }
            } else {
                #expect(r.resolve(Lazy<Door?>.self)?.instance == nil)
            }
        }
        log.capturing {
            if call.hasSuffix("withObjectGraph") {
                container.withObjectGraph(GraphIdentifier()) { run($0) }
            } else {
                run(container)
            }
        }
        #expect(log.messages(mentioning: "tag: \"seat\"").count == 1)
        #expect(log.messages(mentioning: "tag: \"door\"").count == (call.hasPrefix("Lazy") ? 1 : 0))
    }

    /// A logging function that resolves while Graft logs a failure a factory handled (at the end
    /// of the request of a `require` or a `Lazy`) makes a resolution of its own: its failure is
    /// logged, on a plain container as through a view.
    @Test(arguments: [false, true], ["require", "Lazy"])
    func aResolutionTheLoggingFunctionMakesLogsItsOwnFailure(throughView: Bool, call: String) {
        nonisolated(unsafe) let container = Container()
        container.register(Seat.self) { _ throws -> Seat in throw Tagged(tag: "seat") }
        container.register(Bench.self) { _ throws -> Bench in throw Tagged(tag: "bench") }
        container.register(Door.self) { r in
            _ = try? r.require(Seat.self)
            return Door(nil)
        }
        let resolver: Resolver = throughView ? container.synchronize() : container
        let messages = Box<[String]>([])
        nonisolated(unsafe) let state = (messages: messages, logging: Box(false))
        let logAndResolve: @Sendable (String) -> Void = { message in
            state.messages.value.append(message)
            guard !state.logging.value else { return }
            state.logging.value = true
            _ = container.resolve(Bench.self)
            state.logging.value = false
        }
        Container.withLoggingFunction(logAndResolve) {
            if call == "require" {
                #expect((try? resolver.require(Door.self)) != nil)
            } else {
                #expect(resolver.resolve(Lazy<Door>.self)?.instance != nil)
            }
        }
        #expect(messages.value.filter { $0.contains("tag: \"seat\"") }.count == 1)
        #expect(messages.value.filter { $0.contains("tag: \"bench\"") }.count == 1)
    }

    /// The logging function is told of a failure once the request that met it has ended: what it
    /// resolves then is a request of its own, which makes what it needs (after a cycle too, whose
    /// request failed as a whole).
    @Test func aLoggingFunctionToldOfACycleResolvesAsARequestOfItsOwn() {
        nonisolated(unsafe) let container = Container()
        container.register(Bench.self) { _ in Bench() }.inObjectScope(.container)
        container.register(Seat.self) { _ in Seat() }
        container.register(Door.self) { r in Door(r.resolve(Hinge.self)) }
        container.register(Hinge.self) { r in
            _ = r.resolve(Door.self)
            return Hinge()
        }
        let found = Box<[String]>([])
        nonisolated(unsafe) let shared = found
        let log: @Sendable (String) -> Void = { _ in
            shared.value.append("\(container.resolve(Bench.self) != nil) \(container.resolve(Seat.self) != nil)")
        }
        Container.withLoggingFunction(log) {
            #expect(container.resolve(Door.self) == nil)
        }
        #expect(found.value == ["true true"])
    }

    /// A logging function that resolves a `.container` logger first made by a request that logs
    /// (a missing optional dependency, a factory that throws once the logger is made): the
    /// request goes on as it would with no logging function, and the logger is made once. Told
    /// inside the request, the function's resolution would be part of it: the logger's own
    /// request failing as a cycle every time, or the logger dropped with the failed request and
    /// made again.
    @Test(arguments: [false, true], [false, true])
    func aLoggingFunctionThatResolvesALoggerChangesNoAnswer(factoryThrows: Bool, throughView: Bool) {
        final class Destination {}
        final class AppLogger { init(_ destination: Destination?) {} }
        final class Service {}
        let container = Container()
        nonisolated(unsafe) let resolver: Resolver = throughView ? container.synchronize() : container
        let made = Counter()
        container.register(AppLogger.self) { r in
            made.increment()
            return AppLogger(r.resolve(Destination.self))
        }.inObjectScope(.container)
        container.register(Service.self) { (r: Resolver) throws -> Service in
            _ = r.resolve(Unregistered.self)
            if factoryThrows { throw Jammed() }
            return Service()
        }
        let loggers = Box<[AppLogger?]>([])
        nonisolated(unsafe) let shared = loggers
        let log: @Sendable (String) -> Void = { _ in shared.value.append(resolver.resolve(AppLogger.self)) }
        Container.withLoggingFunction(log) {
            #expect((resolver.resolve(Service.self) == nil) == factoryThrows)
            #expect(resolver.resolve(AppLogger.self) != nil)
        }
        #expect(made.value == 1)
        #expect(loggers.value.count >= 2 && loggers.value.allSatisfy { $0 != nil && $0 === loggers.value[0] })
    }

    /// A failure of the logging function's own `require`, which it catches, is its own: not
    /// logged as a failure the request's factory handled.
    @Test(arguments: [false, true])
    func aRequireTheLoggingFunctionCatchesIsNotLoggedAsTheFactorys(throughView: Bool) {
        final class Service {}
        let container = Container()
        nonisolated(unsafe) let resolver: Resolver = throughView ? container.synchronize() : container
        container.register(Gadget.self) { _ in throw Jammed() }
        container.register(Service.self) { r in
            _ = r.resolve(Unregistered.self)
            return Service()
        }
        let messages = Box<[String]>([])
        nonisolated(unsafe) let shared = messages
        let log: @Sendable (String) -> Void = { message in
            shared.value.append(message)
            if shared.value.count == 1 { _ = try? resolver.require(Gadget.self) }
        }
        Container.withLoggingFunction(log) {
            #expect(resolver.resolve(Service.self) != nil)
        }
        #expect(messages.value.count == 1)
        #expect(messages.value.first?.contains("no registration of Unregistered") == true)
    }

    /// A message goes to the logging function bound where the failure was met, though it is
    /// delivered once the request has ended: a factory that binds one of its own around a
    /// resolution gets that resolution's failure, and the function bound around the request
    /// does not.
    @Test(arguments: [false, true])
    func aMessageGoesToTheFunctionBoundWhereItsFailureWasMet(throughView: Bool) {
        final class Service {}
        let container = Container()
        let resolver: Resolver = throughView ? container.synchronize() : container
        let inner = Box<[String]>([])
        let outer = Box<[String]>([])
        nonisolated(unsafe) let (innerShared, outerShared) = (inner, outer)
        container.register(Service.self) { r in
            let log: @Sendable (String) -> Void = { innerShared.value.append($0) }
            Container.withLoggingFunction(log) { _ = r.resolve(Unregistered.self) }
            _ = r.resolve(Gadget.self)
            return Service()
        }
        let log: @Sendable (String) -> Void = { outerShared.value.append($0) }
        Container.withLoggingFunction(log) {
            #expect(resolver.resolve(Service.self) != nil)
        }
        #expect(inner.value.count == 1 && inner.value.first?.contains("no registration of Unregistered") == true)
        #expect(outer.value.count == 1 && outer.value.first?.contains("no registration of Gadget") == true)
    }

    /// A `require` whose request held a message throws its own failure, though the logging
    /// function, told as the call ends, resolves something that fails: that resolution records
    /// its failure and forgets it before the call reads its own.
    @Test(arguments: [false, true], [false, true])
    func aRequireThatHeldAMessageThrowsItsOwnFailureThoughTheFunctionsResolutionFails(
        inAChild: Bool, throughView: Bool
    ) throws {
        final class Service {}
        let root = Container()
        let container = inAChild ? Container(parent: root) : root
        nonisolated(unsafe) let resolver: Resolver = throughView ? container.synchronize() : container
        root.register(Service.self) { r in
            _ = r.resolve(Unregistered.self)
            throw Jammed()
        }
        root.register(Gadget.self) { _ in throw Jammed() }
        let log: @Sendable (String) -> Void = { _ in
            _ = resolver.resolve(Gadget.self)
            _ = try? resolver.require(Gadget.self)
        }
        let error = Container.withLoggingFunction(log) { () -> ResolutionError? in
            do {
                _ = try resolver.require(Service.self)
                return nil
            } catch {
                return error as? ResolutionError
            }
        }
        let failure = try #require(error)
        #expect(failure.message.contains("the factory of Service threw"), "\(failure.message)")
        #expect(failure.path.last == "Service")
    }

    /// Inside a `withObjectGraph` body each resolution is a request of its own: its messages are
    /// delivered when it ends, not when the scope does.
    @Test(arguments: [false, true])
    func aMessageOfAResolutionInAGraphScopeIsDeliveredWhenItEnds(throughView: Bool) {
        final class Service {}
        let container = Container()
        container.register(Service.self) { r in
            _ = r.resolve(Unregistered.self)
            return Service()
        }
        let messages = Box<[String]>([])
        nonisolated(unsafe) let shared = messages
        let log: @Sendable (String) -> Void = { shared.value.append($0) }
        var seen: [Int] = []
        Container.withLoggingFunction(log) {
            _ = container.withObjectGraph(GraphIdentifier()) { container in
                let r: Resolver = throughView ? container.synchronize() : container
                _ = r.resolve(Gadget.self)
                seen.append(messages.value.count)
                _ = r.resolve(Service.self)
                seen.append(messages.value.count)
                return true
            }
        }
        #expect(seen == [1, 2])
    }

    /// Messages are delivered in the order their failures were met: a request's own failure
    /// before what a `deinit` its teardown ran then logged.
    @Test(arguments: [false, true])
    func heldMessagesKeepTheOrderOfTheirFailures(throughView: Bool) {
        final class Service {}
        final class Part {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let container = Container()
        nonisolated(unsafe) let resolver: Resolver = throughView ? container.synchronize() : container
        container.register(Part.self) { _ in Part { _ = resolver.resolve(Gadget.self) } }
        container.register(Service.self) { (r: Resolver) throws -> Service in
            _ = r.resolve(Unregistered.self)
            _ = r.resolve(Part.self)
            throw Jammed()
        }
        let messages = Box<[String]>([])
        nonisolated(unsafe) let shared = messages
        let log: @Sendable (String) -> Void = { shared.value.append($0) }
        Container.withLoggingFunction(log) {
            #expect(resolver.resolve(Service.self) == nil)
        }
        let order = messages.value.map { message in
            message.contains("Unregistered")
                ? "miss" : message.contains("threw") ? "threw" : message.contains("Gadget") ? "deinit" : message
        }
        #expect(order == ["miss", "threw", "deinit"])
    }

    @Test func sinkDeliversMessagesToItsFunction() {
        let sink = LogSink()
        let received = Box<[String]>([])
        sink.function = { received.value.append($0) }
        sink.log { "hello" }
        #expect(received.value == ["hello"])
        #expect(sink.function != nil)
    }

    @Test func loggingFunctionIsSettable() {
        _ = LogCapture()  // installs the process-wide recorder through the public setter
        #expect(Container.loggingFunction != nil)
    }
}

private final class Absent {}

@Suite struct LogSinkLockTests {
    /// Replacing the logging function releases the old one outside the log sink's lock: when it
    /// holds the last reference to a container, its `deinit` takes the hierarchy's mutex, while a
    /// failed synchronized resolution, holding that mutex, may be waiting for the sink's lock (a
    /// deadlock if the release ran under the lock). Run in its own process (it replaces the process-wide function), with a
    /// watchdog: a deadlock fails the test instead of hanging it.
    @Test func replacingTheLoggingFunctionDoesNotDeadlockAgainstAFailingSynchronizedResolve() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let rootView = Container().synchronize()
            let finished = DispatchSemaphore(value: 0)
            Thread {
                for _ in 0..<20_000 {
                    let child = Container(parent: rootView).synchronize()
                    Container.loggingFunction = { _ in _ = child }  // drops the previous function
                }
                finished.signal()
            }.start()
            Thread {
                for _ in 0..<20_000 { _ = rootView.resolve(Absent.self) }
                finished.signal()
            }.start()
            for _ in 0..<2 where finished.wait(timeout: .now() + 60) == .timedOut {
                fatalError("deadlock between the log sink's lock and the hierarchy's mutex")
            }
        }
        if let result { print(String(decoding: result.standardErrorContent, as: UTF8.self)) }
    }

    @Test(.serialized, arguments: ["resolve", "resolveAll of a wrapper"])
    func loggingFunctionRunsWithNoLockOfGraftsHeld(call: String) {
        LogCapture.buildMessagesProcessWide()
        let first = Container()
        let firstHierarchy = UncheckedBox(first.hierarchy)
        let second = Container()
        final class NeverRegistered {}
        final class Registered {}
        second.register(Registered.self) { _ in Registered() }
        let firstView = first.synchronize()
        let secondView = second.synchronize()
        let mutexFree = Counter()
        let previous = Container.loggingFunction
        defer { Container.loggingFunction = previous }
        Container.loggingFunction = { message in
            previous?(message)
            guard message.contains("NeverRegistered") else { return }
            // Another thread can take the failing hierarchy's mutex: this thread does not hold it.
            let other = DispatchSemaphore(value: 0)
            let taken = LockedFlag()
            Thread {
                if firstHierarchy.value.mutex.tryWithLock({ true }) == true { taken.set() }
                other.signal()
            }.start()
            other.wait()
            if taken.value { mutexFree.increment() }
            _ = secondView.resolve(Registered.self)  // and may resolve in another hierarchy
        }
        if call == "resolve" {
            #expect(firstView.resolve(NeverRegistered.self) == nil)
        } else {
            #expect(firstView.resolveAll(Lazy<NeverRegistered>.self) == nil)
        }
        #expect(mutexFree.value == 1)
    }
}

private final class NeverLogged {}

/// A logging function whose own resolutions fail is told of its own failure once, not without end.
@Suite struct LoggingFunctionRecursionTests {
    enum Binding: String, CaseIterable, Codable, Sendable { case plain, view, task }

    /// A logging function that resolves an unregistered type each time it runs, on a plain
    /// container, through a view, and bound to a task: it is called for the failure it was told of
    /// and for its own resolution's, and the failure of the resolution it makes then goes to
    /// standard error. Before the bound, it called itself until the stack overflowed.
    @Test(arguments: Binding.allCases)
    func aLoggingFunctionWhoseResolutionsFailIsNotCalledWithoutEnd(_ binding: Binding) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [binding = binding as Binding] in
            let container = Container()
            nonisolated(unsafe) let resolver: Resolver = binding == .view ? container.synchronize() : container
            nonisolated(unsafe) var calls = 0
            let log: @Sendable (String) -> Void = { _ in
                calls += 1
                if calls > 10 { fatalError("the logging function was called \(calls) times") }
                _ = resolver.resolve(NeverLogged.self)
            }
            if binding == .task {
                Container.loggingFunction = nil
                Container.withLoggingFunction(log) { _ = resolver.resolve(NeverLogged.self) }
            } else {
                Container.loggingFunction = log
                _ = resolver.resolve(NeverLogged.self)
            }
            if calls != 2 { fatalError("the logging function was called \(calls) times, not 2") }
            // The process keeps resolving as before.
            container.register(NeverLogged.self) { _ in NeverLogged() }
            if container.resolve(NeverLogged.self) == nil { fatalError("no resolution after the bound") }
        }
        let printed = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(printed.components(separatedBy: "no registration of NeverLogged").count == 2)
        #expect(printed.contains("not to the logging function"))
    }

    /// A `Lazy` whose resolution held a message stops with its own failure, though the logging
    /// function, told as the read ends, resolves something that fails.
    @Test func aLazyThatHeldAMessageStopsWithItsOwnFailure() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Service {}
            struct Jam: Error {}
            let container = Container()
            container.register(Service.self) { r in
                _ = r.resolve(NeverLogged.self)
                throw Jam()
            }
            container.register(Gadget.self) { _ in throw Jam() }
            Container.loggingFunction = { _ in _ = container.resolve(Gadget.self) }
            _ = container.resolve(Lazy<Service>.self)?.instance
        }.map { result in
            let printed = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(printed.contains("the factory of Service threw"))
            #expect(!printed.contains("not registered"))
        }
    }

    /// A logging function told of a failure once its request has ended, whose own `require` fails
    /// with an error whose `deinit` fails a resolution: the function is told of that failure once,
    /// inside itself, and standard error of the next. Delivered from a teardown's loop of
    /// releases instead, outside the function, each such message would be a new first call,
    /// without end: messages wait until the hierarchy is idle.
    @Test(arguments: Binding.allCases)
    func aLoggingFunctionWhoseFailuresLogOnceReleasedIsNotCalledWithoutEnd(_ binding: Binding) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [binding = binding as Binding] in
            final class Service {}
            final class Thrown: Error, @unchecked Sendable {  // immutable; one thread
                let onDeinit: () -> Void
                init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
                deinit { onDeinit() }
            }
            let container = Container()
            nonisolated(unsafe) let resolver: Resolver = binding == .view ? container.synchronize() : container
            container.register(Service.self) { r in
                _ = r.resolve(NeverLogged.self)
                return Service()
            }
            container.register(Gadget.self) { _ in throw Thrown { _ = resolver.resolve(NeverLogged.self) } }
            nonisolated(unsafe) var calls = 0
            let log: @Sendable (String) -> Void = { _ in
                calls += 1
                if calls > 10 { fatalError("the logging function was called \(calls) times") }
                _ = try? resolver.require(Gadget.self)
            }
            if binding == .task {
                Container.loggingFunction = nil
                Container.withLoggingFunction(log) { _ = resolver.resolve(Service.self) }
            } else {
                Container.loggingFunction = log
                _ = resolver.resolve(Service.self)
            }
            if calls != 2 { fatalError("the logging function was called \(calls) times, not 2") }
        }
        let printed = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(printed.components(separatedBy: "no registration of NeverLogged").count == 2)
    }
}
