extension PushBook {
    /// A book as stored: registrations, then the messages held, oldest
    /// first; a message whose registration is gone is left out.
    public init(
        restoring registrations: [PushRegistration], held: [HeldPushMessage], lastMessageID: UInt64,
        server: PushServerSettings? = nil, serverCursor: String? = nil
    ) {
        self.init()
        self.server = server
        self.serverCursor = server == nil ? nil : serverCursor
        for registration in registrations where tokensByServerKey[registration.serverKey] == nil {
            self.registrations[registration.token] = registration
            tokensByServerKey[registration.serverKey] = registration.token
        }
        for message in held.sorted(by: { $0.id < $1.id }) where self.registrations[message.token] != nil {
            pending[message.token, default: []].append(message)
        }
        self.lastMessageID = max(lastMessageID, held.map(\.id).max() ?? 0)
    }

    /// Moves every held message's receipt by `step` µs (the wall clock was
    /// set): their seven days are elapsed time; so are the endpoints' lives.
    public mutating func shift(by step: Microseconds) {
        guard step != 0 else { return }
        for (token, registration) in registrations where registration.endpointExpiry != nil {
            registrations[token]?.endpointExpiry = registration.endpointExpiry.map { $0 + step }
        }
        for (token, held) in pending {
            pending[token] = held.map { $0.shifted(by: step) }
        }
    }
}
