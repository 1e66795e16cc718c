import DBus
import NotifyCore
import NotifyTestingCore

/// Families about the standard interfaces and well-formedness: properties,
/// many arguments, and well-formed calls that change nothing mixed in.
extension CaseGenerator {
    func properties(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let ownWithoutProperties = Contract.interfacesWithoutProperties
        let unknownInterfaces = ["", "org.notifyd.Notifyd1.daemon", "org.notifyd.Notifyd1", Contract.worker, "x", "org.notifyd.Notifyd1.Daemon ", "org.notifyd.Notifyd1.Daemon\u{1}"]
        let unknownProperty = {
            (rng: inout SplitMix64) -> String in
            var name = rng.chance(0.5) ? rng.pick(Contract.daemonProperties).lowercased() + rng.pick(["", " ", "x"]) : HostileStrings.string(bytes: rng.skewed(0...80), &rng)
            if Contract.daemonProperties.contains(name) { name += "?" }
            return name
        }
        switch rng.int(0...5) {
        case 0:
            let interface = rng.pick(unknownInterfaces + [Contract.properties, Contract.peer, Contract.introspectable])
            return call(index, .properties, Contract.properties, "Get", [.string(interface), .string(rng.pick(Contract.daemonProperties))],
                        .error(Contract.Error.unknownInterface), note: "Get on an unknown interface")
        case 1:
            return call(index, .properties, Contract.properties, "Get", [.string(Contract.daemon), .string(unknownProperty(&rng))],
                        .error(Contract.Error.unknownProperty), note: "Get of an unknown property")
        case 2:
            return call(index, .properties, Contract.properties, "Get", [.string(rng.pick(ownWithoutProperties)), .string(rng.pick(Contract.daemonProperties))],
                        .error(Contract.Error.unknownProperty), note: "Get on an interface without properties")
        case 3:
            return call(index, .properties, Contract.properties, "GetAll", [.string(rng.pick(unknownInterfaces))],
                        .error(Contract.Error.unknownInterface), note: "GetAll of an unknown interface")
        case 4:
            return call(index, .properties, Contract.properties, "Set",
                        [.string(Contract.daemon), .string(rng.pick(Contract.daemonProperties)), .variant(HostileValues.any(&rng))],
                        .error(Contract.Error.propertyReadOnly), note: "Set of a read-only property")
        default:
            return call(index, .properties, Contract.properties, "Set",
                        [.string(Contract.daemon), .string(unknownProperty(&rng)), .variant(HostileValues.any(&rng))],
                        .error(Contract.Error.unknownProperty), note: "Set of an unknown property")
        }
    }

    func manyArguments(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        // Peer, answered by libdbus, is left to the wrong-signature family.
        let method = rng.pick(Contract.methods.filter { $0.interface != Contract.peer })
        let right = (try? DBusType.parse(method.signature)) ?? []
        var arguments = right.map { HostileValues.value(of: $0, &rng) }
        let room = 255 - method.signature.utf8.count
        for _ in 0..<rng.int(min(20, room)...room) {
            arguments.append(rng.pick([.string("a"), .uint32(1), .boolean(true), .byte(0)]))
        }
        return call(index, .manyArguments, method.interface, method.member, arguments, .error(Contract.Error.invalidArgs),
                    note: "\(arguments.count) arguments")
    }

