extension PushBook {
    /// A book as stored: registrations, then the messages held, oldest
    /// first; a message whose registration is gone is left out.
    public init(restoring registrations: [PushRegistration], held: [PushMessage], lastMessageID: UInt64) {
        self.init()
        for registration in registrations { self.registrations[registration.token] = registration }
        for message in held.sorted(by: { $0.id < $1.id }) where self.registrations[message.token] != nil {
            pending[message.token, default: []].append(message)
        }
        self.lastMessageID = max(lastMessageID, held.map(\.id).max() ?? 0)
    }

    /// Moves every held message's receipt by `step` µs (the wall clock was
    /// set): their seven days are elapsed time.
    public mutating func shift(by step: Microseconds) {
        guard step != 0 else { return }
        for (token, held) in pending {
            pending[token] = held.map {
                PushMessage(id: $0.id, token: $0.token, serverID: $0.serverID, body: $0.body, received: $0.received + step)
            }
        }
    }
}
