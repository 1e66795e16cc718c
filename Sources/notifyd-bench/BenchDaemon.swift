import DBus
import NotifyCore
import NotifyTestingCore

/// A private bus and a notifyd on it with a fresh state directory, set up
/// the one way every section sets them up: the run's own (for the calls,
/// clients, idle, memory, fetch and events sections) and those the load,
/// list-sessions, tasks, slow-disk, limits and soak sections start for
/// themselves, so that what they do to notifyd falsifies no other
/// section's figures (the slow-disk section's with `libSlowDisk.so`
/// preloaded).
///
/// In `directory`: the bus (``PrivateBus``: its socket, `bus.conf`,
/// `bus.log`), notifyd's `state` and `notifyd.log` (``DaemonProcess``:
/// without `--verbose`, whose logging would be timed too). With a counting
/// notification server, started on the bus before notifyd so that notifyd
/// finds it at start-up, as on a desktop. The benchmark's connection is
/// made before notifyd starts, notifyd is awaited on it until it owns
/// `org.notifyd.Notifyd1` (at most 10 s), and it stays open until the end:
/// its leaving the bus would be traffic during an idle window.
final class BenchDaemon {
    let directory: ScratchDirectory
    let bus: PrivateBus
    /// The counting notification server, when asked for.
    let server: RecordingNotificationServer?
    let notifyd: DaemonProcess
    /// The benchmark's own connection to the bus (blocking calls only).
    let connection: DBusConnection
    /// How failures name this notifyd, first in a sentence: `notifyd`, `The load's notifyd`.
    let name: String

    /// What notifyd is given as its system bus (`DBUS_SYSTEM_BUS_ADDRESS`).
    enum SystemBus {
        /// The benchmark's own (the machine's, normally).
        case inherited
        /// The section's bus: no logind answers there, so tasks run without
        /// a sleep lock, and the machine's logind never sees the section.
        case sessionBus
        /// None: a path where nothing listens (the tasks' lock fails, and
        /// tasks work without it, as SPEC allows).
        case absent
        /// Another private bus (the tasks section's, with a stand-in logind).
        case address(String)
    }

    /// Starts the bus, the server if asked for, and notifyd, and waits until
    /// notifyd serves.
    ///
    /// - Parameter environment: more of notifyd's environment (the
    ///   slow-disk section's `LD_PRELOAD`): notifyd's only, not the bus's,
    ///   the server's or the clients'.
    init(
        programs: BenchPrograms, in directory: ScratchDirectory, name: String = "notifyd",
        systemBus: SystemBus = .inherited, notificationServer: Bool = false, environment: [String: String] = [:]
    ) throws(BenchFailure) {
        self.directory = directory
        self.name = name
        bus = try programs.bus(in: directory)
        server = try notificationServer ? Self.countingServer(address: bus.address) : nil
        do {
            connection = try DBusConnection.connect(to: .address(bus.address), private: true)
        } catch {
            throw BenchFailure("cannot connect to the private bus in \(directory.path): \(error)")
        }
        var environment = environment
        switch systemBus {
        case .inherited: break
        case .sessionBus: environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        case .absent: environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.appending("no-system-bus"))"
        case .address(let address): environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        }
        notifyd = try DaemonProcess(
            bus: bus, executable: programs.notifyd, stateDirectoryPath: try directory.makeSubdirectory("state"),
            extraEnvironment: environment, verbose: false, processGroup: .parents, connection: connection)
    }

    /// A section's own: in the subdirectory `section` of the run's scratch directory.
    convenience init(
        programs: BenchPrograms, scratch: ScratchDirectory, section: String, name: String,
        systemBus: SystemBus = .inherited, notificationServer: Bool = false, environment: [String: String] = [:]
    ) throws(BenchFailure) {
        try self.init(
            programs: programs, in: try scratch.subdirectory(section), name: name, systemBus: systemBus,
            notificationServer: notificationServer, environment: environment)
    }

    var pid: Int32 { notifyd.pid }

    /// Whether notifyd has ended (it is reaped then).
    var hasEnded: Bool { notifyd.process?.poll() != nil }

    /// The environment of a client on this bus (`DBUS_SESSION_BUS_ADDRESS`).
    var clientEnvironment: [String: String] { childEnvironment(["DBUS_SESSION_BUS_ADDRESS": bus.address]) }

    /// Runs `body`; a failure while notifyd has died says so, with the end of its log.
    func measure<Result>(_ body: (BenchDaemon) throws(BenchFailure) -> Result) throws(BenchFailure) -> Result {
        do {
            return try body(self)
        } catch {
            guard let ended = notifyd.process?.poll() else { throw error }
            throw BenchFailure("\(error)\n\(name) ended with \(ended). \(notifyd.logTail())")
        }
    }

    /// Stops notifyd: SIGTERM, then SIGKILL after 5 s. Returns how it ended.
    @discardableResult
    func stopNotifyd() -> SpawnedProcess.Termination {
        notifyd.process?.terminate(graceSeconds: 5) ?? .exited(-1)
    }

    /// Stops notifyd, the server and the bus, in that order.
    func stop() {
        stopNotifyd()
        server?.stop()
        bus.stop(graceSeconds: 2)
    }

    /// The notification server notifyd posts its popups to: on the private
    /// bus, answering as a desktop's would, and only counting (it keeps no
    /// call, so it costs a burst little).
    static func countingServer(address: String) throws(BenchFailure) -> RecordingNotificationServer {
        do {
            return try RecordingNotificationServer(
                address: address, capabilities: ["actions", "body", "sound"], name: "bench-counter",
                vendor: "notifyd", recordsCalls: false)
        } catch {
            throw BenchFailure("cannot start the counting notification server: \(error)")
        }
    }
}

extension DBusConnection {
    /// A property of notifyd's Daemon interface, read over this connection.
    func notifydProperty(_ name: String, timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> DBusValue {
        do {
            return try call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string(NotifydNames.daemonInterface), .string(name)], timeoutMilliseconds: timeoutMilliseconds
            ).decode(0, as: DBusValue.self)
        } catch {
            throw BenchFailure("reading the Daemon property \(name) failed: \(error)")
        }
    }

    /// `Badges.GetBadge(app)` over this connection.
    func notifydBadge(_ app: String, timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> UInt32 {
        do {
            return try call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.badgesInterface, member: "GetBadge", [.string(app)],
                timeoutMilliseconds: timeoutMilliseconds
            ).decode(0)
        } catch {
            throw BenchFailure("GetBadge(\(app)) failed: \(error)")
        }
    }

    /// notifyd's `PendingHandlers` property.
    func notifydPendingHandlers(timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> Int {
        guard case .uint32(let count) = try notifydProperty("PendingHandlers", timeoutMilliseconds: timeoutMilliseconds)
        else { throw BenchFailure("the Daemon property PendingHandlers is not a 'u'.") }
        return Int(count)
    }
}
