/// The push book's side that faces the push server: registrations by
/// their server key, the server set, endpoints to ask for.
extension PushBook {
    /// The registration the push server knows by `key`.
    public func registration(serverKey key: PushServerKey) -> PushRegistration? {
        tokensByServerKey[key].flatMap { registrations[$0] }
    }

    /// Sets the push server (nil: none) and forgets every endpoint, which
    /// the old server gave. Returns the tokens that had one.
    public mutating func setServer(_ settings: PushServerSettings?) -> [PushToken] {
        server = settings
        serverCursor = nil
        return clearEndpoints()
    }

    /// The registrations whose endpoint expires before `limit` (wall clock,
    /// µs), or that have none: to register again with the server.
    public func needingEndpoints(before limit: Microseconds) -> [PushRegistration] {
        registrations.values.filter { registration in
            guard registration.endpoint != nil else { return true }
            return registration.endpointExpiry.map { $0 < limit } ?? false
        }
        .sorted { $0.token < $1.token }
    }

    /// The soonest endpoint expiry, if any expires.
    public var nextEndpointExpiry: Microseconds? { registrations.values.compactMap(\.endpointExpiry).min() }
}
