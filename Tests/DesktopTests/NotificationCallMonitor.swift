import CDBus
import DBus
import Foundation
import TestSupport

/// What a notification server received, seen from the bus itself: a
/// monitor connection (`org.freedesktop.DBus.Monitoring.BecomeMonitor`)
/// that records every `org.freedesktop.Notifications` call with its reply,
/// the server's signals, notifyd's `NotificationPosted` and the events
/// notifyd was sent, in the order the bus routed them.
///
/// Written on raw libdbus rather than ``DBusConnection``: a monitor must
/// never send a message (the bus drops a monitor that does), and a
/// dispatched connection answers every method call it sees with an
/// `UnknownMethod` error. Messages are popped here, never dispatched.
final class NotificationCallMonitor: @unchecked Sendable {
    /// One `Notify(susssasa{sv}i) → u` call.
    struct Notify: Sendable, CustomStringConvertible {
        var appName: String
        var replacesID: UInt32
        var icon: String
        var summary: String
        var body: String
        /// Action id and label pairs, flattened as on the wire.
        var actions: [String]
        /// Hints with their variants unwrapped.
        var hints: [String: DBusValue]
        var expireTimeout: Int32
        /// The id the server answered (nil until the reply is seen).
        var id: UInt32?
        /// The error the server answered instead, if any.
        var error: String?
        /// Position in ``NotificationCallMonitor/timeline``.
        var order: Int

        var actionIDs: [String] { stride(from: 0, to: actions.count - 1, by: 2).map { actions[$0] } }
        var actionLabels: [String: String] {
            var labels: [String: String] = [:]
            for index in stride(from: 0, to: actions.count - 1, by: 2) { labels[actions[index]] = actions[index + 1] }
            return labels
        }
        var description: String {
            "Notify(app: \(appName), replaces: \(replacesID), summary: \(summary.debugDescription), body: "
                + "\(body.debugDescription), actions: \(actions), hints: \(hints.keys.sorted()), id: \(id.map(String.init) ?? "-"))"
        }
    }

    /// notifyd's `NotificationPosted(s app, s session, u id, a{sv} details)`.
    struct Posted: Sendable {
        var app: String
        var session: String
        var id: UInt32
        var details: [String: DBusValue]
        var order: Int
    }

    /// An event a client sent notifyd (`HandleEventsForBackgroundSession`).
    struct SentEvent: Sendable {
        var session: String
        var app: String
        var event: [String: DBusValue]
        var order: Int
    }

    enum Entry: Sendable {
        case notify(Int)
        case closeNotification(UInt32)
        case notificationClosed(UInt32, reason: UInt32)
        case actionInvoked(UInt32, String)
        case posted(Int)
        case sent(Int)
    }

    private let raw: OpaquePointer
    private let store = Store()
    private let finished = DispatchSemaphore(value: 0)

    /// What the monitor thread records (the thread holds it, not the monitor).
    private final class Store: @unchecked Sendable {
        let condition = NSCondition()
        var notifies: [Notify] = []
        var posts: [Posted] = []
        var events: [SentEvent] = []
        var entries: [Entry] = []
        /// Notify calls waiting for their reply, by sender and serial.
        var awaitingReply: [String: Int] = [:]
        var stopping = false

