import Graft
import Testing

/// Reflecting a Graft value (`dump`, a debugger, the operands of a failing `#expect`) never loads a
/// container that is gone, so it never stops the process.
@Suite struct ReflectionTests {
    final class Dep {}
    final class Holder {
        @Injected var dep: Dep
    }

    private func reflect(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text, maxDepth: 12)
        return text
    }

    /// The parent's hierarchy keeps nothing of a freed child: reflecting it reads no record of it.
    @Test func parentIsReflectableAfterAChildIsFreed() {
        let parent = Container()
        var child: Container? = Container(parent: parent)
        child!.register(Dep.self) { _ in Dep() }
        #expect(reflect(parent).contains("byService: 1 key/value pair"))
        child = nil
        #expect(reflect(parent).contains("byService: 0 key/value pairs"))
    }

    @Test func everyValueThatOutlivesItsContainerIsReflectable() {
        var values: [Any] = []
        do {
            let parent = Container()
            let view = parent.synchronize()
            let child = Container(parent: view)
            let entry = child.register(Dep.self) { _ in Dep() }.inObjectScope(.container)
            values.append(entry)
            values.append(parent.register(Int.self, name: "n") { _ in 1 })
            values.append(child.registerAsync(String.self) { _ in "s" })
            values.append(child.resolve(Lazy<Dep>.self)!)
            values.append(child.resolve(Provider<Dep>.self)!)
            values.append(view)
            values.append(child.synchronize())
            values.append(child.validate())
            values.append(child.registrations)
            values.append(GraphIdentifier())
            #expect(throws: ResolutionError.self) { try child.require(Double.self) }
            do { _ = try child.require(Double.self) } catch { values.append(error) }
            withResolver(child.synchronize()) { values.append(Holder()) }
            values.append(ContainerAssembler(container: child))
        }
        for value in values {
            #expect(!reflect(value).isEmpty)
        }
    }

    @Test func aResolvedLazyIsReflectableAfterItsContainerIsFreed() {
        var lazy: Lazy<Dep>?
        do {
            let container = Container()
            container.register(Dep.self) { _ in Dep() }
            lazy = container.resolve(Lazy<Dep>.self)
        }
        #expect(reflect(lazy as Any).contains("Lazy"))
    }
}
