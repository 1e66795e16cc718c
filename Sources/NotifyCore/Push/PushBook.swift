/// The UnifiedPush registrations and the messages held for them, without
/// I/O or a clock (times are passed in): the rules of SPEC "Remote
/// notifications" that do not depend on the push server.
///
/// - A registration is known by its token; registering again with the same
///   token is the same registration (its description and VAPID key are
///   updated, its endpoint kept). A token belongs to one app.
/// - At most ``maximumPerApp`` registrations per app and ``maximum`` in all.
/// - A message is 1 to ``maximumMessageBytes`` bytes, held until the app's
///   connector takes it: at most ``maximumPendingPerRegistration`` per
///   registration and for ``pendingLifetime``, the oldest dropped first
///   (returned, so that the daemon logs them).
public struct PushBook: Sendable, Hashable {
    public static let maximumPerApp = 100
    public static let maximum = 1_000
    public static let maximumPendingPerRegistration = 100
    /// Seven days.
    public static let pendingLifetime: Microseconds = 7 * 24 * 3_600 * 1_000_000
    public static let maximumMessageBytes = 4_096
    public static let maximumDescriptionBytes = 100
    /// A VAPID key: a P-256 public key, uncompressed, base64url without padding.
    public static let vapidLength = 87

    public internal(set) var registrations: [PushToken: PushRegistration] = [:]
    /// Held messages per token, oldest first (their bodies are on disk).
    public internal(set) var pending: [PushToken: [HeldPushMessage]] = [:]
    public internal(set) var lastMessageID: UInt64 = 0
    /// The push server set with `SetServer`; nil: none.
    public internal(set) var server: PushServerSettings?
    /// The ID of the last message stored from an ntfy server: a stream
    /// opened later starts after it.
    public internal(set) var serverCursor: String?
    /// Each registration's token by its name at the push server.
    public internal(set) var tokensByServerKey: [PushServerKey: PushToken] = [:]

    public init() {}

    /// What ``register(_:app:description:vapid:connector:)`` did.
    public enum Registered: Sendable, Hashable {
        /// A token not known before.
        case new(PushRegistration)
        /// A token known already: the same registration, updated.
        case again(PushRegistration)

        public var registration: PushRegistration {
            switch self {
            case .new(let registration), .again(let registration): registration
            }
        }
    }

    /// Registers `token` for `app`, or renews its registration. A new one
    /// is known to the push server by `serverKey` (fresh random bytes; a
    /// key in use already is an `InvalidArgs`).
    ///
    /// - Throws: `InvalidArgs` for a description over 100 bytes or a VAPID
    ///   key that is not one; `NotPermitted` when the token is another
    ///   app's; `LimitExceeded` when the app or notifyd has as many
    ///   registrations as it may.
    public mutating func register(
        _ token: PushToken, app: AppID, description: String, vapid: String?, connector: ConnectorVersion,
        serverKey: PushServerKey
    ) throws(NotifydError) -> Registered {
        let descriptionBytes = description.utf8.count
        guard descriptionBytes <= Self.maximumDescriptionBytes else {
            throw NotifydError(
                .invalidArgs,
                "a registration's description is at most \(Self.maximumDescriptionBytes) bytes; this one is \(descriptionBytes)")
        }
        if let vapid, !Self.isVAPIDKey(vapid) {
            throw NotifydError(
                .invalidArgs, "a VAPID key is \(Self.vapidLength) characters of base64url (A-Z a-z 0-9 - _)")
        }
        if var known = registrations[token] {
            guard known.app == app else {
                throw NotifydError(.notPermitted, "this token is registered by another app")
            }
            known.description = description
            known.vapid = vapid
            known.connector = connector
            registrations[token] = known
            return .again(known)
        }
        let ofApp = registrations.values.count { $0.app == app }
        guard ofApp < Self.maximumPerApp else {
            throw NotifydError(
                .limitExceeded,
                "\(app) has \(ofApp) push registrations, the most an app may; unregister one first")
        }
        guard registrations.count < Self.maximum else {
            throw NotifydError(.limitExceeded, "notifyd keeps at most \(Self.maximum) push registrations")
        }
        guard tokensByServerKey[serverKey] == nil else {
            throw NotifydError(.invalidArgs, "this push server key is in use already")
        }
        let registration = PushRegistration(
            token: token, app: app, serverKey: serverKey, description: description, vapid: vapid, connector: connector)
        registrations[token] = registration
        tokensByServerKey[serverKey] = token
        return .new(registration)
    }

    /// Removes a registration and the messages held for it. Nil when the
    /// token is not known (the specification: ignored).
    public mutating func unregister(_ token: PushToken) -> PushRegistration? {
        pending[token] = nil
        guard let removed = registrations.removeValue(forKey: token) else { return nil }
        tokensByServerKey[removed.serverKey] = nil
        return removed
    }

