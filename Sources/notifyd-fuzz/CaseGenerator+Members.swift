import DBus
import NotifyTestingCore

/// Families about the shape of a call: wrong signatures for every method,
/// unknown members, interfaces and object paths.
extension CaseGenerator {
    func wrongSignature(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let method = rng.pick(Contract.methods.filter { peerSignatures || $0.interface != Contract.peer })
        let right = (try? DBusType.parse(method.signature)) ?? []
        var arguments = right.map { HostileValues.value(of: $0, &rng) }
        var note: String
        switch rng.int(0...6) {
        case 0 where !arguments.isEmpty:
            arguments.removeLast()
            note = "one argument missing"
        case 1:
            arguments.insert(HostileValues.any(&rng), at: rng.int(0...arguments.count))
            note = "one argument too many"
        case 2 where !arguments.isEmpty:
            let at = rng.int(0...(arguments.count - 1))
            arguments[at] = HostileValues.any(except: right[at], &rng)
            note = "argument \(at) of the wrong type"
        case 3 where !arguments.isEmpty:
            let at = rng.int(0...(arguments.count - 1))
            arguments[at] = .variant(arguments[at])
            note = "argument \(at) wrapped in a variant"
        case 4:
            arguments = [HostileValues.nested(levels: rng.int(1...HostileValues.maximumDepth), &rng)]
            note = "one deeply nested argument"
        case 5 where rng.chance(0.1):
            arguments = [HostileValues.huge(count: rng.chance(0.2) ? 100_000 : rng.skewed(1000...100_000), &rng)]
            note = "one huge array"
        default:
            arguments = (0..<rng.int(0...6)).map { _ in HostileValues.any(&rng) }
            note = "random arguments"
        }
        if method.member == "HandleEventsForBackgroundSession", rng.chance(0.3) {
            arguments = [.string("fuzz-sig-\(index)"), .string(Legit.rejectedPrefix + ".Sig"), eventLookalike(&rng)]
            note = "event dictionary of the wrong type"
        }
        if DBusType.signature(of: arguments.map(\.type)) == method.signature {
            arguments.append(.string("extra"))
            note += ", then one more"
        }
        // Without an interface notifyd takes the first of its own with the member: only for a name one has.
        let ownOrIntrospect = Contract.ownInterfaces.contains(method.interface) || method.member == "Introspect"
        let unique = Contract.methods.filter { $0.member == method.member }.count == 1
        let interface = ownOrIntrospect && unique && rng.chance(0.15) ? nil : method.interface
        return call(index, .wrongSignature, interface, method.member, arguments, .error(Contract.Error.invalidArgs), note: note)
    }

    /// A value that is nearly `a{sv}` but not.
    private func eventLookalike(_ rng: inout SplitMix64) -> DBusValue {
        switch rng.int(0...5) {
        case 0: return .dictionary(key: .string, value: .string, [DBusDictionaryEntry(key: .string("kind"), value: .string("finished"))])
        case 1: return .variant(.vardict(["kind": .string("finished")]))
        case 2: return .array(element: .variant, [.variant(.string("kind"))])
        case 3: return .dictionary(key: .objectPath, value: .variant, [])
        case 4: return .structure([.string("kind"), .variant(.string("finished"))])
        default: return .dictionary(key: .string, value: .array(.variant), [])
        }
    }

    func unknownMember(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let arguments = (0..<rng.int(0...3)).map { _ in HostileValues.any(&rng) }
        let unknown = Expectation.error(Contract.Error.unknownMethod)
        let knownInterfaces = Contract.knownInterfaces
        switch rng.int(0...5) {
        case 0:
            let interface = rng.pick(knownInterfaces)
            let member = unknownMemberName(&rng, notIn: interface)
            return call(index, .unknownMember, interface, member, arguments, unknown, note: "unknown member")
        case 1:
            // A signal of the object's or the worker's; not one named as a method of its interface.
            let signal = rng.pick(Contract.signals.map(\.member).filter { Contract.method($0.interface, $0.name) == nil })
            return call(index, .unknownMember, signal.interface, signal.name, arguments, unknown, note: "a signal called as a method")
        case 2:
            let method = rng.pick(Contract.methods.filter { Contract.ownInterfaces.contains($0.interface) })
            let interface = rng.pick([
                "org.notifyd.Notifyd1.Badge", "org.notifyd.Notifyd2.Badges", "org.notifyd.notifyd1.Badges", Contract.worker,
                "org.notifyd.Notifyd1", "com.example.Evil", "org.freedesktop.Notifications", "org.notifyd.Notifyd1.Badges.X",
                "org.freedesktop.DBus", "org.freedesktop.DBus.ObjectManager",
            ])
            return call(index, .unknownMember, interface, method.member, arguments, unknown, note: "unknown interface")
        case 3:
            let method = rng.pick(Contract.methods.filter { Contract.ownInterfaces.contains($0.interface) })
            let other = rng.pick(knownInterfaces.filter { interface in !Contract.methods.contains { $0.interface == interface && $0.member == method.member } })
            return call(index, .unknownMember, other, method.member, arguments, unknown, note: "member of another interface")
        case 4:
            // Peer is answered by libdbus on every path, Introspect by the parents: neither here.
            let method = rng.pick(Contract.methods.filter { $0.interface != Contract.peer && $0.member != "Introspect" })
            let path = rng.pick(["/org/notifyd/Notifyd1/Badges", "/org/notifyd", "/", "/org/notifyd/Notifyd2", "/org/notifyd/notifyd1", HostileValues.objectPath(&rng)])
            let target = path == Contract.path ? "/org/notifyd/Notifyd1/x" : path
            return call(index, .unknownMember, method.interface, method.member, arguments, unknown, note: "unknown object path", path: target)
        default:
            let member = unknownMemberName(&rng, notIn: nil)
            return call(index, .unknownMember, nil, member, arguments, unknown, note: "unknown member, no interface")
        }
    }

    /// A valid member name that `interface` (nil: every own interface) does not have.
    private func unknownMemberName(_ rng: inout SplitMix64, notIn interface: String?) -> String {
        let known = Contract.methods.filter { method in
            interface.map { method.interface == $0 } ?? (Contract.ownInterfaces.contains(method.interface) || method.member == "Introspect")
        }.map(\.member)
        while true {
            var name: String
            switch rng.int(0...3) {
            case 0: name = rng.pick(Contract.methods).member.lowercased()
            case 1: name = rng.pick(Contract.methods).member + rng.pick(["_", "s", "2", "X"])
            case 2: name = String(rng.pick(Contract.methods).member.dropLast())
            default:
                let first = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
                let rest = first + Array("0123456789")
                name = String(rng.pick(first)) + String((0..<rng.skewed(0...254)).map { _ in rng.pick(rest) })
            }
            if !name.isEmpty, !known.contains(name) { return name }
        }
    }
}
