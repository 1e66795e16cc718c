import DBus
import NotifyCore

extension DBusInterface {
    /// The interface with every method admitted through `callers`: a call
    /// from a connection already identified runs at once; any other waits,
    /// deferred, until its sender is identified, then runs and is answered
    /// (the handler sees what was learnt). Calls of one sender keep their
    /// order. Past ``CallerCheck/waitingLimit`` waiting messages, a call is
    /// refused with `LimitsExceeded`, never `NotPermitted`.
    func admitting(through callers: CallerCheck) -> DBusInterface {
        var admitted = self
        admitted.methods = methods.map { method in
            var method = method
            let handler = method.handler
            method.handler = { call in try callers.admit(call, handler) }
            return method
        }
        return admitted
    }
}

extension CallerCheck {
    /// Runs `handler` for `call` now if its sender is identified, else once
    /// it is (answering it then), behind the sender's earlier calls. Property
    /// reads come through here too, so a read sees what the calls sent
    /// before it did.
    func admit(
        _ call: DBusMethodCall, _ handler: @escaping (DBusMethodCall) throws -> DBusMethodResult
    ) throws -> DBusMethodResult {
        if isKnown(call.sender) { return try handler(call) }
        let waiting = whenIdentified(call.sender) { _ in
            do {
                if case .reply(let values) = try handler(call) { call.reply(values) }
            } catch {
                call.fail(error)
            }
        }
        guard waiting else {
            throw NotifydError(
                .resourcesExhausted,
                "\(CallerCheck.waitingLimit) messages are waiting for their senders to be identified; try again")
        }
        return .deferred
    }
}
