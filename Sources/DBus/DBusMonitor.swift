import CDBus

/// A bus monitor: a connection that asks the bus for copies of the messages
/// other connections exchange (`org.freedesktop.DBus.Monitoring.BecomeMonitor`)
/// and from then on only receives, like `dbus-monitor`.
///
/// The bus drops a monitor that sends anything, so after ``init(bus:rules:)``
/// nothing is written and nothing is dispatched (a dispatched connection
/// answers every method call it sees with `UnknownMethod`): messages are
/// read and handed out by ``next(timeoutMilliseconds:)``, in the order the
/// bus routed them.
///
///     let monitor = try DBusMonitor(bus: .address(address), rules: ["interface='org.example.Test'"])
///     while let message = try monitor.next(timeoutMilliseconds: 1000) {
///         print(message.kind, message.member ?? "", try message.arguments())
///     }
public final class DBusMonitor: @unchecked Sendable {
    // Sendable: the stored properties never change, and what the methods do
    // is libdbus calls on one connection, which locks itself (the
    // connection initialised libdbus's threads). Reading from two threads
    // at once is safe, but each message goes to only one of them.

    /// The connection; never used to send after `BecomeMonitor`.
    private let connection: DBusConnection
    /// The monitor's unique name, which the bus takes back: messages still
    /// addressed to it (its own `NameAcquired` and `NameLost`) are not traffic.
    private let ownName: String?

    /// Connects to `bus` and becomes a monitor of the messages that match
    /// one of `rules` (the bus's text form, e.g. `type='method_call',interface='org.example.Test'`;
    /// no rules: every message).
    ///
    /// - Throws: when the bus cannot be reached or refuses (a bus that
    ///   forbids monitoring, an invalid rule).
    public init(bus: DBusConnection.Bus, rules: [String] = []) throws(DBusError) {
        connection = try DBusConnection.connect(to: bus, private: true)
        ownName = connection.uniqueName
        let becomeMonitor = try DBusMessage.methodCall(
            destination: DBusConnection.busName, path: DBusConnection.busPath,
            interface: "org.freedesktop.DBus.Monitoring", member: "BecomeMonitor",
            arguments: [.array(element: .string, rules.map(DBusValue.string)), .uint32(0)])
        _ = try connection.call(becomeMonitor)
    }

    /// Closes the connection (a monitor has nothing queued to flush).
    deinit {
        connection.close()
    }

    /// Whether the bus is still there.
    public var isConnected: Bool { connection.isConnected }

    /// The next monitored message, waiting at most `timeoutMilliseconds`
    /// for it (-1: as long as it takes). Blocks the calling thread.
    ///
    /// - Returns: the message, or nil when none came in time.
    /// - Throws: `org.freedesktop.DBus.Error.Disconnected` once the bus is
    ///   gone and every message received before has been handed out.
    public func next(timeoutMilliseconds: Int32) throws(DBusError) -> DBusMessage? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(max(0, timeoutMilliseconds)))
        if let message = try popTraffic() { return message }
        while true {
            var wait: Int32 = -1
            if timeoutMilliseconds >= 0 {
                let left = clock.now.duration(to: deadline) / .milliseconds(1)
                wait = Int32(clamping: Int64(max(0, left.rounded(.up))))
            }
            // Reads (there is never anything to write); false once the bus is gone.
            guard dbus_connection_read_write(connection.raw, wait) != 0 else {
                if let message = try popTraffic() { return message }
                throw Self.disconnected
            }
            if let message = try popTraffic() { return message }
            if timeoutMilliseconds >= 0, clock.now >= deadline { return nil }
        }
    }

    /// The next received message that is monitored traffic, if one is queued.
    private func popTraffic() throws(DBusError) -> DBusMessage? {
        while let raw = dbus_connection_pop_message(connection.raw) {
            let message = DBusMessage(taking: raw)
            if message.isSignal("org.freedesktop.DBus.Local", "Disconnected") { throw Self.disconnected }
            if let ownName, message.destination == ownName { continue }
            return message
        }
        return nil
    }

    private static let disconnected = DBusError(DBusError.Name.disconnected, "the monitored bus went away")
}
