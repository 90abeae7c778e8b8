import Testing

@testable import Graft

private final class Piece {}
private final class Reader {}

private final class PieceHolder {
    @Injected var part: Piece
}

@MainActor private final class MainHolder {
    @MainInjected var part: Piece
}

/// Runs `body` with a container that registers `Piece` and has a child that registered a `Reader`;
/// both are freed when it returns, and the child's link stays in the hierarchy.
private func withAFreedFamily<T>(_ body: (Container) -> T) -> T {
    let container = Container()
    container.register(Piece.self) { _ in Piece() }
    let child = Container(parent: container)
    child.register(Reader.self) { _ in Reader() }
    return withExtendedLifetime(child) { body(container) }
}

/// Dumps each of `values`, which must read no freed memory and name `Piece`.
private func expectDumpsNamePiece(_ values: [Any]) {
    for value in values {
        var text = ""
        dump(value, to: &text)
        #expect(text.contains("Piece"))
    }
}

/// `dump` (a debugger, a failing `#expect`) of the objects that outlive their container reads no
/// freed memory. A child container that registered something and was freed leaves its link in the
/// hierarchy those objects may reach.
@Suite struct FirstAccessReflectionTests {
    @Test func lazyAndProviderReflectAfterTheirContainerIsFreed() {
        let values = withAFreedFamily { container -> [Any] in
            let resolved = container.resolve(Lazy<Piece>.self)
            _ = resolved?.instance
            return [
                container.resolve(Lazy<Piece>.self) as Any, resolved as Any,
                container.synchronize().resolve(Lazy<Piece>.self) as Any,
                container.resolve(Provider<Piece>.self) as Any,
                container.synchronize().resolve(Provider<Piece>.self) as Any,
            ]
        }
        expectDumpsNamePiece(values)
    }

    @Test func injectedReflectsAfterItsContainerIsFreed() {
        let holders = withAFreedFamily { container in
            let unread = withResolver(container.synchronize()) { PieceHolder() }  // keeps the view, not the child
            let read = withResolver(container.synchronize()) { PieceHolder() }
            _ = read.part
            return [unread, read]
        }
        expectDumpsNamePiece(holders)
    }

    @MainActor @Test func mainInjectedReflectsAfterItsContainerIsFreed() {
        let holders = withAFreedFamily { container in
            let unread = withResolver(container.synchronize()) { MainHolder() }
            let read = withResolver(container.synchronize()) { MainHolder() }
            _ = read.part
            return [unread, read]
        }
        expectDumpsNamePiece(holders)
    }
}
