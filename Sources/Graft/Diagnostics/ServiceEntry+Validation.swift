// Graft — MIT License.

// Validation (Container.validate()): while it runs, every entry reachable is in the graph scope
// (`Container.validate()` sets and restores `scopeKind`), so the path keeps nothing beyond the
// validation's graph and leaves each scope's own instances alone.
extension ServiceEntry {
    @usableFromInline
    func validateAsRoot(in container: Container, resolver: Resolver, arguments: UnsafeRawPointer?) -> Bool {
        do {
            _ = try construct(in: container.hierarchy, resolver: resolver, arguments: arguments, opensRequest: true)
            return true
        } catch {
            return false
        }
    }
}
