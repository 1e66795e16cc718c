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
/// The calls are timed by ``RoundTripTimer``: alternating, each timing the
/// blocking call only.
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
            let badge = try connection.notifydBadge(appID)
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
        let roundTrips = try RoundTripTimer(connection: connection, appID: appID).alternate(calls: calls, warmUpCalls: warmUpCalls)
        guard try connection.notifydBadge(appID) == expectedBadge else {
            throw BenchFailure("the badge of \(appID) changed during the benchmark.")
        }
        return Result(ping: roundTrips.ping, getBadge: roundTrips.getBadge, warmUpCalls: warmUpCalls)
    }
}
