import NotifyCore

/// One connection to a push server, whatever its kind: the seam between
/// the distributor and XMPP, ntfy, or a server added later (a new
/// conformance, not new wiring). Called on the bus loop only; it reports
/// through the ``PushServerLinkEvent`` closure it was made with, also on
/// the bus loop.
protocol PushServerLink: AnyObject {
    /// Whether endpoints are made without the server (ntfy: an endpoint is
    /// a topic's URL), so registrations need no connection.
    var registersOffline: Bool { get }
    /// Asks the server for an endpoint for `key` (answered by
    /// ``PushServerLinkEvent/registered(_:endpoint:expiry:)`` or
    /// ``PushServerLinkEvent/registrationFailed(_:reason:)``).
    func register(_ key: PushServerKey)
    /// The registration is gone: the server is told where it can be.
    func forget(_ key: PushServerKey)
    /// The message is stored: the server may forget it.
    func acknowledge(_ answer: PushServerAnswer)
    /// The message has no taker (an unknown registration): the server
    /// tells its sender that the endpoint is gone.
    func refuse(_ answer: PushServerAnswer)
    /// The message could not be stored (the disk is full): it is to come
    /// again later, from its sender (XMPP: 503) or from the server's cache
    /// (ntfy: the stream is read again from the last message stored).
    func postpone(_ answer: PushServerAnswer)
    /// Whether the cursor stored with each message must stay where it is
    /// (ntfy: messages after it are to come again).
    var holdsCursor: Bool { get }
    /// The network is back: connect at once instead of waiting.
    func networkReturned()
    /// Disconnects and ends the link's thread, waiting for it (shutdown).
    func stop()
    /// Disconnects and ends the link's thread without waiting: the bus
    /// loop replaces the link, and must not wait for a disconnect.
    func retire()
}

/// How a message is answered to the server that brought it.
enum PushServerAnswer: Hashable, Sendable {
    /// The `id` of an XMPP push's `iq`.
    case xmpp(String)
    /// An ntfy message: its ID, to catch up from after a reconnection.
    case ntfy(String)
}

/// Where the link's connection stands, as `GetStatus` says it.
struct PushServerLinkState: Equatable, Sendable {
    /// `connecting`, `connected`, `disconnected` or `authentication-failed`.
    let name: String
    /// One sentence, for a person.
    let reason: String

    static let connecting = PushServerLinkState(name: "connecting", reason: "Connecting to the push server.")
    static let connected = PushServerLinkState(name: "connected", reason: "Connected: pushes arrive.")

    static func disconnected(_ why: String) -> PushServerLinkState {
        PushServerLinkState(name: "disconnected", reason: Self.sentence(why) + " notifyd tries again.")
    }

    static func authenticationFailed(_ why: String) -> PushServerLinkState {
        PushServerLinkState(
            name: "authentication-failed",
            reason: Self.sentence(why) + " Set the server again with the right password (notifyctl push server).")
    }

    /// `text` with a capital first letter and a full stop.
    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return "" }
        let capitalized = first.uppercased() + text.dropFirst()
        return capitalized.hasSuffix(".") ? capitalized : capitalized + "."
    }
}

/// What a link reports, on the bus loop.
enum PushServerLinkEvent: Sendable {
    case state(PushServerLinkState)
    /// The server gave `key` an endpoint, valid until `expiry` (wall clock
    /// µs; nil: it does not expire).
    case registered(PushServerKey, endpoint: String, expiry: Microseconds?)
    case registrationFailed(PushServerKey, reason: String)
    /// A message for `key`, exactly as its application server sent it.
    case message(PushServerKey, body: [UInt8], serverID: String, answer: PushServerAnswer)
    /// A message for no registration notifyd made (a stale endpoint).
    case unknownMessage(answer: PushServerAnswer)
}
