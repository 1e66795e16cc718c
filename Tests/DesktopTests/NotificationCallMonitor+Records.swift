import DBus

/// What ``NotificationCallMonitor`` records, one type per kind of message.
extension NotificationCallMonitor {
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

    /// One recorded message, in the order the bus routed them.
    enum Entry: Sendable {
        case notify(Int)
        case closeNotification(UInt32)
        case notificationClosed(UInt32, reason: UInt32)
        case actionInvoked(UInt32, String)
        case posted(Int)
        case sent(Int)
    }
}