        func record(_ message: OpaquePointer) {
            let type = dbus_message_get_type(message)
            let interface = dbus_message_get_interface(message).map { String(cString: $0) }
            let member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
            let sender = dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
            let destination = dbus_message_get_destination(message).map { String(cString: $0) } ?? ""
            let arguments = NotificationCallMonitor.arguments(of: message)
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            switch (type, interface, member) {
            case (1, "org.freedesktop.Notifications", "Notify"):
                guard arguments.count == 8, case .string(let appName) = arguments[0],
                    case .uint32(let replaces) = arguments[1], case .string(let icon) = arguments[2],
                    case .string(let summary) = arguments[3], case .string(let body) = arguments[4],
                    case .array(_, let actionValues) = arguments[5], case .int32(let timeout) = arguments[7]
                else { return }
                let actions = actionValues.compactMap { value -> String? in
                    if case .string(let text) = value { return text }
                    return nil
                }
                notifies.append(
                    Notify(
                        appName: appName, replacesID: replaces, icon: icon, summary: summary, body: body, actions: actions,
                        hints: NotificationCallMonitor.vardict(arguments[6]), expireTimeout: timeout, id: nil, error: nil,
                        order: entries.count))
                awaitingReply["\(sender) \(dbus_message_get_serial(message))"] = notifies.count - 1
                entries.append(.notify(notifies.count - 1))
            case (1, "org.freedesktop.Notifications", "CloseNotification"):
                if case .uint32(let id)? = arguments.first { entries.append(.closeNotification(id)) }
            case (4, "org.freedesktop.Notifications", "NotificationClosed"):
                if arguments.count == 2, case .uint32(let id) = arguments[0], case .uint32(let reason) = arguments[1] {
                    entries.append(.notificationClosed(id, reason: reason))
                }
            case (4, "org.freedesktop.Notifications", "ActionInvoked"):
                if arguments.count == 2, case .uint32(let id) = arguments[0], case .string(let action) = arguments[1] {
                    entries.append(.actionInvoked(id, action))
                }
            case (4, "org.notifyd.Notifyd1.Sessions", "NotificationPosted"):
                guard arguments.count == 4, case .string(let app) = arguments[0], case .string(let session) = arguments[1],
                    case .uint32(let id) = arguments[2]
                else { return }
                posts.append(
                    Posted(
                        app: app, session: session, id: id, details: NotificationCallMonitor.vardict(arguments[3]),
                        order: entries.count))
                entries.append(.posted(posts.count - 1))
            case (1, "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession"):
                guard arguments.count == 3, case .string(let session) = arguments[0], case .string(let app) = arguments[1]
                else { return }
                events.append(
                    SentEvent(
                        session: session, app: app, event: NotificationCallMonitor.vardict(arguments[2]),
                        order: entries.count))
                entries.append(.sent(events.count - 1))
            case (2, _, _), (3, _, _):
                let key = "\(destination) \(dbus_message_get_reply_serial(message))"
                guard let index = awaitingReply.removeValue(forKey: key) else { return }
                if type == 2, case .uint32(let id)? = arguments.first {
                    notifies[index].id = id
                } else {
                    notifies[index].error = dbus_message_get_error_name(message).map { String(cString: $0) } ?? "error"
                }
            default:
                break
            }
        }
    }

    static let rules = [
        "type='method_call',interface='org.freedesktop.Notifications'",
        "type='signal',interface='org.freedesktop.Notifications'",
        "type='method_return'",
        "type='error'",
        "type='signal',interface='org.notifyd.Notifyd1.Sessions',member='NotificationPosted'",
        "type='method_call',interface='org.notifyd.Notifyd1.Sessions',member='HandleEventsForBackgroundSession'",
    ]

