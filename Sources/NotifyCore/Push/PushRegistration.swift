/// A UnifiedPush registration (SPEC "Remote notifications"): an app's
/// connector registered a token with notifyd as its distributor, and
/// notifyd keeps it, with its endpoint once the push server gave one.
public struct PushRegistration: Sendable, Hashable {
    /// The connector's token: 1 to 100 bytes, unique among all
    /// registrations. Never shown (`ListRegistrations` leaves it out).
    public let token: PushToken
    /// The app, whose bus name the connector is reached at.
    public let app: AppID
    /// Its name at the push server, made when it was first registered.
    public let serverKey: PushServerKey
    /// Up to 100 bytes, as the app gave it.
    public var description: String
    /// The VAPID public key the app gave, if any.
    public var vapid: String?
    /// Which distributor interface it registered through, and so which
    /// connector interface notifyd calls.
    public var connector: ConnectorVersion
    /// The URL the app's server pushes to; nil until the push server gave one.
    public var endpoint: String?
    /// When the push server stops taking pushes to the endpoint (wall
    /// clock, µs), unless it is renewed before; nil when it does not expire.
    public var endpointExpiry: Microseconds?
    /// Messages delivered to the app, ever.
    public var messages: UInt32
    /// When the last message came (wall clock, µs); nil before the first.
    public var lastMessage: Microseconds?

    public init(
        token: PushToken, app: AppID, serverKey: PushServerKey, description: String, vapid: String? = nil,
        connector: ConnectorVersion, endpoint: String? = nil, endpointExpiry: Microseconds? = nil, messages: UInt32 = 0,
        lastMessage: Microseconds? = nil
    ) {
        self.token = token
        self.app = app
        self.serverKey = serverKey
        self.endpointExpiry = endpointExpiry
        self.description = description
        self.vapid = vapid
        self.connector = connector
        self.endpoint = endpoint
        self.messages = messages
        self.lastMessage = lastMessage
    }
}

/// The UnifiedPush D-Bus interface an app registered through.
public enum ConnectorVersion: Int, Sendable, Hashable {
    /// `org.unifiedpush.Distributor1`: notifyd calls `Connector1`.
    case one = 1
    /// `org.unifiedpush.Distributor2`: notifyd calls `Connector2`.
    case two = 2
}

/// A connector's token: 1 to 100 bytes of UTF-8 without control
/// characters (the UnifiedPush D-Bus specification's limit; connectors use
/// a UUID).
public struct PushToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// The specification's limit.
    public static let maximumBytes = 100

    /// Validates a token, or throws `InvalidArgs` saying what is wrong.
    public init(_ rawValue: String) throws(NotifydError) {
        let length = rawValue.utf8.count
        guard length > 0 else { throw NotifydError(.invalidArgs, "a push token may not be empty") }
        guard length <= Self.maximumBytes else {
            throw NotifydError(
                .invalidArgs, "a push token is at most \(Self.maximumBytes) bytes; this one is \(length)")
        }
        guard !rawValue.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw NotifydError(.invalidArgs, "a push token may not contain control characters")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A push message as the push server handed it over: what is stored, and
/// what a connector's `Message` carries. The book keeps only its
/// ``HeldPushMessage`` (the body stays on disk until it is delivered).
public struct PushMessage: Sendable, Hashable {
    /// notifyd's own number for it, increasing.
    public let id: UInt64
    public let token: PushToken
    /// The push server's ID for it (ntfy's message ID, XMPP's stanza ID),
    /// passed to the connector as `id`; empty when the server gave none.
    public let serverID: String
    /// The bytes exactly as the application server sent them: 1 to 4096.
    public let body: [UInt8]
    /// When notifyd received it (wall clock, µs).
    public let received: Microseconds

    public init(id: UInt64, token: PushToken, serverID: String, body: [UInt8], received: Microseconds) {
        self.id = id
        self.token = token
        self.serverID = serverID
        self.body = body
        self.received = received
    }

    /// The message as the book holds it.
    public var held: HeldPushMessage {
        HeldPushMessage(id: id, token: token, serverID: serverID, size: body.count, received: received)
    }
}

/// A push message held until its app's connector takes it, without its
/// body: at the limits (100 per registration, 1,000 registrations) bodies
/// would be 410 MB, so they stay in the state database and are read back
/// when the message is delivered again.
public struct HeldPushMessage: Sendable, Hashable {
    /// notifyd's own number for it, increasing.
    public let id: UInt64
    public let token: PushToken
    /// The push server's ID for it; empty when the server gave none.
    public let serverID: String
    /// The body's length in bytes: 1 to 4096.
    public let size: Int
    /// When notifyd received it (wall clock, µs).
    public let received: Microseconds

    public init(id: UInt64, token: PushToken, serverID: String, size: Int, received: Microseconds) {
        self.id = id
        self.token = token
        self.serverID = serverID
        self.size = size
        self.received = received
    }

    /// The whole message, with its body as read back from the disk.
    public func with(body: [UInt8]) -> PushMessage {
        PushMessage(id: id, token: token, serverID: serverID, body: body, received: received)
    }

    /// The same message received `step` µs later (the wall clock was set).
    func shifted(by step: Microseconds) -> HeldPushMessage {
        HeldPushMessage(id: id, token: token, serverID: serverID, size: size, received: received + step)
    }
}
