/// Why notifyd could not start: a ``Code`` to act on in a program (a test,
/// a supervisor) and a message that tells a person what to do.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    /// What failed. A struct over a private enum, so that codes can be
    /// added without breaking a caller that switches over them.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case eventLoop = "event-loop"
            case state
            case bus
            case busSetUp = "bus-set-up"
            case nameTaken = "name-taken"
            case callerIdentification = "caller-identification"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The event loop could not be made (descriptors, memory).
        public static let eventLoop = Code(.eventLoop)
        /// The state directory or its database could not be opened.
        public static let state = Code(.state)
        /// The session bus could not be reached.
        public static let bus = Code(.bus)
        /// The object or a subscription could not be set up on the bus.
        public static let busSetUp = Code(.busSetUp)
        /// Another process holds `org.notifyd.Notifyd1`.
        public static let nameTaken = Code(.nameTaken)
        /// Bus connections could not be identified (their process, sandbox, user).
        public static let callerIdentification = Code(.callerIdentification)

        public var description: String { value.rawValue }
    }

    public let code: Code
    /// What happened and what to do, for the person starting notifyd.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
