/// A UnifiedPush registration, as stored (SPEC "Remote notifications").
public struct StoredPushRegistration: Sendable, Hashable {
    public var token: String
    public var app: String
    /// 32 bytes: its name at the push server.
    public var serverKey: [UInt8]
    public var description: String
    public var vapid: String?
    /// 1 or 2: the connector interface notifyd calls.
    public var connector: Int
    public var endpoint: String?
    /// Unix µs; moved when the wall clock is set.
    public var endpointExpiry: Int64?
    public var messages: UInt32
    /// Unix µs of the last message delivered.
    public var lastMessage: Int64?

    public init(
        token: String, app: String, serverKey: [UInt8], description: String, vapid: String?, connector: Int,
        endpoint: String?, endpointExpiry: Int64?, messages: UInt32, lastMessage: Int64?
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

/// A push message held for its registration until delivered, as stored.
public struct StoredPushMessage: Sendable, Hashable {
    public var id: UInt64
    public var token: String
    public var serverID: String
    public var body: [UInt8]
    /// Unix µs; moved when the wall clock is set.
    public var received: Int64

    public init(id: UInt64, token: String, serverID: String, body: [UInt8], received: Int64) {
        self.id = id
        self.token = token
        self.serverID = serverID
        self.body = body
        self.received = received
    }
}

/// The push server as stored: one row, or none. The password is here
/// when no Secret Service keeps it: the state database is readable by the
/// user alone (mode 0600, in a 0700 directory).
public struct StoredPushServer: Sendable, Hashable {
    public var kind: String
    public var address: String
    public var host: String?
    public var port: UInt16?
    public var caFile: String?
    public var password: String?
    /// The password is in the Secret Service, not here.
    public var passwordInSecretService: Bool
    /// The last ntfy message stored (read only: set with its own write).
    public var cursor: String?

    public init(
        kind: String, address: String, host: String?, port: UInt16?, caFile: String?, password: String?,
        passwordInSecretService: Bool = false
    ) {
        self.passwordInSecretService = passwordInSecretService
        self.kind = kind
        self.address = address
        self.host = host
        self.port = port
        self.caFile = caFile
        self.password = password
    }
}
