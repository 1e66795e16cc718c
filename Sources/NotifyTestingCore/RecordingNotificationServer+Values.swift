public import DBus

/// What a ``RecordingNotificationServer`` keeps: the calls, and their counts.
extension RecordingNotificationServer {
    /// One `Notify(susssasa{sv}i) → u` call.
    public struct Recorded: Sendable, Hashable {
        public var appName: String
        public var replacesID: UInt32
        public var appIcon: String
        public var summary: String
        public var body: String
        /// Pairs of action ID and label, flattened as on the wire.
        public var actions: [String]
        /// Hint values with their variant unwrapped.
        public var hints: [String: DBusValue]
        public var expireTimeout: Int32
        /// The id the server answered.
        public var id: UInt32

        /// The actions as `[id: label]`.
        public var actionLabels: [String: String] {
            var labels: [String: String] = [:]
            for index in stride(from: 0, to: actions.count - 1, by: 2) { labels[actions[index]] = actions[index + 1] }
            return labels
        }
    }

    /// How many calls the server received (kept even when it does not record).
    public struct Counts: Sendable, Equatable {
        /// `Notify` calls: every popup posted or updated.
        public var notify = 0
        /// Of those, the calls that replaced a notification in place (`replaces_id` not 0).
        public var replacing = 0
        /// `CloseNotification` calls.
        public var close = 0

        public static func - (lhs: Counts, rhs: Counts) -> Counts {
            Counts(notify: lhs.notify - rhs.notify, replacing: lhs.replacing - rhs.replacing, close: lhs.close - rhs.close)
        }
    }
}
