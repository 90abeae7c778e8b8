import Testing

@testable import Graft

private final class Shelf: Sendable {}

/// The scopes a behavior read from the registrations it was told about, before and after setting one.
private final class Scopes: @unchecked Sendable {  // touched by one test's thread
    var before: [ObjectScopeProtocol] = []
    var after: [ObjectScopeProtocol] = []
}

/// Reads the scope of what it is handed, sets `.container`, and reads it again.
private final class ScopeReadingBehavior: Behavior {
    let scopes: Scopes
    init(_ scopes: Scopes) { self.scopes = scopes }

    func container<Type, Service>(
        _ container: Container, didRegisterType type: Type.Type, toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        scopes.before.append(entry.objectScope)
        scopes.after.append(entry.inObjectScope(.container).objectScope)
    }
}

/// A behavior told about an async registration is handed what answers the synchronous `resolve`.
@Suite struct BehaviorsReadingTheScopeOfAsyncRegistrationsTests {
    /// What a behavior reads back from what it was handed is the registration's: the scope it set
    /// (and the `.container` an async registration has until then), never the gate's `.transient`.
    @Test func aScopeSetOnAnAsyncRegistrationReadsBackAsSet() {
        let scopes = Scopes()
        let container = Container()
        container.addBehavior(ScopeReadingBehavior(scopes))
        container.registerAsync(Shelf.self) { _ in Shelf() }

        #expect(scopes.before.count == 1 && scopes.after.count == 1)
        #expect(scopes.before.first === ObjectScope.container, "read \(String(describing: scopes.before.first))")
        #expect(scopes.after.first === ObjectScope.container, "read \(String(describing: scopes.after.first))")
    }
}