    /// Removes every registration of `app` (`RemoveRegistrations`), in
    /// token order.
    public mutating func remove(app: AppID) -> [PushRegistration] {
        let removed = registrations(of: app)
        for registration in removed { _ = unregister(registration.token) }
        return removed
    }

    /// The registrations of `app`, in token order.
    public func registrations(of app: AppID) -> [PushRegistration] {
        registrations.values.filter { $0.app == app }.sorted { $0.token < $1.token }
    }

    /// Sets the endpoint the push server gave a registration, and when it
    /// expires. True when the endpoint changed (the app's connector then
    /// gets `NewEndpoint`).
    @discardableResult
    public mutating func setEndpoint(_ endpoint: String?, expiry: Microseconds? = nil, for token: PushToken) -> Bool {
        guard var registration = registrations[token] else { return false }
        let changed = registration.endpoint != endpoint
        registration.endpoint = endpoint
        registration.endpointExpiry = endpoint == nil ? nil : expiry
        registrations[token] = registration
        return changed
    }

    /// Forgets every endpoint (the push server changed: each registration is
    /// made again on the new one). Returns the tokens that had one.
    public mutating func clearEndpoints() -> [PushToken] {
        let had = registrations.values.filter { $0.endpoint != nil }.map(\.token).sorted()
        for token in had { setEndpoint(nil, for: token) }
        return had
    }

    /// What ``receive(_:for:serverID:at:)`` did with a message.
    public struct Received: Sendable, Hashable {
        /// The message as received, with its body (to be stored).
        public let message: PushMessage
        /// Older messages of the same registration dropped to make room or
        /// because they were over ``pendingLifetime`` old.
        public let dropped: [HeldPushMessage]
    }

    /// Holds a message from the push server for its registration. Nil when
    /// the token is not known: the daemon refuses it to the server, so that
    /// the application server learns that the endpoint is gone.
    ///
    /// - Throws: `InvalidArgs` for an empty message or one over 4096 bytes.
    public mutating func receive(
        _ body: [UInt8], for token: PushToken, serverID: String, at now: Microseconds
    ) throws(NotifydError) -> Received? {
        guard (1...Self.maximumMessageBytes).contains(body.count) else {
            throw NotifydError(
                .invalidArgs, "a push message is 1 to \(Self.maximumMessageBytes) bytes; this one is \(body.count)")
        }
        guard registrations[token] != nil else { return nil }
        lastMessageID += 1
        let message = PushMessage(id: lastMessageID, token: token, serverID: serverID, body: body, received: now)
        var held = pending[token] ?? []
        var dropped = held.prefix { now - $0.received > Self.pendingLifetime }
        held.removeFirst(dropped.count)
        let over = held.count + 1 - Self.maximumPendingPerRegistration
        if over > 0 {
            dropped += held.prefix(over)
            held.removeFirst(over)
        }
        held.append(message.held)
        pending[token] = held
        return Received(message: message, dropped: Array(dropped))
    }

    /// The connector took message `id`: it is no longer held, and counts
    /// as delivered. Nil when it was not held (delivered or dropped already).
    public mutating func delivered(_ id: UInt64, for token: PushToken) -> HeldPushMessage? {
        guard var held = pending[token], let index = held.firstIndex(where: { $0.id == id }) else { return nil }
        let message = held.remove(at: index)
        pending[token] = held.isEmpty ? nil : held
        if var registration = registrations[token] {
            registration.messages &+= 1
            registration.lastMessage = max(registration.lastMessage ?? message.received, message.received)
            registrations[token] = registration
        }
        return message
    }

    /// Drops the held messages over ``pendingLifetime`` old, oldest first.
    public mutating func expire(at now: Microseconds) -> [HeldPushMessage] {
        var dropped: [HeldPushMessage] = []
        for token in pending.keys.sorted() {
            guard let held = pending[token] else { continue }
            let old = held.prefix { now - $0.received > Self.pendingLifetime }
            guard !old.isEmpty else { continue }
            dropped += old
            pending[token] = old.count == held.count ? nil : Array(held.dropFirst(old.count))
        }
        return dropped
    }

    /// Messages held for `token`, oldest first.
    public func held(for token: PushToken) -> [HeldPushMessage] { pending[token] ?? [] }

    /// Whether message `id` is still held for `token`.
    public func isHeld(_ id: UInt64, for token: PushToken) -> Bool {
        pending[token]?.contains { $0.id == id } ?? false
    }

    /// Messages held over all registrations (`GetStatus`'s `pending-messages`).
    public var heldCount: Int { pending.values.reduce(0) { $0 + $1.count } }

    static func isVAPIDKey(_ key: String) -> Bool {
        key.utf8.count == vapidLength
            && key.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }
}

