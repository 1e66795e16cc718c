/// UnifiedPush's operations: the push book's rules, each with the rows it
/// changes, so that a registration is stored before `Register` answers and
/// a message before the push server hears that it arrived.
extension NotifydState {
    /// `Register` (through `Distributor1` or `Distributor2`).
    public mutating func registerPush(
        _ token: PushToken, app: AppID, description: String, vapid: String?, connector: ConnectorVersion,
        serverKey: PushServerKey
    ) throws(NotifydError) -> Decision<PushBook.Registered> {
        let registered = try push.register(
            token, app: app, description: description, vapid: vapid, connector: connector, serverKey: serverKey)
        // The specification: NewEndpoint on every Register of a token that has one.
        let effects: [NotifydEffect] = registered.registration.endpoint == nil ? [] : [.pushNewEndpoint(registered.registration)]
        return Decision(registered, NotifydOutcome(writes: [.pushRegistration(registered.registration)], effects: effects))
    }

    /// `Unregister`: nil, and nothing stored, for a token not known.
    public mutating func unregisterPush(_ token: PushToken) -> Decision<PushRegistration?> {
        guard let removed = push.unregister(token) else { return Decision(nil, NotifydOutcome()) }
        return Decision(
            removed,
            NotifydOutcome(
                writes: [.pushRegistrationRemoved(token)], effects: [.pushUnregistered(removed, confirmation: true)]))
    }

    /// `RemoveRegistrations`: every registration of `app`, in token order.
    public mutating func removePushRegistrations(of app: AppID) -> Decision<[PushRegistration]> {
        let removed = push.remove(app: app)
        return Decision(
            removed,
            NotifydOutcome(
                writes: removed.map { .pushRegistrationRemoved($0.token) },
                effects: removed.map { .pushUnregistered($0, confirmation: false) }))
    }

    /// The push server gave a registration an endpoint (or took it back:
    /// nil), valid until `expiry`. True when the endpoint changed: the
    /// app's connector gets `NewEndpoint`.
    public mutating func setPushEndpoint(
        _ endpoint: String?, expiry: Microseconds? = nil, for token: PushToken
    ) -> Decision<Bool> {
        guard let before = push.registrations[token] else { return Decision(false, NotifydOutcome()) }
        let changed = push.setEndpoint(endpoint, expiry: expiry, for: token)
        guard let registration = push.registrations[token], registration != before else {
            return Decision(false, NotifydOutcome())
        }
        let effects: [NotifydEffect] = changed && endpoint != nil ? [.pushNewEndpoint(registration)] : []
        return Decision(changed, NotifydOutcome(writes: [.pushRegistration(registration)], effects: effects))
    }

    /// A message from an ntfy server is stored with this one: a stream
    /// opened after a restart starts after `id`.
    public mutating func setPushServerCursor(_ id: String) -> Decision<Void> {
        guard push.server != nil, push.serverCursor != id else { return Decision(NotifydOutcome()) }
        push.serverCursor = id
        return Decision(NotifydOutcome(writes: [.pushServerCursor(id)]))
    }

    /// `SetServer`: the new push server (nil: none); every endpoint, which
    /// the old one gave, is forgotten. Nothing changes for the same settings.
    public mutating func setPushServer(_ settings: PushServerSettings?) -> Decision<[PushToken]> {
        guard settings != push.server else { return Decision([], NotifydOutcome()) }
        let cleared = push.setServer(settings)
        let writes = [StateWrite.pushServer(settings)]
            + cleared.compactMap { token in push.registrations[token].map(StateWrite.pushRegistration) }
        return Decision(cleared, NotifydOutcome(writes: writes))
    }

    /// A message from the push server: held and stored (nil, nothing
    /// stored, for an unknown token); older messages it pushed out are
    /// released with it.
    public mutating func receivePush(
        _ body: [UInt8], for token: PushToken, serverID: String, at now: Microseconds
    ) throws(NotifydError) -> Decision<PushBook.Received?> {
        guard let received = try push.receive(body, for: token, serverID: serverID, at: now) else {
            return Decision(nil, NotifydOutcome())
        }
        var writes: [StateWrite] = [.pushMessageHeld(received.message)]
        if !received.dropped.isEmpty { writes.append(.pushMessagesReleased(received.dropped.map(\.id))) }
        return Decision(received, NotifydOutcome(writes: writes, effects: [.pushMessageStored(received.message)]))
    }

    /// The app's connector took message `id`: released, and counted.
    public mutating func pushDelivered(_ id: UInt64, for token: PushToken) -> Decision<HeldPushMessage?> {
        guard let message = push.delivered(id, for: token) else { return Decision(nil, NotifydOutcome()) }
        var writes: [StateWrite] = [.pushMessagesReleased([id])]
        if let registration = push.registrations[token] { writes.append(.pushRegistration(registration)) }
        return Decision(message, NotifydOutcome(writes: writes))
    }

    /// Releases the held messages over seven days old.
    public mutating func expirePushMessages(at now: Microseconds) -> Decision<[HeldPushMessage]> {
        let dropped = push.expire(at: now)
        return Decision(
            dropped, NotifydOutcome(writes: dropped.isEmpty ? [] : [.pushMessagesReleased(dropped.map(\.id))]))
    }
}
