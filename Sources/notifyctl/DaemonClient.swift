import DBus
import NotifyCore

/// notifyctl's connection to notifyd: blocking method calls on the session
/// bus, with every failure turned into a ``NotifyctlError`` that carries the
/// right exit status.
///
/// Calls go to the well-known name, so the bus starts notifyd (D-Bus
/// activation) when it is installed and not running. There is no event loop:
/// each call blocks until its reply, which is all a command needs.
struct DaemonClient {
    /// The shared session-bus connection of the process.
    let connection: DBusConnection

    /// Connects to the session bus.
    ///
    /// No bus at all (no `DBUS_SESSION_BUS_ADDRESS` and nothing to fall back
    /// to, or a dead address) means notifyd cannot be reached: exit 3.
    static func connect() throws(NotifyctlError) -> DaemonClient {
        do {
            return DaemonClient(connection: try DBusConnection.connect(to: .session, private: false))
        } catch {
            throw Self.noSessionBus(error)
        }
    }

    /// Calls a method of notifyd's object and returns the reply's arguments.
    ///
    /// - Parameters:
    ///   - interface: one of notifyd's interfaces (``NotifydNames``).
    ///   - timeoutMilliseconds: -1 for libdbus's default (25 s), enough for
    ///     the bus to start notifyd first.
    func call(
        _ interface: String, _ member: String, _ arguments: [DBusValue] = [], timeoutMilliseconds: Int32 = -1
    ) throws(NotifyctlError) -> [DBusValue] {
        do {
            return try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
                member: member, arguments, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw Self.failure(for: error)
        }
    }

    /// Calls a method whose reply is one value of a known type.
    func call<Value: DBusRepresentable>(
        _ interface: String, _ member: String, _ arguments: [DBusValue] = [], returning type: Value.Type,
        timeoutMilliseconds: Int32 = -1
    ) throws(NotifyctlError) -> Value {
        let reply = try call(interface, member, arguments, timeoutMilliseconds: timeoutMilliseconds)
        do {
            return try reply.decode(0, as: Value.self)
        } catch {
            throw Self.unexpectedReply(member, error)
        }
    }

    /// libdbus's "no timeout" (`DBUS_TIMEOUT_INFINITE`), for calls that
    /// last as long as the user takes.
    static let noTimeout: Int32 = 0x7fff_ffff

    /// `WaitForSession`: blocks, without a time limit, until the session
    /// has no pending handler, and returns how the last one ended
    /// (`completed`, `cancelled` or `expired`; `none` when it never had one).
    func waitForSession(_ session: String) throws(NotifyctlError) -> String {
        try call(
            NotifydNames.sessionsInterface, "WaitForSession", [.string(session)], returning: String.self,
            timeoutMilliseconds: Self.noTimeout)
    }

    /// Every property of one of notifyd's interfaces (`Properties.GetAll`),
    /// variants unwrapped.
    func properties(of interface: String) throws(NotifyctlError) -> [String: DBusValue] {
        let reply = try call("org.freedesktop.DBus.Properties", "GetAll", [.string(interface)])
        do {
            return try reply.decode(0, as: [String: DBusValue].self)
        } catch {
            throw Self.unexpectedReply("GetAll", error)
        }
    }

    /// The unique name owning notifyd's bus name, or nil when nobody does.
    func owner() throws(NotifyctlError) -> String? {
        do {
            return try connection.nameOwner(of: NotifydNames.busName)
        } catch {
            throw Self.failure(for: error)
        }
    }

    /// The process ID behind a bus name, or nil when the bus will not say.
    func processID(of name: String) -> UInt32? {
        try? connection.unixProcessID(of: name)
    }
}

// MARK: Errors and exit statuses

extension DaemonClient {
    /// Error names meaning notifyd is not there: nobody owns the name and the
    /// bus has no activation file for it, or starting it failed.
    static let notRunningErrors: Set<String> = [
        DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner,
    ]

    /// Error names meaning the bus itself is gone.
    static let noBusErrors: Set<String> = [
        DBusError.Name.disconnected, DBusError.Name.noServer, DBusError.Name.badAddress,
    ]

    /// The prefix of the bus's errors about starting an activatable service
    /// (`Spawn.ServiceNotFound`, `Spawn.ChildExited`, `Spawn.ExecFailed`, ...).
    static let spawnErrorPrefix = "org.freedesktop.DBus.Error.Spawn."

    /// What a failed call means for the user and which status to exit with.
    ///
    /// Only "not running" and "no bus" errors are notifyctl's own (exit 3);
    /// everything else is notifyd's answer, printed as it came (exit 1).
    static func failure(for error: DBusError) -> NotifyctlError {
        if notRunningErrors.contains(error.name) { return .notRunning }
        if error.name.hasPrefix(spawnErrorPrefix) {
            return NotifyctlError(
                .notRunning,
                "notifyd is not running, and D-Bus could not start it: \(error.message). "
                    + "Run `notifyd` in a terminal to see why it does not start.")
        }
        if noBusErrors.contains(error.name) { return noSessionBus(error) }
        return NotifyctlError(.daemon, error.message.isEmpty ? error.name : error.message)
    }

    /// There is no session bus to reach notifyd on.
    static func noSessionBus(_ error: DBusError) -> NotifyctlError {
        var detail = error.message
        if let colon = detail.firstRange(of: "session bus: ") { detail = String(detail[colon.upperBound...]) }
        return NotifyctlError(
            .notRunning,
            """
            notifyd cannot be reached: there is no D-Bus session bus (\(detail)). Run notifyctl inside \
            your desktop session, or set DBUS_SESSION_BUS_ADDRESS to the bus notifyd serves.
            """)
    }

    /// notifyd answered with a reply of the wrong type (a different version?).
    static func unexpectedReply(_ member: String, _ error: DBusError) -> NotifyctlError {
        NotifyctlError(
            .daemon,
            "notifyd's reply to \(member) is not what this notifyctl \(NotifydNames.version) expects: \(error.message)")
    }
}
