import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl status`: whether notifyd runs, and its Daemon properties.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show notifyd's version, notification server, pending handlers, badges and background tasks.",
        discussion: """
            Reads the properties of org.notifyd.Notifyd1.Daemon, the owner of the bus name and the \
            number of apps with a badge. Starts notifyd by D-Bus activation when it is installed and \
            not running; exits 3 when it cannot.

            Examples:
              notifyctl status
              notifyctl status --json | jq -r .notification_server
              notifyctl status >/dev/null && echo "notifyd is up"
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try DaemonClient.connect()
        let report = try Report(client: client)
        output.emit(text: report.lines, json: report.json)
    }

    /// What `status` shows, read from the daemon.
    struct Report {
        var version: String?
        var notificationServer: String?
        var serverCapabilities: [String]?
        var pendingHandlers: UInt32?
        var stateDirectory: String?
        var runningTasks: UInt32?
        var inhibiting: Bool?
        var owner: String?
        var processID: UInt32?
        var badgedApps: Int
        /// The push server's state (`push status`); nil from a notifyd without the distributor.
        var push: PushStatusReport?

        /// Reads the properties first: that call activates notifyd if needed.
        init(client: DaemonClient) throws(NotifyctlError) {
            let properties = try client.properties(of: NotifydNames.daemonInterface)
            // A property this notifyd lacks (another version) is shown as unknown.
            func read<Value: DBusRepresentable>(_ name: String) -> Value? {
                properties[name].flatMap { try? Value(dbusValue: $0) }
            }
            version = read("Version")
            notificationServer = read("NotificationServer")
            serverCapabilities = read("ServerCapabilities")
            pendingHandlers = read("PendingHandlers")
            stateDirectory = read("StateDirectory")
            runningTasks = read("RunningTasks")
            inhibiting = read("Inhibiting")
            owner = try client.owner()
            processID = owner.flatMap { client.processID(of: $0) }
            badgedApps = try client.call(
                NotifydNames.badgesInterface, "ListBadges", returning: [String: UInt32].self
            ).count
            push = try? PushStatusReport(client: client)
        }

        var lines: [String] {
            func show(_ value: String?) -> String { value.map(Output.printable) ?? "unknown" }
            var ownerText = owner.map { "owned by \($0)" } ?? "no owner"
            if let processID { ownerText += ", pid \(processID)" }
            let server = notificationServer.map { $0.isEmpty ? "none" : Output.printable($0) } ?? "unknown"
            let capabilities = serverCapabilities.map {
                $0.isEmpty ? "none" : $0.map(Output.printable).joined(separator: " ")
            } ?? "unknown"
            return [
                "Version:              \(show(version))",
                "Bus name:             \(NotifydNames.busName) (\(ownerText))",
                "Notification server:  \(server)",
                "Server capabilities:  \(capabilities)",
                "Pending handlers:     \(pendingHandlers.map(String.init) ?? "unknown")",
                "Badged apps:          \(badgedApps)",
                "Background tasks:     \(runningTasks.map(String.init) ?? "unknown")",
                "Sleep held off:       \(inhibiting.map { $0 ? "yes (a systemd-logind lock)" : "no" } ?? "unknown")",
                "Push server:          \(push.map(\.summary) ?? "unknown")",
                "State directory:      \(show(stateDirectory))",
            ]
        }

        /// Keys in snake_case, so `jq .pending_handlers` works.
        var json: JSON {
            func optional<T>(_ value: T?, _ wrap: (T) -> JSON) -> JSON { value.map(wrap) ?? .null }
            return .object([
                ("version", optional(version, JSON.string)),
                ("bus_name", .string(NotifydNames.busName)),
                ("owner", optional(owner, JSON.string)),
                ("pid", optional(processID) { .uint(UInt64($0)) }),
                ("notification_server", optional(notificationServer, JSON.string)),
                ("server_capabilities", optional(serverCapabilities, JSON.strings)),
                ("pending_handlers", optional(pendingHandlers) { .uint(UInt64($0)) }),
                ("badged_apps", .int(Int64(badgedApps))),
                ("running_tasks", optional(runningTasks) { .uint(UInt64($0)) }),
                ("inhibiting", optional(inhibiting, JSON.bool)),
                ("state_directory", optional(stateDirectory, JSON.string)),
                ("push", push?.json ?? .null),
            ])
        }
    }
}
