/// An error of notifyd's contract: a code (whose name is the last part of
/// the D-Bus error name, e.g. `InvalidAppId`) and a message a person can
/// act on.
///
/// Codes are static lets over a private enum, so the set can grow without
/// breaking callers.
public struct NotifydError: Error, Hashable, CustomStringConvertible {
    /// Which rule was broken.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case invalidAppId = "InvalidAppId"
            case invalidSessionId = "InvalidSessionId"
            case outOfRange = "OutOfRange"
            case unknownSession = "UnknownSession"
            case unknownFetch = "UnknownFetch"
            case unknownTask = "UnknownTask"
            case unknownTransfer = "UnknownTransfer"
            case limitExceeded = "LimitExceeded"
            case notPermitted = "NotPermitted"
            case invalidArgs = "InvalidArgs"
            case storageFailed = "StorageFailed"
            case resourcesExhausted = "ResourcesExhausted"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The name of the code, e.g. `InvalidAppId`.
        public var name: String { value.rawValue }
        public var description: String { name }

        /// An app ID that is not a desktop entry ID.
        public static let invalidAppId = Code(.invalidAppId)
        /// A session ID that is empty, too long or has control characters.
        public static let invalidSessionId = Code(.invalidSessionId)
        /// A number outside what the method accepts.
        public static let outOfRange = Code(.outOfRange)
        /// A session notifyd has never seen.
        public static let unknownSession = Code(.unknownSession)
        /// A fetch that is not running (completed, expired, or never started).
        public static let unknownFetch = Code(.unknownFetch)
        /// A background task that is not running (ended, expired, or never began).
        public static let unknownTask = Code(.unknownTask)
        /// A background transfer that has ended (completed, failed, cancelled) or never existed.
        public static let unknownTransfer = Code(.unknownTransfer)
        /// Too many pending handlers.
        public static let limitExceeded = Code(.limitExceeded)
        /// The caller may not act for this app.
        public static let notPermitted = Code(.notPermitted)
        /// A malformed value (the standard `org.freedesktop.DBus.Error.InvalidArgs`).
        public static let invalidArgs = Code(.invalidArgs)
        /// The state could not be saved (disk full, read-only); nothing changed.
        public static let storageFailed = Code(.storageFailed)
        /// notifyd ran short of a resource (descriptors, memory, a bus
        /// limit) doing what was asked; nothing changed, try again (the
        /// standard `org.freedesktop.DBus.Error.LimitsExceeded`).
        public static let resourcesExhausted = Code(.resourcesExhausted)
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
