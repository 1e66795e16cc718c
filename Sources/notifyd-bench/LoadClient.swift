import DBus
import NotifyCore
import NotifyTestingCore

/// What one client of the load section saw. Made on the client's thread,
/// read by the main thread after the thread ended.
struct LoadClientOutcome: Sendable {
    /// Round trips of the answered calls of the mix, in nanoseconds, by kind.
    var latencies: [LoadCall: [UInt64]] = [:]
    /// Round trips of the answered `Peer.Ping` calls.
    var pings: [UInt64] = []
    /// Error replies to the calls of the mix (a call with no reply in time
    /// is `org.freedesktop.DBus.Error.NoReply`), by D-Bus error name.
    var errors: [String: Int] = [:]
    /// Error replies to the Pings, by name.
    var pingErrors: [String: Int] = [:]
    /// One example per error name: the call and the error's message.
    var errorExamples: [String: String] = [:]
    /// Replies that were not what the client's own calls imply, by kind.
    var wrongAnswers: [LoadCall: Int] = [:]
    /// One example per kind.
    var wrongExamples: [LoadCall: String] = [:]
    /// Why the client made no calls at all (it could not connect or warm up).
    var setUpFailure: String?
    /// Calls of the clean-up (untimed) that failed, with why.
    var cleanUpFailures: [String] = []
}

/// One client of the load section: on a thread of its own, with a private
/// connection of its own, it makes blocking calls one after another.
///
/// It acts for an app of its own (`org.notifyd.Load.C007`) and sessions of
/// its own, so it knows what every reply must be: the badge it set and
/// changed, the handlers it stored and completed. A reply that differs is a
/// wrong answer.
final class LoadClient {
    /// The client's number, from 1.
    let number: Int
    let app: String
    private let connection: DBusConnection
    private var outcome = LoadClientOutcome()
    /// What notifyd must answer, from the client's own calls.
    private var expected: LoadExpectation

    /// Untimed Pings after the first call, before the barrier.
    static let warmUpPings = 10

    private init(number: Int, connection: DBusConnection) {
        self.number = number
        self.connection = connection
        let digits = String(number)
        app = "org.notifyd.Load.C" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        expected = LoadExpectation(app: app, client: number)
    }

    /// Everything one client thread does: connects and warms up, then, each
    /// phase after the barrier, `pings` Pings and the `mix`, and last the
    /// untimed clean-up (completes its remaining sessions, clears its badge).
    static func run(
        number: Int, address: String, mix: [LoadCall], pings: Int, barrier: ThreadBarrier
    ) -> LoadClientOutcome {
        let client: LoadClient
        do {
            client = LoadClient(number: number, connection: try DBusConnection.connect(to: .address(address), private: true))
            try client.warmUp()
        } catch {
            var outcome = LoadClientOutcome()
            outcome.setUpFailure = "client \(number): \(error)"
            for _ in 0..<3 { guard barrier.arriveAndWait() else { break } }
            return outcome
        }
        guard barrier.arriveAndWait() else { return client.outcome }
        for _ in 0..<pings { client.ping() }
        guard barrier.arriveAndWait() else { return client.outcome }
        for call in mix { client.perform(call) }
        guard barrier.arriveAndWait() else { return client.outcome }
        client.cleanUp()
        return client.outcome
    }

    // MARK: Phases

    /// The first call makes notifyd look the caller up (its credentials,
    /// sandbox and scope); it and a few Pings are not timed.
    private func warmUp() throws(DBusError) {
        expected.badge = try callNotifyd(NotifydNames.badgesInterface, "GetBadge", [.string(app)]).arguments().decode(0)
        for _ in 0..<Self.warmUpPings {
            _ = try callNotifyd("org.freedesktop.DBus.Peer", "Ping", [])
        }
    }

    private func ping() {
        let message: DBusMessage
        do {
            message = try makeMessage("org.freedesktop.DBus.Peer", "Ping", [])
        } catch {
            outcome.pingErrors["bench: cannot build the message", default: 0] += 1
            return
        }
        let start = MonotonicClock.nanoseconds()
        do {
            _ = try connection.call(message)
            outcome.pings.append(MonotonicClock.nanoseconds() - start)
        } catch {
            outcome.pingErrors[error.name, default: 0] += 1
            outcome.errorExamples[error.name] = outcome.errorExamples[error.name] ?? "Ping: \(error.message)"
        }
    }

    /// One call of the mix: its arguments are chosen and its message built
    /// before the clock starts; its reply is checked after it stops.
    private func perform(_ kind: LoadCall) {
        let intent = expected.nextIntent(kind)
        let message: DBusMessage
        do {
            message = try makeMessage(intent.interface, intent.member, intent.arguments(app: app))
        } catch {
            record(error, of: kind)
            return
        }
        let start = MonotonicClock.nanoseconds()
        let reply: DBusMessage
        do {
            reply = try connection.call(message)
        } catch {
            record(error, of: kind)
            expected.failed(intent)
            return
        }
        outcome.latencies[kind, default: []].append(MonotonicClock.nanoseconds() - start)
        if let wrong = expected.check(intent, reply) {
            outcome.wrongAnswers[kind, default: 0] += 1
            outcome.wrongExamples[kind] = outcome.wrongExamples[kind] ?? "client \(number): \(wrong)"
        }
    }

    /// Completes the sessions still pending and clears the badge, so the
    /// load leaves notifyd as it found it (no handler left to expire, no
    /// LauncherEntry connection left open).
    private func cleanUp() {
        while let session = expected.takeOldestPending() {
            do {
                _ = try callNotifyd(NotifydNames.sessionsInterface, "CompleteSession", [.string(session)])
            } catch {
                outcome.cleanUpFailures.append("CompleteSession(\(session)): \(error)")
            }
        }
        do {
            _ = try callNotifyd(NotifydNames.badgesInterface, "SetBadge", [.string(app), .uint32(0)])
        } catch {
            outcome.cleanUpFailures.append("SetBadge(\(app), 0): \(error)")
        }
    }

    // MARK: Calls

    private func record(_ error: DBusError, of kind: LoadCall) {
        outcome.errors[error.name, default: 0] += 1
        outcome.errorExamples[error.name] = outcome.errorExamples[error.name] ?? "\(kind.rawValue): \(error.message)"
    }

    private func makeMessage(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        try DBusMessage.methodCall(
            destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
            member: member, arguments: arguments)
    }

    private func callNotifyd(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        try connection.call(makeMessage(interface, member, arguments))
    }
}
