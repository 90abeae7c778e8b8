import Testing

@testable import Graft

private final class Part {}
private final class Reader {}

private final class Holder {
    @Injected var part: Part
}

@MainActor private final class MainHolder {
    @MainInjected var part: Part
}

/// `dump` (a debugger, a failing `#expect`) of the objects that outlive their container reads no
/// freed memory. A child container that registered something and was freed leaves its link in the
/// hierarchy those objects may reach.
@Suite struct FirstAccessReflectionTests {
    @Test func lazyAndProviderReflectAfterTheirContainerIsFreed() {
        var values: [Any] = []
        do {
            let container = Container()
            container.register(Part.self) { _ in Part() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            let resolved = container.resolve(Lazy<Part>.self)
            _ = resolved?.instance
            values = [
                container.resolve(Lazy<Part>.self) as Any, resolved as Any,
                container.synchronize().resolve(Lazy<Part>.self) as Any,
                container.resolve(Provider<Part>.self) as Any,
                container.synchronize().resolve(Provider<Part>.self) as Any,
            ]
        }
        for value in values {
            var text = ""
            dump(value, to: &text)
            #expect(text.contains("Part"))
        }
    }

    @Test func injectedReflectsAfterItsContainerIsFreed() {
        let unread: Holder
        let read: Holder
        do {
            let container = Container()
            container.register(Part.self) { _ in Part() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            unread = withResolver(container.synchronize()) { Holder() }  // keeps the view, not the child
            read = withResolver(container.synchronize()) { Holder() }
            _ = read.part
        }
        for holder in [unread, read] {
            var text = ""
            dump(holder, to: &text)
            #expect(text.contains("Part"))
        }
    }

    @MainActor @Test func mainInjectedReflectsAfterItsContainerIsFreed() {
        let unread: MainHolder
        let read: MainHolder
        do {
            let container = Container()
            container.register(Part.self) { _ in Part() }
            let child = Container(parent: container)
            child.register(Reader.self) { _ in Reader() }
            unread = withResolver(container.synchronize()) { MainHolder() }
            read = withResolver(container.synchronize()) { MainHolder() }
            _ = read.part
        }
        for holder in [unread, read] {
            var text = ""
            dump(holder, to: &text)
            #expect(text.contains("Part"))
        }
    }
}
