// Graft — MIT License.

extension Container {
    /// Each registration of this container and its ancestors, this container's first, each sorted.
    ///
    /// ```swift
    /// for info in container.registrations where info.resolutionCount == 0 {
    ///     print("never resolved:", info.serviceType, info.name ?? "")
    /// }
    /// ```
    public final var registrations: [RegistrationInfo] {
        onContainerLocked { holder in
            holder.selfAndAncestors.enumerated().flatMap { level, container in
                container.services.registrations.map { key, entry in
                    // An async registration's instances are made by its builds.
                    RegistrationInfo(
                        serviceType: key.serviceType, name: key.name, objectScope: entry.objectScope,
                        argumentTypes: entry.argumentTypeNames(), containerLevel: level,
                        isForwarded: key.service != ObjectIdentifier(entry.keyType) || key.name != entry.name,
                        resolutionCount: entry.cell.resolutionCount,
                        instanceCount: entry.asyncRegistration?.instanceCount ?? entry.instanceCount)
                }
                .sorted { serviceLabel($0.serviceType, name: $0.name) < serviceLabel($1.serviceType, name: $1.name) }
            }
        }
    }

    /// Resolves every registration of this container and its ancestors that needs no arguments,
    /// and reports every failure (not only the first), the warnings its graph deserves, and the
    /// graph itself.
    ///
    /// Factories really run, through a resolver of this container, but nothing they make is kept:
    /// each scope's instance lives in the validation's graph only, existing instances are left as
    /// they are, and afterwards the container resolves exactly as before (counts included).
    /// A factory that force-unwraps a dependency it cannot get (`r.resolve(X.self)!`) stops the
    /// process there, as it would in production; write `try r.require(X.self)` to have every such
    /// failure in the report instead. While validating, each `resolve` that fails is written at
    /// once, before its `nil` is returned, to standard error and to ``loggingFunction``: what was
    /// missing, or the cycle's chain, and the path that asked. So such a stop comes with its reason.
    ///
    /// ```swift
    /// let report = container.validate()
    /// if !report.isValid { print(report) }
    /// ```
    public final func validate() -> ValidationReport {
        validate(samples: [])
    }

    /// ``validate()``, trying the registrations that take arguments with the values of
    /// `samples`: an app's entry points often take a job, a request or an id, and the graph below
    /// them is checked only this way.
    ///
    /// ```swift
    /// let report = container.validate(samples: [
    ///     ValidationSample(OrderHandler.self, argument: Order(id: 1)),
    ///     ValidationSample(Job.self, name: "nightly", arguments: "reports", 3),
    /// ])
    /// ```
    ///
    /// A registration that takes arguments and has no sample is skipped, as by `validate()`; a
    /// sample that matches no registration (its type, name and argument types) is a failure, so
    /// a sample left behind by a changed registration is found.
    public final func validate(samples: [ValidationSample]) -> ValidationReport {
        // Factories get a view, whatever `validate()` was called on: each registration is resolved
        // through it as a root request.
        // A change hold: it switches scopes and restores tables, which other threads may change.
        onContainer(changing: "validate()") {
            $0.validate(through: SynchronizedResolver(container: $0), samples: samples)
        }
    }