    /// Well-formed calls that change nothing, mixed in: reads, and writes
    /// of what the legitimate state already holds. They must keep working,
    /// with the declared reply signature and, where known, the right value.
    func benign(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        func returns(_ interface: String, _ member: String, first: DBusValue? = nil) -> Expectation {
            .success(signature: Contract.method(interface, member)?.outputSignature ?? "?", first: first)
        }
        let rejected = DBusValue.string(HostileStrings.rejectedAppID(&rng))
        var options: [(String?, String, [DBusValue], Expectation)] = [
            (Contract.badges, "GetBadge", [rejected], returns(Contract.badges, "GetBadge", first: .uint32(0))),
            (Contract.apps, "GetState", [rejected], returns(Contract.apps, "GetState", first: .string("not-running"))),
            (Contract.badges, "ListBadges", [], returns(Contract.badges, "ListBadges")),
            (Contract.apps, "ListApps", [], returns(Contract.apps, "ListApps")),
            (Contract.sessions, "ListSessions", [], returns(Contract.sessions, "ListSessions")),
            (Contract.fetch, "GetFetchSchedule", [rejected], returns(Contract.fetch, "GetFetchSchedule")),
            (Contract.fetch, "GetFetchHistory", [rejected], returns(Contract.fetch, "GetFetchHistory")),
            (Contract.fetch, "ListFetchSchedules", [], returns(Contract.fetch, "ListFetchSchedules")),
            (Contract.tasks, "BackgroundTimeRemaining", [rejected], returns(Contract.tasks, "BackgroundTimeRemaining", first: .double(0))),
            (Contract.tasks, "ListBackgroundTasks", [], returns(Contract.tasks, "ListBackgroundTasks")),
            (Contract.transfers, "ListTransfers", [], returns(Contract.transfers, "ListTransfers")),
            (rng.chance(0.5) ? nil : Contract.introspectable, "Introspect", [], returns(Contract.introspectable, "Introspect")),
            (Contract.peer, "Ping", [], returns(Contract.peer, "Ping")),
            (Contract.peer, "GetMachineId", [], returns(Contract.peer, "GetMachineId")),
            (Contract.properties, "Get", [.string(Contract.daemon), .string(rng.pick(Contract.daemonProperties))], returns(Contract.properties, "Get")),
            (Contract.properties, "GetAll", [.string(rng.pick([Contract.daemon, Contract.properties, Contract.peer, Contract.introspectable]))], returns(Contract.properties, "GetAll")),
        ]
        // The legitimate transfers: read, and the no-ops of suspending the
        // suspended one and resuming the waiting one (in the same number
        // of choices without them, so the cases stay those of the seed).
        let transfers: [(String, DBusValue)] = [
            ("GetTransfer", .uint64(legitTransfers?.waiting ?? 0)), ("GetTransfer", .uint64(legitTransfers?.suspended ?? 0)),
            ("ResumeTransfer", .uint64(legitTransfers?.waiting ?? 0)), ("SuspendTransfer", .uint64(legitTransfers?.suspended ?? 0)),
        ]
        for (member, id) in transfers {
            let known = prepared && legitTransfers != nil
            options.append((Contract.transfers, known ? member : "ListTransfers", known ? [id] : [], returns(Contract.transfers, known ? member : "ListTransfers")))
        }
        if prepared {
            let fetchApp = DBusValue.string(Legit.fetchApp)
            options += [
                (Contract.fetch, "SetFetchInterval", [fetchApp, .uint32(Legit.fetchInterval)], returns(Contract.fetch, "SetFetchInterval")),
                (Contract.fetch, "SetFetchEnabled", [fetchApp, .boolean(false)], returns(Contract.fetch, "SetFetchEnabled")),
                (Contract.fetch, "GetFetchSchedule", [fetchApp], returns(Contract.fetch, "GetFetchSchedule")),
                (Contract.fetch, "GetFetchHistory", [fetchApp], returns(Contract.fetch, "GetFetchHistory")),
            ]
        }
        // The distributor: a registration of the fuzzer's own (stored, and
        // answered ACTION_REQUIRED with no push server; at the limits too),
        // unregistrations, of its tokens or of none, and no push server.
        let token = DBusValue.string("fuzz-\(seed)-\(index)")
        let pushApp = DBusValue.string(Legit.pushApp)
        options += [
            (NotifydNames.distributor2Interface, "Register", [.vardict(["service": pushApp, "token": token, "description": .string("fuzz")])],
             returns(NotifydNames.distributor2Interface, "Register")),
            (NotifydNames.distributor2Interface, "Unregister", [.vardict(["token": token])],
             returns(NotifydNames.distributor2Interface, "Unregister", first: .vardict([:]))),
            (NotifydNames.distributor1Interface, "Register", [pushApp, token, .string("")],
             returns(NotifydNames.distributor1Interface, "Register", first: .string("REGISTRATION_FAILED"))),
            (NotifydNames.distributor1Interface, "Unregister", [token], returns(NotifydNames.distributor1Interface, "Unregister")),
            (NotifydNames.pushInterface, "GetStatus", [], returns(NotifydNames.pushInterface, "GetStatus")),
            (NotifydNames.pushInterface, "ListRegistrations", [], returns(NotifydNames.pushInterface, "ListRegistrations")),
            // No push server, set again: a no-op (a real server would make
            // the fuzzed daemon connect out).
            (NotifydNames.pushInterface, "SetServer", [.string("none"), .string(""), .vardict([:])],
             returns(NotifydNames.pushInterface, "SetServer")),
        ]
        var (interface, member, arguments, expectation) = rng.pick(options)
        if prepared, rng.chance(0.3) {
            let (app, count) = rng.pick(Legit.badges)
            (interface, member, arguments, expectation) = (Contract.badges, "GetBadge", [.string(app)], returns(Contract.badges, "GetBadge", first: .uint32(count)))
        } else if prepared, rng.chance(0.1) {
            (interface, member, arguments, expectation) = (
                Contract.sessions, "WaitForSession", [.string(Legit.doneSession)], returns(Contract.sessions, "WaitForSession", first: .string("completed"))
            )
        }
        return call(index, .benign, interface, member, arguments, expectation, note: "well-formed")
    }
}
