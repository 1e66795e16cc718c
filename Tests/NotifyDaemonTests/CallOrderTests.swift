import DBus
import NotifyTesting
import Testing

/// A sender's messages are handled in the order it sent them, property reads
/// included: a connection's first calls wait while notifyd identifies it,
/// and a `Properties.Get` sent behind them (without waiting for their
/// replies) waits too, for the commit of the batch that holds them, so it
/// sees what they did. (A read answered ahead of them, as it once was, said
/// 0: seen as a flake of NotificationTests on a loaded machine.) Reads of
/// other connections are answered at once, from the committed state.
@Suite struct CallOrderTests {
    @Test(arguments: [1, 20])
    func aReadSentAfterCallsSeesThem(_ count: Int) throws {
        let daemon = try InProcessDaemon()
        // A connection notifyd has never seen: its calls wait for identification.
        let sender = try DBusConnection.connect(to: .address(daemon.bus.address))
        for index in 0..<count {
            _ = try sender.send(
                DBusMessage.methodCall(
                    destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
                    interface: "org.notifyd.Notifyd1.Sessions", member: "HandleEventsForBackgroundSession",
                    arguments: [.string("order-\(index)"), .string("org.example.Order"), .vardict([:])]))
        }
        let reply = try sender.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
            interface: "org.freedesktop.DBus.Properties", member: "Get",
            [.string("org.notifyd.Notifyd1.Daemon"), .string("PendingHandlers")])
        #expect(reply == [.variant(.uint32(UInt32(count)))])
        let all = try sender.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
            interface: "org.freedesktop.DBus.Properties", member: "GetAll", [.string("org.notifyd.Notifyd1.Daemon")])
        guard case .dictionary(_, _, let entries)? = all.first else { throw TestFailure("GetAll answered \(all)") }
        #expect(entries.contains { $0.key == .string("PendingHandlers") && $0.value == .variant(.uint32(UInt32(count))) })
    }
}
