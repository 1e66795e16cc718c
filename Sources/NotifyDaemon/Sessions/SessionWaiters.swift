import DBus
import NotifyCore

/// The `WaitForSession` calls waiting for sessions to have no pending
/// handler, answered when the core says one has settled.
final class SessionWaiters {
    private var calls: [SessionID: [DBusMethodCall]] = [:]

    /// Keeps `call` until `session` settles.
    func wait(_ call: DBusMethodCall, for session: SessionID) {
        calls[session, default: []].append(call)
    }

    /// Answers every call waiting for `session` with its last result.
    func answer(_ session: SessionID, with lastResult: HandlerResult?) {
        guard let waiting = calls.removeValue(forKey: session) else { return }
        for call in waiting { call.reply([.string(lastResult?.rawValue ?? "none")]) }
    }

    /// A connection left the bus: its waiting calls can never be answered.
    func callerLeft(_ name: String) {
        for (session, waiting) in calls {
            let remaining = waiting.filter { call in
                guard call.sender == name else { return true }
                call.abandon()
                return false
            }
            calls[session] = remaining.isEmpty ? nil : remaining
        }
    }
}