    init(address: String) throws {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            throw TestFailure("monitor cannot connect to \(address)")
        }
        self.raw = raw
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0 else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw TestFailure("monitor cannot register with the bus")
        }
        let call = dbus_message_new_method_call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor")!
        defer { dbus_message_unref(call) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(call, &iter)
        var array = DBusMessageIter()
        dbus_message_iter_open_container(&iter, Int32(UInt8(ascii: "a")), "s", &array)
        for rule in Self.rules {
            rule.withCString { pointer in
                var value: UnsafePointer<CChar>? = pointer
                _ = dbus_message_iter_append_basic(&array, Int32(UInt8(ascii: "s")), &value)
            }
        }
        dbus_message_iter_close_container(&iter, &array)
        var flags: UInt32 = 0
        dbus_message_iter_append_basic(&iter, Int32(UInt8(ascii: "u")), &flags)
        guard let reply = dbus_connection_send_with_reply_and_block(raw, call, 10_000, &error) else {
            let message = error.message.map { String(cString: $0) } ?? "no reply"
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw TestFailure("BecomeMonitor failed: \(message)")
        }
        dbus_message_unref(reply)
        let (store, finished) = (store, finished)
        nonisolated(unsafe) let connection = raw
        let thread = Thread { Self.run(connection, store, finished) }
        thread.name = "notification-call-monitor"
        thread.start()
    }

    deinit {
        store.condition.lock()
        store.stopping = true
        store.condition.unlock()
        finished.wait()
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    private static func run(_ raw: OpaquePointer, _ store: Store, _ finished: DispatchSemaphore) {
        defer { finished.signal() }
        while true {
            store.condition.lock()
            let stop = store.stopping
            store.condition.unlock()
            if stop { return }
            guard dbus_connection_read_write(raw, 50) != 0 else { return }
            while let message = dbus_connection_pop_message(raw) {
                store.record(message)
                dbus_message_unref(message)
            }
        }
    }

    // MARK: Reading what was recorded

    var notifyCalls: [Notify] { locked { store.notifies } }
    var posted: [Posted] { locked { store.posts } }
    var sentEvents: [SentEvent] { locked { store.events } }
    var timeline: [Entry] { locked { store.entries } }

    /// The position the next recorded entry will have: a mark to read
    /// only what came after it.
    var mark: Int { locked { store.entries.count } }

    private func locked<T>(_ body: () -> T) -> T {
        store.condition.lock()
        defer { store.condition.unlock() }
        return body()
    }

    /// Waits (bounded) until `condition` holds on what was recorded.
    func wait(_ what: String, seconds: Double = 15, until predicate: (NotificationCallMonitor) -> Bool) throws {
        try waitUntil(what, seconds: seconds) { predicate(self) }
    }

    // MARK: Decoding

    static func vardict(_ value: DBusValue) -> [String: DBusValue] {
        guard case .dictionary(_, _, let entries) = value else { return [:] }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key else { continue }
            if case .variant(let inner) = entry.value { result[key] = inner } else { result[key] = entry.value }
        }
        return result
    }

    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != 0 {
            values.append(readValue(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func code(_ character: Character) -> Int32 { Int32(character.asciiValue!) }

    /// Decodes one value. Arrays keep a placeholder element type (the
    /// monitor compares values, never sends them), except `as` and `a{sv}`.
    private static func readValue(_ iter: inout DBusMessageIter) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        var sub = DBusMessageIter()
        switch type {
        case code("a"):
            let elementType = dbus_message_iter_get_element_type(&iter)
            dbus_message_iter_recurse(&iter, &sub)
            var items: [DBusValue] = []
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                if elementType == code("e") {
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &pair)
                    let key = readValue(&pair)
                    dbus_message_iter_next(&pair)
                    entries.append(DBusDictionaryEntry(key: key, value: readValue(&pair)))
                } else {
                    items.append(readValue(&sub))
                }
                dbus_message_iter_next(&sub)
            }
            if elementType == code("e") { return .dictionary(key: .string, value: .variant, entries) }
            return .array(element: elementType == code("s") ? .string : .byte, items)
        case code("v"):
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(readValue(&sub))
        case code("r"):
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                fields.append(readValue(&sub))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        default:
            break
        }
        var basic = DBusBasicValue()
        dbus_message_iter_get_basic(&iter, &basic)
        switch type {
        case code("y"): return .byte(basic.byt)
        case code("b"): return .boolean(basic.bool_val != 0)
        case code("n"): return .int16(basic.i16)
        case code("q"): return .uint16(basic.u16)
        case code("i"): return .int32(basic.i32)
        case code("u"): return .uint32(basic.u32)
        case code("x"): return .int64(Int64(basic.i64))
        case code("t"): return .uint64(UInt64(basic.u64))
        case code("d"): return .double(basic.dbl)
        case code("s"): return .string(String(cString: basic.str))
        case code("o"): return .objectPath(String(cString: basic.str))
        case code("g"): return .signature(String(cString: basic.str))
        default: return .string("<type \(type)>")
        }
    }
}
