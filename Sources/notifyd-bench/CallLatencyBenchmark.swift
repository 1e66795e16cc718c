import DBus
import NotifyCore
import NotifyTestingCore

/// Round trips of `Badges.GetBadge` against `Peer.Ping` on the same daemon,
/// over the same connection.
///
/// `Ping` is answered inside libdbus, before notifyd's own dispatch, so it
/// is the floor: the bus, the sockets, the loop's wake-up and libdbus. The
/// ratio of the two is what notifyd's dispatch and handler add.
///
/// The calls alternate one by one (Ping then GetBadge, then GetBadge then
/// Ping, ...) so that both sides see the same machine over the same time.
/// Each timing covers the blocking call only: its message is built before
/// the clock starts (libdbus locks a sent message and gives it a serial, so
/// every call gets a new one, on both sides alike).
struct CallLatencyBenchmark {
    let connection: DBusConnection
    /// The app whose badge is read; it has ``expectedBadge`` set.
    let appID: String
    let expectedBadge: UInt32

    struct Result {
        let ping: LatencySummary
        let getBadge: LatencySummary
        let warmUpCalls: Int
    }

    /// Makes `appID` have a non-zero badge, so GetBadge finds a stored entry
    /// rather than the quick answer for an unknown app.
    func prepare() throws(BenchFailure) {
        do {
            _ = try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.badgesInterface, member: "SetBadge",
                [.string(appID), .uint32(expectedBadge)])
            let badge = try getBadge()
            guard badge == expectedBadge else {
                throw BenchFailure("GetBadge(\(appID)) answered \(badge) after SetBadge(\(appID), \(expectedBadge)).")
            }
        } catch let error as BenchFailure {
            throw error
        } catch {
            throw BenchFailure("cannot set up the badge of \(appID): \(error)")
        }
    }

    /// Warms up, then times `calls` calls of each.
    func run(calls: Int, warmUpCalls: Int) throws(BenchFailure) -> Result {
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
        guard try self.getBadge() == expectedBadge else {
            throw BenchFailure("the badge of \(appID) changed during the benchmark.")
        }
        return Result(ping: ping.summary(), getBadge: getBadge.summary(), warmUpCalls: warmUpCalls)
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

    private func getBadge() throws(BenchFailure) -> UInt32 {
        do {
            return try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.badgesInterface, member: "GetBadge", [.string(appID)]
            ).decode(0)
        } catch {
            throw BenchFailure("GetBadge(\(appID)) failed: \(error)")
        }
    }
}
