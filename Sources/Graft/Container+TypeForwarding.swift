// Graft — MIT License.

extension Container {
    /// Makes `type` (under `name`) resolve through `entry`: same factory, same scope, same
    /// instance. The entry's instances must be of `type` for the resolution to succeed.
    ///
    /// ```swift
    /// let entry = container.register(SQLStore.self) { _ in SQLStore() }.inObjectScope(.container)
    /// container.forward(UserStore.self, to: entry)
    /// container.forward(OrderStore.self, to: entry)  // one SQLStore answers to both protocols
    /// ```
    public func forward<Forwarded, Service>(
        _ type: Forwarded.Type,
        name: String? = nil,
        to entry: ServiceEntry<Service>
    ) {
        onContainer(changing: "forward", Forwarded.self) { container in
            // An entry's instances and frames are guarded by its own hierarchy's mutex: reached from
            // another hierarchy, two mutexes would let two threads into it at once. Checked on the
            // entry asked for.
            stopUnless(
                entry.link.hierarchy === container.hierarchy,
                "Graft: forward(\(Forwarded.self).self, to:) with a registration of \(Service.self) made in another "
                    + "container hierarchy; forward it in the container it was registered in, or one of its children")
            // The behaviors are told about the type the application forwarded.
            container.insert(entry, as: type, name: name)
        }
    }
}

extension ServiceEntry {
    /// Makes this registration answer to `type` as well, under `name`; see ``Container/forward(_:name:to:)``.
    @discardableResult
    public func implements<Forwarded>(_ type: Forwarded.Type, name: String? = nil) -> ServiceEntry<Service> {
        changingSettings { link.container?.forward(type, name: name, to: self) }
    }

    /// Makes this registration answer to each of several types as well, unnamed.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }.implements(Animal.self, Pet.self)
    /// ```
    @discardableResult
    public func implements<First, Second, each More>(
        _ first: First.Type,
        _ second: Second.Type,
        _ more: repeat (each More).Type
    ) -> ServiceEntry<Service> {
        changingSettings {
            guard let container = link.container else { return }  // gone: nothing to add to, as in Swinject
            container.forward(first, to: self)
            container.forward(second, to: self)
            repeat container.forward(each more, to: self)
        }
    }
}
