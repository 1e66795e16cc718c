import DBus
import NotifyCore

/// Turns the `a{sv}` event dictionary of D-Bus into what the core
/// validates: each variant becomes an ``EventValue`` that remembers its
/// type, so a known key with the wrong type is refused by the core with a
/// message naming both types.
enum EventDecoding {
    /// The known keys of an event dictionary as values the core validates,
    /// and as they came (for the echo to running apps). Unknown keys are
    /// skipped without being kept, however many or large they are.
    static func fields(_ dictionary: DBusValue) throws(NotifydError) -> (fields: [String: EventValue], known: [String: DBusValue]) {
        guard case .dictionary(.string, .variant, let entries) = dictionary else {
            throw NotifydError(.invalidArgs, "the event must be a dictionary a{sv}, not '\(dictionary.signature)'")
        }
        var fields: [String: EventValue] = [:]
        var known: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value,
                knownKeys.contains(key)
            else { continue }
            // Unknown keys are ignored, even twice; a known one must be unambiguous.
            guard fields[key] == nil else { throw NotifydError(.invalidArgs, "event key '\(key)' appears twice") }
            fields[key] = eventValue(value)
            known[key] = value
        }
        return (fields, known)
    }

    /// The keys of ``WorkerEventKey``: only these are decoded.
    static let knownKeys = Set(WorkerEventKey.allCases.map(\.name))

    static func eventValue(_ value: DBusValue) -> EventValue {
        switch value {
        case .string(let text): .string(text)
        case .boolean(let flag): .boolean(flag)
        case .int32(let number): .int32(number)
        case .uint32(let number): .uint32(number)
        case .uint64(let number): .uint64(number)
        default: .other(signature: value.signature)
        }
    }

    /// Decodes and validates the three arguments of a worker's report
    /// (the method call's or the signal's).
    static func report(arguments: [DBusValue]) throws -> WorkerReport {
        let session = try SessionID(arguments.decode(0, as: String.self))
        let app = try AppID(arguments.decode(1, as: String.self))
        let (fields, known) = try fields(arguments[2])
        let event = try WorkerEvent(validating: fields)
        return WorkerReport(session: session, app: app, event: event, echo: .vardict(known))
    }
}

/// One validated "events for background session" report.
struct WorkerReport {
    let session: SessionID
    let app: AppID
    let event: WorkerEvent
    /// The event dictionary as the worker sent it, known keys only, passed
    /// on to running apps. Every known string is at most
    /// ``WorkerEvent/maximumStringBytes``, so the echo stays under 40 KB
    /// whatever the worker sent.
    let echo: DBusValue
}
