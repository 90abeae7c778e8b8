// Graft — MIT License.

/// A registration in a child container, as a failure message elsewhere describes it: its key, its
/// argument types, and the containers it belongs to (its own first, then its ancestors).
///
/// It names its containers by identifier and holds none of them: the hierarchy keeps these
/// records, and a record that held its container (or anything holding the hierarchy) would keep
/// the whole hierarchy alive. An identifier stays meaningful because the record is removed when
/// its container ends (``ChildRegistrations/forget(_:)``), and the ancestors in its lineage
/// outlive it.
struct ChildRegistration {
    let key: ServiceKey
    let argumentTypeNames: () -> [String]
    /// The registering container first, then its ancestors, innermost first.
    let lineage: [ObjectIdentifier]

    /// The container that registered it.
    var owner: ObjectIdentifier { lineage[0] }

    var description: String {
        key.registrationDescription(of: key.serviceType, argumentTypeNames: argumentTypeNames())
    }
}

/// The registrations made in the child containers of one hierarchy that are alive now, by service
/// type, for failure messages that name registrations a container cannot see. A child's table is
/// filled on any thread, so it is never read from elsewhere: what a message needs is copied here
/// when registering.
///
/// Bounded by the live registrations: registering a key again in the same child replaces its
/// record, and a child's records are removed by its `removeAll()` and when it ends.
struct ChildRegistrations {
    /// The records of each service type.
    private(set) var byService: [ObjectIdentifier: [ChildRegistration]] = [:]

    /// Records `registration`, replacing the record of the same key in the same container.
    mutating func note(_ registration: ChildRegistration) {
        let key = registration.key
        byService[key.service, default: []].removeAll {
            $0.owner == registration.owner && $0.key.arguments == key.arguments && $0.key.name == key.name
        }
        byService[key.service, default: []].append(registration)
    }

    /// Removes every record of the containers `owners`: a child's, at its `removeAll()` or its end,
    /// or the children that ended while a validation ran, from what it puts back. `services`, when
    /// given, are the service types in the child's table: every key recorded is one (the records
    /// are made as keys are inserted), so a container's end touches only the lists of what it
    /// registered.
    mutating func forget(_ owners: Set<ObjectIdentifier>, services: Set<ObjectIdentifier>? = nil) {
        for service in services ?? Set(byService.keys) {
            byService[service]?.removeAll { owners.contains($0.owner) }
            if byService[service]?.isEmpty == true { byService[service] = nil }
        }
    }

    /// How many records there are.
    var count: Int { byService.values.reduce(0) { $0 + $1.count } }
}
