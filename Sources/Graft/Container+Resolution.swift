// Graft — MIT License.

extension Container: Resolver {
    @inlinable
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        if isView { return resolveThroughView(serviceType, name: nil) }
        return resolveWithoutArguments(serviceType, name: nil)
    }

    @inlinable
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        if isView { return resolveThroughView(serviceType, name: name) }
        return resolveWithoutArguments(serviceType, name: name)
    }

    // Transparent (inlined even in debug builds): on a deep chain of resolutions with arguments,
    // each frame of a pack-generic function costs hundreds of bytes of stack in a debug build.
    @_transparent
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type, name: String?, arguments: repeat each Argument
    ) -> Service? {
        // One inlined copy of the path for both kinds of container, so not `onContainer`: in a
        // debug build a second copy, or a frame of its own for the view (a closure's), would double
        // the stack a level of a deep chain takes. A view resolves on itself: it shares its
        // container's table, parent and hierarchy.
        let locks = isView
        if locks { enterViewLock() }
        defer { if locks { exitViewLock() } }
        return resolveService(serviceType, name: name, resolver: self, arguments: repeat each arguments)
    }
}

// The one path every resolution takes (see DESIGN.md): key, lookup up the hierarchy, the entry's
// scope, and on a miss the factory, storing per scope and running `initCompleted`.
//
// The generic code runs unspecialized (callers are in other modules, and factories call through
// the `Resolver` existential), so the hot path stays out of the runtime's metadata caches: the
// entry's own methods do the work, reading `Service` from the entry itself, and arguments travel
// as a pointer to their tuple.
extension Container {
    /// Resolves `serviceType` with no arguments, passing this container (or view) to the factories
    /// that run.
    ///
    /// Inlinable: called on a concrete `Container`, a `.container`-scoped hit is specialized in the
    /// caller and costs a table probe and a copy, retaining nothing but the instance returned.
    @inlinable
    func resolveWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
        guard let slot = slot(for: key) else { return resolveUnregistered(serviceType, key: key, resolver: self) }
        do {
            return try resolveRegistered(slot, as: serviceType, handsFailureToCaller: false)
        } catch {
            return nil
        }
    }

    /// `require`'s path: ``resolveWithoutArguments(_:name:)``, its failure thrown rather than
    /// logged, without an `Optional` in between. A factory calls `require` through the `Resolver`
    /// existential, where the code runs unspecialized: unwrapping an `Optional<Service>` there
    /// would ask the runtime for its metadata (a cache lookup, several hundred instructions) on
    /// every call.
    @inlinable @inline(__always)
    func resolveOrFail<Service>(_ serviceType: Service.Type, name: String?) throws(ResolutionFailed) -> Service {
        let key = ServiceKey(service: Service.self, arguments: noArgumentsKey, name: name)
        guard let slot = slot(for: key) else { return try resolveUnregisteredOrFail(serviceType, key: key) }
        return try resolveRegistered(slot, as: serviceType, handsFailureToCaller: true)
    }

    /// A registered key: the kept instance of a `.container` hit (inlined), the planned path, or
    /// the entry's own resolution out of line.
    @inlinable @inline(__always)
    func resolveRegistered<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>, as serviceType: Service.Type, handsFailureToCaller: Bool
    ) throws(ResolutionFailed) -> Service {
        // `directCell` is set only where the key's service type is the entry's own `Service`, and
        // the key was made from this `Service`: the cell holds values of exactly this type.
        if let cell = slot.pointee.directCell {
            if cell.hasInstance {
                cell.countResolution()
                return cell.instance(as: Service.self)
            }
            if cell.plan != InstanceCell.planGeneral {
                // The graph's instance, read here by unspecialized code (a factory's own
                // resolutions, where graph hits happen) rather than in `resolvePlanned`'s frame;
                // specialized callers leave it to `resolvePlanned`, keeping their frame small.
                if !_isConcrete(Service.self), cell.hasPlannedGraphInstance {
                    cell.countResolution()
                    return cell.graphInstance(as: Service.self)
                }
                // A top-level transient skips `resolvePlanned`'s frame when the caller is
                // specialized (`_isConcrete` is constant there): unspecialized, this is the code
                // every nested resolution runs, and the test would enlarge its frame.
                if !handsFailureToCaller, _isConcrete(Service.self), cell.plan == InstanceCell.planTransient,
                    _slowPath(hierarchy.resolution.depth == 0)
                {
                    return try resolveTopLevel(slot, cell: cell, as: serviceType)
                }
                // The flag is a constant in each inlined copy: `resolve`'s never tests it.
                let outer = handsFailureToCaller ? hierarchy.beginCallHandingFailureToCaller() : 0
                defer { if handsFailureToCaller { hierarchy.endCallHandingFailureToCaller(outer) } }
                return try resolvePlanned(slot, cell: cell, as: serviceType)
            }
        }
        // `require`'s failure, met anywhere but a `.container` hit, is thrown, not logged (a failure
        // met deeper, by a factory's own `resolve`, still is).
        let outer = handsFailureToCaller ? hierarchy.beginCallHandingFailureToCaller() : 0
        defer { if handsFailureToCaller { hierarchy.endCallHandingFailureToCaller(outer) } }
        return try resolveEntry(slot, as: serviceType)
    }

    /// The entry's own resolution, out of line: everything but a `.container` hit and a plan.
    @usableFromInline
    func resolveEntry<Service>(
        _ slot: UnsafeMutablePointer<RegistrationTable.Slot>, as serviceType: Service.Type
    ) throws(ResolutionFailed) -> Service {
        let entry = slot.pointee.entry.unsafelyUnwrapped  // retained: a factory may change the table
        return try entry.resolveOrFail(as: serviceType, in: self, resolver: self, arguments: nil)
    }

    /// Resolves `entry` with a pointer to `arguments` for the call's duration.
    @_transparent @usableFromInline
    func resolve<Service, Arguments>(
        _ entry: AnyServiceEntry, as serviceType: Service.Type, resolver: Resolver, arguments: UnsafePointer<Arguments>
    ) -> Service? {
        entry.resolve(as: Service.self, in: self, resolver: resolver, arguments: UnsafeRawPointer(arguments))
    }

    /// Resolves `serviceType` with `arguments`, passing `resolver` to the factories that run.
    /// Inlinable so that, specialized in the caller, the argument tuple's type costs no lookup;
    /// transparent so that debug builds inline it too (one frame less per level of a deep chain).
    /// The two flags are constants at each call site: `handsFailureToCaller` for `require` (see
    /// ``resolveOrFail(_:name:)``), `reportsMiss` off for the `Optional` wrapper, whose missing
    /// registration is a deliberate "maybe".
    @_transparent @usableFromInline
    func resolveService<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        resolver: Resolver,
        handsFailureToCaller: Bool = false,
        reportsMiss: Bool = true,
        arguments: repeat each Argument
    ) -> Service? {
        let key = ServiceKey(service: Service.self, arguments: argumentsKey(repeat (each Argument).self), name: name)
        let outer = handsFailureToCaller ? hierarchy.beginCallHandingFailureToCaller() : 0
        defer { if handsFailureToCaller { hierarchy.endCallHandingFailureToCaller(outer) } }
        if let slot = slot(for: key) {
            let entry = slot.pointee.entry.unsafelyUnwrapped  // retained: a factory may change the table
            var values: (repeat each Argument) = (repeat each arguments)
            // A pointer for the call's duration, without a closure: on a deep chain of resolutions
            // a closure frame per level adds up in a debug build.
            return resolve(entry, as: Service.self, resolver: resolver, arguments: &values)
        }
        return resolveUnregistered(
            serviceType, key: key, resolver: resolver, reportsMiss: reportsMiss && !handsFailureToCaller,
            arguments: repeat each arguments)
    }

    /// `require`'s resolution of a key with no registration: a wrapper Graft makes, or a miss that
    /// is thrown, not logged. The `Optional` is unwrapped here, out of line, on the path of a miss
    /// or a wrapper only.
    @usableFromInline @inline(never)
    func resolveUnregisteredOrFail<Service>(
        _ serviceType: Service.Type, key: ServiceKey
    ) throws(ResolutionFailed) -> Service {
        let outer = hierarchy.beginCallHandingFailureToCaller()
        defer { hierarchy.endCallHandingFailureToCaller(outer) }
        if let made = resolveUnregistered(serviceType, key: key, resolver: self, reportsMiss: false) { return made }
        throw ResolutionFailed()
    }

    /// Nothing is registered under the key: answer what Graft itself provides, or report the miss
    /// (unless `reportsMiss` is off: an `Optional` asked for, a deliberate "maybe").
    @usableFromInline
    func resolveUnregistered<Service, each Argument>(
        _ serviceType: Service.Type,
        key: ServiceKey,
        resolver: Resolver,
        reportsMiss: Bool = true,
        arguments: repeat each Argument
    ) -> Service? {
        // Inside a resolution, a miss or a wrapper (which joins the graph in flight) is a call nested
        // in its requests: on their thread only.
        if hierarchy.resolution.depth > 0 {
            hierarchy.checkNestedCall(resolving: serviceLabel(Service.self, name: key.name))
        }
        // A miss while another thread changes the hierarchy may be that change half done (a plain
        // container resolving on one thread while another registers): the stop says so, rather
        // than a "not registered" that lists the registration.
        if _slowPath(hierarchy.calls.changingThread != 0) {
            hierarchy.stopIfAnotherThreadUses("\(serviceLabel(Service.self, name: key.name)) was resolved")
        }
        if Service.self == GraphIdentifier.self, key.arguments == noArgumentsKey, key.name == nil {
            // Outside a resolution there is no graph: `nil`, as in Swinject, and nothing to report.
            return hierarchy.resolution.escapedGraph as? Service
        }
        if hierarchy.resolution.mayBeWrapper(Service.self) {
            if let wrapper = Service.self as? any ResolutionWrapper.Type {
                if let wrapped = wrapper.wrap(
                    from: self, resolver: resolver, name: key.name, arguments: repeat each arguments)
                {
                    return wrapped as? Service
                }
                // An `Optional` not made: its registered service failed, and the caller reports why.
                if wrapper is any OptionalValue.Type { return nil }
            } else {
                hierarchy.resolution.noteNotWrapper(Service.self)
            }
        }
        if reportsMiss {
            hierarchy.logMiss {
                notRegisteredFailure(
                    serviceType, name: key.name, arguments: key.arguments,
                    argumentTypeNames: typeNames(repeat (each Argument).self)
                ).description
            }
        }
        if _slowPath(hierarchy.diagnostics.isValidating), key.arguments != noArgumentsKey {
            var names: [String] = []
            repeat names.append(String(describing: (each Argument).self))
            hierarchy.diagnostics.validation?.observeMissing(
                serviceLabel(Service.self, name: key.name) + " (arguments: \(names.joined(separator: ", ")))",
                in: hierarchy)
        }
        return nil
    }
}
