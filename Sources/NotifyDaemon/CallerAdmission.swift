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
            method.handler = { call in
                if callers.isKnown(call.sender) { return try handler(call) }
                let waiting = callers.whenIdentified(call.sender) { _ in
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
            return method
        }
        return admitted
    }
}
