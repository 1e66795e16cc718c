import DBus
import NotifyCore

/// Turns the `a{sv}` event dictionary of D-Bus into what the core
/// validates: each variant becomes an ``EventValue`` that remembers its
/// type, so a known key with the wrong type is refused by the core with a
/// message naming both types.
enum EventDecoding {
    static func fields(_ dictionary: DBusValue) throws(NotifydError) -> [String: EventValue] {
        guard case .dictionary(.string, .variant, let entries) = dictionary else {
            throw NotifydError(.invalidArgs, "the event must be a dictionary a{sv}, not '\(dictionary.signature)'")
        }
        var fields: [String: EventValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { continue }
            // Unknown keys are ignored, even twice; a known one must be unambiguous.
            guard fields[key] == nil || !WorkerEvent.keySignatures.contains(where: { $0.key == key }) else {
                throw NotifydError(.invalidArgs, "event key '\(key)' appears twice")
            }
            fields[key] = eventValue(value)
        }
        return fields
    }

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
    static func report(_ message: DBusMessage, arguments: [DBusValue]) throws -> WorkerReport {
        let session = try SessionID(arguments.decode(0, as: String.self))
        let app = try AppID(arguments.decode(1, as: String.self))
        let event = try WorkerEvent(validating: fields(arguments[2]))
        return WorkerReport(session: session, app: app, event: event, message: message)
    }
}

/// One validated "events for background session" report.
struct WorkerReport {
    let session: SessionID
    let app: AppID
    let event: WorkerEvent
    /// The message it came in; its third argument, the event dictionary as
    /// the worker sent it, is passed on to running apps as it is.
    let message: DBusMessage
}
