import DBus
import NotifyTestingCore

/// The worker signal with refused contents, valid events with hostile
/// unknown keys (stored and accounted for), and messages near the size limits.
extension CaseGenerator {
    /// The worker signal with any of the refused contents, from a random path.
    func workerSignal(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        var member = Contract.workerMember
        var interface = Contract.worker
        var arguments: [DBusValue]
        var note: String
        var randomArguments = false
        let refusals: [Family] = [.invalidAppId, .invalidSessionId, .badEvent, .wrongSignature] + (prepared ? [.foreignSession, .limitExceeded] : [])
        switch rng.int(0...9) {
        case 0:
            // Valid content under a wrong name: not the worker signal, so ignored.
            member = rng.pick(["EventForBackgroundSession", "eventsForBackgroundSession", "EventsForBackgroundSession2", "HandleEventsForBackgroundSession"])
            interface = rng.pick([Contract.worker, Contract.sessions, "org.notifyd.Notifyd1.Workers"])
            if interface == Contract.worker && member == Contract.workerMember { member += "X" }
            arguments = [.string(freshSession(index, &rng)), .string(HostileStrings.rejectedAppID(&rng)), validEvent(&rng).0]
            note = "valid content, another signal"
        case 1:
            // One of notifyd's own signals (or a standard one), as if notifyd had sent it: ignored.
            let (signal, declared) = rng.pick(Contract.signals.filter { $0.member.interface != Contract.worker })
            (interface, member) = (signal.interface, signal.name)
            arguments = declared.map { HostileValues.value(of: $0.type, &rng) }
            note = "notifyd's own signal, spoofed"
        default:
            let source = rng.pick(refusals)
            let made = build(source, index, &rng)
            arguments = made.arguments
            randomArguments = source == .wrongSignature
            note = made.note
            if made.member != "HandleEventsForBackgroundSession" {
                // A call that was not an event: its arguments as a malformed signal.
                note = "arguments of \(made.member): \(note)"
            }
        }
        if randomArguments, DBusType.signature(of: arguments.map(\.type)) == "ssa{sv}",
            !HostileStrings.hasDefect(arguments) {
            // Random arguments that happen to form a plausible report: make them malformed.
            arguments.append(.string("extra"))
            note += ", then one more"
        }
        var made = FuzzCase(
            index: index, family: .workerSignal, kind: .signal, path: HostileValues.objectPath(&rng), interface: interface,
            member: member, arguments: arguments, expectation: .noReply, note: note)
        made.unicast = rng.chance(0.3)
        return made
    }

    /// A valid event with hostile unknown keys, for the accepted app: it is
    /// stored, and the run accounts for every handler at the end.
    func acceptedEvent(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        var made = EventGenerator.valid(&rng)
        let extra = EventGenerator.unknownKeys(&rng, count: rng.int(1...5), depthLeft: HostileValues.maximumDepth - 3)
        made.entries += extra
        let target = Legit.accepted(index)
        let arguments: [DBusValue] = [.string(target.session), .string(target.app), EventGenerator.dictionary(made.entries, &rng)]
        let note = "valid event, \(extra.count) hostile unknown keys"
        if rng.chance(0.25) {
            var signal = FuzzCase(
                index: index, family: .acceptedEvent, kind: .signal, path: HostileValues.objectPath(&rng), interface: Contract.worker,
                member: Contract.workerMember, arguments: arguments, expectation: .noReply, note: note)
            signal.storesHandler = made.storesHandler
            return signal
        }
        var accepted = call(index, .acceptedEvent, Contract.sessions, "HandleEventsForBackgroundSession", arguments,
                            .stored(handler: made.storesHandler), note: note)
        accepted.storesHandler = made.storesHandler
        return accepted
    }

    /// A message near libdbus's limits: one huge string where an ID, an
    /// event string or nothing at all belongs. A message may have 128 MiB,
    /// an array (so the event dictionary) 64 MiB; the bus disconnects a
    /// client that sends more, so the sizes stay just below.
    func hugeMessage(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let kind = rng.int(0...4)
        let limit = (kind >= 3 ? 64 : 128) * 1024 * 1024 - 64 * 1024
        let bytes = rng.chance(0.5) ? limit : rng.int((1024 * 1024)...limit)
        let text = String(repeating: "a", count: bytes)
        let note = "\(bytes) bytes"
        switch kind {
        case 0:
            return call(index, .hugeMessage, Contract.badges, "GetBadge", [.string(text)], .error(Contract.Error.invalidAppId), note: note)
        case 1:
            let method = rng.pick(Contract.sessionMethods)
            return call(index, .hugeMessage, method.interface, method.member, [.string(text)], .error(Contract.Error.invalidSessionId), note: note)
        case 2:
            return call(index, .hugeMessage, Contract.badges, "ClearBadge", [.string(Legit.appA), .string(text)], .error(Contract.Error.invalidArgs), note: note)
        case 3:
            let event = DBusValue.vardict(["kind": .string("finished"), "title": .string(text), "notify": .boolean(false), "badge": .int32(0)])
            return call(index, .hugeMessage, Contract.sessions, "HandleEventsForBackgroundSession",
                        [.string(freshSession(index, &rng)), .string(HostileStrings.rejectedAppID(&rng)), event], .error(Contract.Error.invalidArgs), note: note)
        default:
            let event = DBusValue.vardict(["title": .string(text)])
            return FuzzCase(
                index: index, family: .hugeMessage, kind: .signal, path: "/fuzz/huge", interface: Contract.worker,
                member: Contract.workerMember, arguments: [.string(freshSession(index, &rng)), .string(HostileStrings.rejectedAppID(&rng)), event],
                expectation: .noReply, note: note)
        }
    }
}
