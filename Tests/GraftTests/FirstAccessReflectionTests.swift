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

/// `dump` (a debugger, a failing `#expect`) of the objects that outlive their container reads no
/// freed memory. A child container that registered something and was freed leaves its link in the
/// hierarchy those objects may reach.
@Suite struct FirstAccessReflectionTests {
    @Test func lazyAndProviderReflectAfterTheirContainerIsFreed() {
        var values: [Any] = []
        do {
            let container = Container()
            container.register(Piece.self) { _ in Piece() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            let resolved = container.resolve(Lazy<Piece>.self)
            _ = resolved?.instance
            values = [
                container.resolve(Lazy<Piece>.self) as Any, resolved as Any,
                container.synchronize().resolve(Lazy<Piece>.self) as Any,
                container.resolve(Provider<Piece>.self) as Any,
                container.synchronize().resolve(Provider<Piece>.self) as Any,
            ]
        }
        for value in values {
            var text = ""
            dump(value, to: &text)
            #expect(text.contains("Piece"))
        }
    }

    @Test func injectedReflectsAfterItsContainerIsFreed() {
        let unread: PieceHolder
        let read: PieceHolder
        do {
            let container = Container()
            container.register(Piece.self) { _ in Piece() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            unread = withResolver(container.synchronize()) { PieceHolder() }  // keeps the view, not the child
            read = withResolver(container.synchronize()) { PieceHolder() }
            _ = read.part
        }
        for holder in [unread, read] {
            var text = ""
            dump(holder, to: &text)
            #expect(text.contains("Piece"))
        }
    }

    @MainActor @Test func mainInjectedReflectsAfterItsContainerIsFreed() {
        let unread: MainHolder
        let read: MainHolder
        do {
            let container = Container()
            container.register(Piece.self) { _ in Piece() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            unread = withResolver(container.synchronize()) { MainHolder() }
            read = withResolver(container.synchronize()) { MainHolder() }
            _ = read.part
        }
        for holder in [unread, read] {
            var text = ""
            dump(holder, to: &text)
            #expect(text.contains("Piece"))
        }
    }
}
