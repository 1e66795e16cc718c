import DBus
import NotifyCore
import NotifyTestingCore

/// Round trips of `Badges.GetBadge` and `Peer.Ping` to notifyd over one
/// connection, timed alike: the way of timing of the calls and slow-disk
/// sections.
///
/// The calls alternate one by one (Ping then GetBadge, then GetBadge then
/// Ping, ...) so that both sides see the same machine over the same time.
/// Each timing covers the blocking call only: its message is built before
/// the clock starts (libdbus locks a sent message and gives it a serial, so
/// every call gets a new one, on both sides alike).
struct RoundTripTimer {
    let connection: DBusConnection
    /// The app whose badge GetBadge reads.
    let appID: String

    /// The two sides' durations.
    struct RoundTrips {
        let ping: LatencySummary
        let getBadge: LatencySummary
    }

    /// `warmUpCalls` untimed calls of each, then `calls` timed calls of each.
    func alternate(calls: Int, warmUpCalls: Int) throws(BenchFailure) -> RoundTrips {
        for _ in 0..<warmUpCalls {
            _ = try timePing()
            _ = try timeGetBadge()
        }
        var ping = LatencySamples(reservingCapacity: calls)
        var getBadge = LatencySamples(reservingCapacity: calls)
        for index in 0..<calls {
            if index % 2 == 0 {
                ping.append(try timePing())
                getBadge.append(try timeGetBadge())
            } else {
                getBadge.append(try timeGetBadge())
                ping.append(try timePing())
            }
        }
        return RoundTrips(ping: ping.summary(), getBadge: getBadge.summary())
    }

    // MARK: One call

    private func timePing() throws(BenchFailure) -> UInt64 {
        let message = try makeMessage(interface: "org.freedesktop.DBus.Peer", member: "Ping", [])
        return try timeCall(message, expectedSignature: "")
    }

    private func timeGetBadge() throws(BenchFailure) -> UInt64 {
        let message = try makeMessage(interface: NotifydNames.badgesInterface, member: "GetBadge", [.string(appID)])
        return try timeCall(message, expectedSignature: "u")
    }

    private func timeCall(_ message: DBusMessage, expectedSignature: String) throws(BenchFailure) -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        let reply: DBusMessage
        do {
            reply = try connection.call(message)
        } catch {
            throw BenchFailure("\(message.member ?? "call") failed: \(error)")
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        guard reply.signature == expectedSignature else {
            throw BenchFailure("\(message.member ?? "call") answered '\(reply.signature)', not '\(expectedSignature)'.")
        }
        return elapsed
    }

    private func makeMessage(interface: String, member: String, _ arguments: [DBusValue]) throws(BenchFailure) -> DBusMessage {
        do {
            return try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: interface, member: member, arguments: arguments)
        } catch {
            throw BenchFailure("cannot build the \(member) message: \(error)")
        }
    }
}
