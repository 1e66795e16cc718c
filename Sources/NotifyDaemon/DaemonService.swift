import DBus
import NotifyCore
import NotifyDesktop

/// Whether the sleep lock is held, as the ``SleepInhibitor`` last said
/// (on the loop). Read by `Daemon.Inhibiting`; each change is announced
/// with `PropertiesChanged` by the effect runner (a panel can show "sleep
/// held off").
final class InhibitionStatus {
    private(set) var held = false
    /// Called on each change (the effect runner announces it).
    var onChange: () -> Void = {}

    func set(_ held: Bool) {
        guard held != self.held else { return }
        self.held = held
        onChange()
    }
}

/// `org.notifyd.Notifyd1.Daemon`: read-only facts about the running daemon.
final class DaemonService {
    private let committer: Committer
    private let server: NotificationServerMonitor?
    private let inhibition: InhibitionStatus?

    init(committer: Committer, server: NotificationServerMonitor?, inhibition: InhibitionStatus?) {
        self.committer = committer
        self.server = server
        self.inhibition = inhibition
    }

    var notificationServer: String { server?.server?.name ?? "" }
    var serverCapabilities: [String] { server?.server?.capabilities ?? [] }
    var pendingHandlers: UInt32 { UInt32(committer.current.sessions.pendingCount) }
    var stateDirectory: String { committer.directory }
    var runningTasks: UInt32 { UInt32(committer.current.tasks.tasks.count) }
    var inhibiting: Bool { inhibition?.held ?? false }

    /// Properties whose change is announced with `PropertiesChanged`.
    static let serverProperties = ["NotificationServer", "ServerCapabilities"]

    /// The interface, declared once; it owns `service` (nil when only the
    /// declaration is wanted: introspection files).
    static func interface(_ service: DaemonService?) -> DBusInterface {
        func read(_ value: @escaping (DaemonService) -> DBusValue) -> () throws -> DBusValue {
            { [service] in
                guard let service else { throw DBusError.failed("not available") }
                return value(service)
            }
        }
        return DBusInterface(
            NotifydNames.daemonInterface,
            documentation: "Facts about the running daemon, as read-only properties.",
            properties: [
                DBusProperty(
                    "Version", .string, emitsChanged: false, documentation: "notifyd's version.",
                    get: read { _ in .string(NotifydNames.version) }),
                DBusProperty(
                    "NotificationServer", .string,
                    documentation:
                        "Name and version of the notification server; empty when none runs (one that D-Bus starts on demand is started by the first popup).",
                    get: read { .string($0.notificationServer) }),
                DBusProperty(
                    "ServerCapabilities", .array(.string),
                    documentation: "The notification server's capabilities; empty when there is none.",
                    get: read { .strings($0.serverCapabilities) }),
                DBusProperty(
                    "PendingHandlers", .uint32, emitsChanged: false,
                    documentation: "Completion handlers waiting to be invoked, over all sessions.",
                    get: read { .uint32($0.pendingHandlers) }),
                DBusProperty(
                    "StateDirectory", .string, emitsChanged: false,
                    documentation: "Where the state database is (state.sqlite3).",
                    get: read { .string($0.stateDirectory) }),
                DBusProperty(
                    "RunningTasks", .uint32, emitsChanged: false,
                    documentation: "Background tasks running now, over all apps.",
                    get: read { .uint32($0.runningTasks) }),
                DBusProperty(
                    "Inhibiting", .boolean,
                    documentation: "Whether notifyd holds a systemd-logind sleep lock now (for running tasks).",
                    get: read { .boolean($0.inhibiting) }),
            ])
    }
}
