import DBus
import Foundation
import NotifyTesting

/// A private bus with a real notifyd on it and a client connection.
final class Fixture: @unchecked Sendable {
    let bus: TestBus
    let daemon: DaemonProcess
    let client: DBusConnection
    static let busName = "org.notifyd.Notifyd1"
    static let path = "/org/notifyd/Notifyd1"
    static let badges = "org.notifyd.Notifyd1.Badges"
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    static let worker = "org.notifyd.Notifyd1.Worker"
    static let daemonInterface = "org.notifyd.Notifyd1.Daemon"
    static let errorPrefix = "org.notifyd.Notifyd1.Error."

    /// notifyd's state in `stateDirectory` when given, else in a fresh one.
    init(
        extraEnvironment: [String: String] = [:], allowOtherUsers: Bool = false, arguments: [String] = [],
        commandPrefix: [String] = [], stateDirectory: URL? = nil
    ) throws {
        bus = try TestBus(allowOtherUsers: allowOtherUsers)
        daemon = try DaemonProcess(
            bus: bus, stateDirectory: stateDirectory, arguments: arguments, extraEnvironment: extraEnvironment,
            commandPrefix: commandPrefix)
        client = try DBusConnection.connect(to: .address(bus.address))
    }

    /// Waits (bounded) until notifyd knows the notification server, so
    /// what it posts uses the server's capabilities.
    func waitForNotificationServer(_ present: Bool = true) throws {
        try waitUntil("notifyd \(present ? "sees" : "lost") the notification server", seconds: 5) {
            (try property("NotificationServer") != .string("")) == present
        }
    }

    /// Calls a method of notifyd.
    @discardableResult
    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.call(destination: Self.busName, path: Self.path, interface: interface, member: member, arguments)
    }

    /// Calls a Badges method.
    @discardableResult
    func badges(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try call(Self.badges, member, arguments)
    }

    /// Reports an event with the method; returns the handler ID.
    @discardableResult
    func event(_ session: String, app: String, _ event: [String: DBusValue] = [:]) throws -> UInt64 {
        try call(Self.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict(event)]).decode(0)
    }

    /// ListSessions as (app, pending, details) by session ID.
    func sessions() throws -> [String: (app: String, pending: UInt32, details: [String: DBusValue])] {
        guard case .array(_, let rows)? = try call(Self.sessions, "ListSessions").first else { return [:] }
        var result: [String: (app: String, pending: UInt32, details: [String: DBusValue])] = [:]
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 4,
                case .string(let id) = fields[0], case .string(let app) = fields[1], case .uint32(let pending) = fields[2]
            else { continue }
            result[id] = (app, pending, (try? [String: DBusValue](dbusValue: fields[3])) ?? [:])
        }
        return result
    }

    func pending(_ session: String) throws -> UInt32 {
        try sessions()[session]?.pending ?? 0
    }

    func badge(_ app: String) throws -> UInt32 {
        try badges("GetBadge", [.string(app)]).decode(0)
    }

    /// The error a call fails with (a test failure if it succeeds).
    func error(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) -> DBusError? {
        do {
            try call(interface, member, arguments)
            return nil
        } catch let error as DBusError {
            return error
        } catch {
            return nil
        }
    }

    func property(_ name: String) throws -> DBusValue {
        let value: DBusValue = try call(
            "org.freedesktop.DBus.Properties", "Get", [.string(Self.daemonInterface), .string(name)]
        ).decode(0)
        return value
    }

    /// Runs notifyctl against this bus.
    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        try runProcess(Executables.notifyctl, arguments, environment: daemon.environment)
    }
}
