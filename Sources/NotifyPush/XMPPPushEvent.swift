/// Where the connection to the push server stands.
public enum XMPPConnectionState: Sendable, Equatable {
    /// A connection is being made (TCP, TLS, then authentication).
    case connecting
    /// Logged in and bound to the `notifyd` resource: pushes can arrive.
    case connected
    /// The connection was lost or could not be made; it is tried again
    /// after a wait (or at once when the network returns).
    case disconnected(reason: String)
    /// The server refused the account or the password: not tried again
    /// until new settings are given.
    case authenticationFailed(reason: String)
    /// The server's certificate did not verify against the system's CAs
    /// (or the CA file): the connection was refused; tried again after a wait.
    case certificateRejected(reason: String)
}

/// The name the push server gave one push, to answer it with
/// ``XMPPPushClient/acknowledge(_:)`` or ``XMPPPushClient/refuse(_:)``.
public struct PushID: Hashable, Sendable, CustomStringConvertible {
    /// The `id` of the push's `iq`.
    public let rawValue: String
    /// The ID `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// One message from an application server, as the push server relayed it.
public struct PushMessage: Sendable, Equatable {
    /// What to answer it by.
    public let id: PushID
    /// The registration's application (32 bytes).
    public let application: [UInt8]
    /// The registration's instance (32 bytes).
    public let instance: [UInt8]
    /// The body exactly as the application server POSTed it (1 to 4096 bytes).
    public let body: [UInt8]
}

/// What an ``XMPPPushClient`` reports, on its own thread.
public enum XMPPPushEvent: Sendable, Equatable {
    /// The connection's state changed.
    case state(XMPPConnectionState)
    /// The server gave an endpoint for a registration; `expiration` is its
    /// time as the server wrote it (ISO 8601), to register again before.
    case registered(application: [UInt8], instance: [UInt8], endpoint: String, expiration: String)
    /// The server did not register; `reason` says why.
    case registrationFailed(application: [UInt8], instance: [UInt8], reason: String)
    /// A message arrived: answer it with ``XMPPPushClient/acknowledge(_:)``
    /// once it is stored, or ``XMPPPushClient/refuse(_:)``.
    case push(PushMessage)
}

/// What other threads ask of the client's thread.
enum XMPPPushCommand: Sendable, Equatable {
    case configure(XMPPPushSettings?)
    case register(application: [UInt8], instance: [UInt8])
    case acknowledge(PushID)
    case refuse(PushID)
    case postpone(PushID)
    case networkReturned
    case stop
}