    private final func validate(through resolver: Container, samples: [ValidationSample]) -> ValidationReport {
        // Inside a resolution the validation would share its graph and meet the factories running
        // as false cycles; it must start from nothing in flight.
        stopUnless(
            hierarchy.resolution.depth == 0 && hierarchy.frameCount == 0,
            "Graft: validate() called during a resolution (in a factory, initCompleted or withObjectGraph); "
                + "call it where no resolution of this container hierarchy is running")
        let recorder = ValidationRecorder(container: self)
        // A factory may register while it runs, and resolve through any container of the
        // hierarchy it captured: every live table is put back as it was after, with its counts.
        let tables = hierarchy.mutex.withLock { hierarchy.diagnostics.tables.values.map { ($0, $0.registrations) } }
        let childRecords = hierarchy.mutex.withLock { hierarchy.diagnostics.childRegistrations }
        let counts = tables.flatMap(\.1).map { ($0.entry, $0.entry.cell.resolutionCount, $0.entry.instanceCount) }
        // Each entry once (its forwards share it), its scope kind noted before the validation changes it.
        let entries = selfAndAncestors.flatMap { $0.services.registrations.map(\.entry) }
            .filter { recorder.originalKinds.updateValue($0.scopeKind, forKey: ObjectIdentifier($0)) == nil }
            .sorted { SharedState.label($0) < SharedState.label($1) }
        // A main-actor registration is tried on the main actor only (elsewhere it fails by
        // design); an async one through resolveAsync only.
        let onMainThread = Platform.isOnMainActor()
        // Every scope acts as the graph scope while validating: instances are shared within one
        // resolution and dropped at its end, and what the real scopes keep is left alone.
        let scopes = entries.map { ($0.scope, $0.scopeKind) }
        // An async registration's synchronous resolution reads what its builds made, and is left so.
        for entry in entries where entry.scopeKind != .transient && entry.kind != .async {
            entry.setKindWhileValidating(.graph)
        }

        var failures: [ResolutionError] = []
        var skipped: [String] = []
        stopUnless(
            hierarchy.diagnostics.validation == nil,
            "Graft: validate() called while a validation of this hierarchy runs")
        hierarchy.diagnostics.validation = recorder
        // Each registration's own failure goes to the report; what its factories' `resolve` calls
        // meet is written as it happens (see `SharedState.explain(_:)`).
        let outer = hierarchy.beginCallHandingFailureToCaller()
        // Each sample's registration, found as `resolve` finds it (a forward leads to its entry).
        let sampled = samples.map { slot(for: $0.key)?.pointee.entry }
        for entry in entries {
            let withArguments = entry.argumentsKey != noArgumentsKey
            let mine = withArguments ? zip(samples, sampled).filter { $1 === entry }.map(\.0) : []
            let whySkipped: String? =
                switch entry.kind {
                case .async: "async: its factory runs through resolveAsync"
                case .mainActor where !onMainThread: "main actor: validate on the main actor to try it"
                default:
                    withArguments && mine.isEmpty
                        ? "arguments: \(entry.argumentTypeNames().joined(separator: ", ")); "
                            + "give validate(samples:) a ValidationSample to try it" : nil
                }
            if let whySkipped {
                skipped.append(SharedState.label(entry) + " (\(whySkipped))")
                continue
            }
            _ = recorder.node(for: entry)
            for sample in withArguments ? mine.map(Optional.some) : [nil] {
                let errors = hierarchy.resolution.errorCount
                let resolved =
                    sample?.validate(entry, self, resolver)
                    ?? entry.validateAsRoot(in: self, resolver: resolver, arguments: nil)
                if !resolved, hierarchy.resolution.errorCount != errors, let error = hierarchy.resolution.lastError {
                    failures.append(error)
                }
            }
        }
        failures += recorder.furtherFailures + zip(samples, sampled).filter { $1 == nil }.map(\.0.unmatchedFailure)
        // The call ends: what undoing the validation releases below runs as no part of it. What
        // the call released later waits until the hierarchy is itself again.
        hierarchy.resolution.endQuietCall(outer)
        // Less the records of the children that ended meanwhile: what the factories registered in
        // children they captured is undone, as their tables are.
        hierarchy.mutex.withLock {
            hierarchy.diagnostics.childRegistrations = childRecords
            hierarchy.diagnostics.childRegistrations.forget(recorder.endedChildren)
        }
        hierarchy.diagnostics.validation = nil
        for (entry, (scope, kind)) in zip(entries, scopes) where entry.scope === scope {
            entry.setKindWhileValidating(kind)  // unless a factory changed the scope meanwhile
        }
        for (table, registrations) in tables { table.restore(registrations) }
        for (entry, resolutions, instances) in counts {
            entry.cell.resolutionCount = resolutions
            entry.instanceCount = instances
        }
        // What the call released later (an error a factory threw, an instance it dropped) runs its
        // `deinit` in the hierarchy as it was: what that resolves is the application's, kept and
        // counted as any.
        hierarchy.releasePastCall()
        hierarchy.forgetLastErrorUnlessRead()  // read above: the report holds what it needs
        // What a scope kept anyway (an entry a factory gave its real scope meanwhile, one of a
        // container outside this one's ancestors that a factory captured) is dropped, so the
        // validation keeps nothing. Dropped after the counts are restored: a `deinit` run by a
        // drop may resolve, and what it keeps and counts is its own.
        var dropped: [Any] = []
        let storages = hierarchy.uncheckedSection {
            recorder.kept.compactMap { $0.entry.moveKeptInstance(into: &dropped, generation: $0.generation) }
        }
        recorder.kept = []
        for storage in storages { storage.instance = nil }  // user code: a custom scope's storage
        withExtendedLifetime(dropped) {}
        return recorder.report(failures: failures, skipped: skipped)
    }
}
