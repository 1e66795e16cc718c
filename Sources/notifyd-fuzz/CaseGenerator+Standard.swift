import DBus
import NotifyTestingCore

/// Families about the standard interfaces and well-formedness: properties,
/// many arguments, and well-formed read-only calls mixed in.
extension CaseGenerator {
    func properties(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let ownWithoutProperties = [Contract.badges, Contract.apps, Contract.sessions]
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

    /// Well-formed read-only calls, mixed in: they must keep working, with the right values.
    func benign(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let options: [(String?, String, [DBusValue], Expectation)] = [
            (Contract.badges, "GetBadge", [.string(HostileStrings.rejectedAppID(&rng))], .success(signature: "u", first: .uint32(0))),
            (Contract.apps, "GetState", [.string(HostileStrings.rejectedAppID(&rng))], .success(signature: "s", first: .string("not-running"))),
            (Contract.badges, "ListBadges", [], .success(signature: "a{su}")),
            (Contract.apps, "ListApps", [], .success(signature: "a(ssu)")),
            (Contract.sessions, "ListSessions", [], .success(signature: "a(ssua{sv})")),
            (rng.chance(0.5) ? nil : Contract.introspectable, "Introspect", [], .success(signature: "s")),
            (Contract.peer, "Ping", [], .success(signature: "")),
            (Contract.peer, "GetMachineId", [], .success(signature: "s")),
            (Contract.properties, "Get", [.string(Contract.daemon), .string(rng.pick(Contract.daemonProperties))], .success(signature: "v")),
            (Contract.properties, "GetAll", [.string(rng.pick([Contract.daemon, Contract.properties, Contract.peer, Contract.introspectable]))], .success(signature: "a{sv}")),
        ]
        var (interface, member, arguments, expectation) = rng.pick(options)
        if prepared, rng.chance(0.3) {
            let (app, count) = rng.pick(Legit.badges)
            (interface, member, arguments, expectation) = (Contract.badges, "GetBadge", [.string(app)], .success(signature: "u", first: .uint32(count)))
        } else if prepared, rng.chance(0.1) {
            (interface, member, arguments, expectation) = (Contract.sessions, "WaitForSession", [.string(Legit.doneSession)], .success(signature: "s", first: .string("completed")))
        }
        return call(index, .benign, interface, member, arguments, expectation, note: "well-formed")
    }
}
