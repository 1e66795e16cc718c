/// UnifiedPush's operations: the push book's rules, each with the rows it
/// changes, so that a registration is stored before `Register` answers and
/// a message before the push server hears that it arrived.
extension NotifydState {
    /// `Register` (through `Distributor1` or `Distributor2`).
    public mutating func registerPush(
        _ token: PushToken, app: AppID, description: String, vapid: String?, connector: ConnectorVersion
    ) throws(NotifydError) -> Decision<PushBook.Registered> {
        let registered = try push.register(token, app: app, description: description, vapid: vapid, connector: connector)
        return Decision(registered, NotifydOutcome(writes: [.pushRegistration(registered.registration)]))
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
    /// nil). True when it changed.
    public mutating func setPushEndpoint(_ endpoint: String?, for token: PushToken) -> Decision<Bool> {
        guard push.setEndpoint(endpoint, for: token), let registration = push.registrations[token] else {
            return Decision(false, NotifydOutcome())
        }
        return Decision(true, NotifydOutcome(writes: [.pushRegistration(registration)]))
    }

    /// The push server changed: every endpoint is forgotten. The tokens
    /// that had one.
    public mutating func clearPushEndpoints() -> Decision<[PushToken]> {
        let cleared = push.clearEndpoints()
        let writes = cleared.compactMap { token in push.registrations[token].map(StateWrite.pushRegistration) }
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
        return Decision(received, NotifydOutcome(writes: writes))
    }

    /// The app's connector took message `id`: released, and counted.
    public mutating func pushDelivered(_ id: UInt64, for token: PushToken) -> Decision<PushMessage?> {
        guard let message = push.delivered(id, for: token) else { return Decision(nil, NotifydOutcome()) }
        var writes: [StateWrite] = [.pushMessagesReleased([id])]
        if let registration = push.registrations[token] { writes.append(.pushRegistration(registration)) }
        return Decision(message, NotifydOutcome(writes: writes))
    }

    /// Releases the held messages over seven days old.
    public mutating func expirePushMessages(at now: Microseconds) -> Decision<[PushMessage]> {
        let dropped = push.expire(at: now)
        return Decision(
            dropped, NotifydOutcome(writes: dropped.isEmpty ? [] : [.pushMessagesReleased(dropped.map(\.id))]))
    }
}
