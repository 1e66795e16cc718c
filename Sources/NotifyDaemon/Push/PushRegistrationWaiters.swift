import DBus
import NotifyCore

/// `Register` calls that wait for the push server's answer: the
/// specification answers `REGISTRATION_SUCCEEDED` only once the server
/// gave an endpoint. Each waits at most ``patience``; then, or when the
/// connection is lost, it is answered `REGISTRATION_FAILED` with
/// `NETWORK`, and the registration (stored already) is completed later
/// with `NewEndpoint`.
final class PushRegistrationWaiters {
    private struct Waiting {
        let call: DBusMethodCall
        /// The reply's values for a success (true) or a failure (false).
        let answer: (Bool) -> [DBusValue]
        let timeout: ClockWake
    }

    private let committer: Committer
    private let loop: EventLoop
    private let clock: any DaemonClock
    private var waiting: [PushToken: [Waiting]] = [:]
    private var count = 0

    /// How long a `Register` waits for the server.
    static let patience: Microseconds = 10_000_000
    /// At most this many calls wait; more are answered `NETWORK` at once.
    static let limit = 1_000

    init(committer: Committer, loop: EventLoop, clock: any DaemonClock) {
        self.committer = committer
        self.loop = loop
        self.clock = clock
    }

    /// Keeps `call` until `token` has an endpoint; false (nothing kept)
    /// when as many calls as may wait are waiting.
    func wait(_ call: DBusMethodCall, for token: PushToken, answer: @escaping (Bool) -> [DBusValue]) -> Bool {
        guard count < Self.limit else { return false }
        let timeout = clock.wake(after: Self.patience, on: loop) { [weak self] in self?.expire(call, of: token) }
        waiting[token, default: []].append(Waiting(call: call, answer: answer, timeout: timeout))
        count += 1
        return true
    }

    /// The server gave `token` an endpoint: its calls succeed (once the
    /// endpoint is on disk).
    func succeeded(_ token: PushToken) { finish(token, success: true) }

    /// The server refused `token`: its calls fail with `NETWORK`.
    func failed(_ token: PushToken) { finish(token, success: false) }

    /// Every call fails with `NETWORK` (the connection was lost or replaced).
    func failAll() {
        for token in Array(waiting.keys) { finish(token, success: false) }
    }

    private func finish(_ token: PushToken, success: Bool) {
        guard let calls = waiting.removeValue(forKey: token) else { return }
        count -= calls.count
        for waiting in calls {
            waiting.timeout.cancel()
            if case .reply(let values) = committer.respond(waiting.call, waiting.answer(success)) {
                waiting.call.reply(values)
            }
        }
    }

    private func expire(_ call: DBusMethodCall, of token: PushToken) {
        guard var calls = waiting[token], let index = calls.firstIndex(where: { $0.call === call }) else { return }
        let expired = calls.remove(at: index)
        waiting[token] = calls.isEmpty ? nil : calls
        count -= 1
        if case .reply(let values) = committer.respond(call, expired.answer(false)) { call.reply(values) }
    }
}
