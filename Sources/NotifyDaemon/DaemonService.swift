import DBus
import NotifyCore
import NotifyDesktop

/// `org.notifyd.Notifyd1.Daemon`: read-only facts about the running daemon.
final class DaemonService {
    private let committer: Committer
    private let server: () -> NotificationServerMonitor.Server?
    private let emitter: SignalEmitter?
    /// Whether notifyd holds the sleep lock now (the sleep lock's keeper says).
    private(set) var inhibiting = false

    /// - Parameters:
    ///   - server: the notification server in use now, if any.
    ///   - emitter: where `PropertiesChanged` goes (nil: nowhere).
    init(committer: Committer, server: @escaping () -> NotificationServerMonitor.Server?, emitter: SignalEmitter?) {
        self.committer = committer
        self.server = server
        self.emitter = emitter
    }

    /// The sleep lock was taken or released: `Inhibiting` changes.
    func inhibitingChanged(to held: Bool) {
        guard held != inhibiting else { return }
        inhibiting = held
        announce(["Inhibiting"])
    }

    /// Announces the new values of `names` with `PropertiesChanged`.
    func announce(_ names: [String]) {
        let declaration = Self.interface(self)
        var changed: [String: DBusValue] = [:]
        for name in names {
            if let value = try? declaration.property(named: name)?.get() { changed[name] = value }
        }
        emitter?.emit(
            "org.freedesktop.DBus.Properties", "PropertiesChanged",
            [.string(NotifydNames.daemonInterface), .vardict(changed), .strings([])])
    }

    var notificationServer: String { server()?.name ?? "" }
    var serverCapabilities: [String] { server()?.capabilities ?? [] }
    var pendingHandlers: UInt32 { UInt32(committer.committed.sessions.pendingCount) }
    var stateDirectory: String { committer.directory }
    var runningTasks: UInt32 { UInt32(committer.committed.tasks.tasks.count) }

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
            documentation: "Facts about the running daemon, as read-only properties. On every interface, a method "
                + "that changes state replies once the change is on disk, and reads (properties included) answer "
                + "from what is on disk, at once; a read sent behind the caller's own unanswered calls waits for them.",
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
