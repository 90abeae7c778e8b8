// Graft — MIT License.

/// Swinject's name for ``ContainerAssembler``, so code written for Swinject compiles unchanged.
public typealias Assembler = ContainerAssembler

/// Builds a container from ``Assembly`` modules.
///
/// Each call that applies assemblies first runs every `assemble(container:)`, in order, and then
/// every `loaded(resolver:)`, so a `loaded` hook can resolve anything the others registered.
/// They run under one hold of the hierarchy's mutex: another thread, resolving through a
/// synchronized view, sees all of the registrations, with their settings, or none, and a `loaded`
/// hook may resolve through the container it is given while other threads use the view. (So
/// neither may wait for another thread that uses the hierarchy.)
/// An assembler made with a parent assembler gets a child container of the parent's:
///
/// ```swift
/// let app = ContainerAssembler([CoreAssembly(), NetworkAssembly()])
/// let checkout = ContainerAssembler([CheckoutAssembly()], parent: app)  // sees app's services
/// let cart = checkout.resolver.resolve(Cart.self)
/// ```
public final class ContainerAssembler {
    private let container: Container

    /// Resolves from the assembled container.
    public var resolver: Resolver { container }

    /// An assembler over `container` (a new one if `nil`).
    public init(container: Container? = nil) { self.container = container ?? Container() }

    /// Applies `assemblies` to `container`.
    public init(_ assemblies: [Assembly], container: Container = Container()) {
        self.container = container
        apply(assemblies: assemblies)
    }

    /// Applies `assemblies` to a new container whose parent is `parent`'s container.
    public init(
        _ assemblies: [Assembly],
        parent: ContainerAssembler?,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [Behavior] = []
    ) {
        container = Container(parent: parent?.container, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
        apply(assemblies: assemblies)
    }

    /// An empty assembler whose container is a child of `parentAssembler`'s.
    public convenience init(
        parentAssembler: ContainerAssembler?,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [Behavior] = []
    ) {
        self.init([], parent: parentAssembler, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
    }

    /// Applies one more assembly.
    public func apply(assembly: Assembly) { apply(assemblies: [assembly]) }

    /// Applies more assemblies: all `assemble` first, then all `loaded`.
    public func apply(assemblies: [Assembly]) {
        container.registerAtomically { container in
            for assembly in assemblies { assembly.assemble(container: container) }
            // Still under the mutex: a hook resolving through a plain container must not overlap
            // other threads' resolutions through a view of it.
            for assembly in assemblies { assembly.loaded(resolver: container) }
        }
    }
}
