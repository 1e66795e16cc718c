import DBus
import Foundation
import Testing
import NotifyTesting

/// How a ``ServerRun`` drives notifyd (short-lived `notifyctl event`
/// processes, files to point at) and reads what the server received.
extension ServerRun {
    func waitForNotifydToSeeServer(_ present: Bool) throws {
        try waitUntil("notifyd \(present ? "sees" : "loses") the notification server", seconds: 20) {
            let value: DBusValue = try client.call(
                destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string("org.notifyd.Notifyd1.Daemon"), .string("NotificationServer")]
            ).decode(0)
            let name: String
            if case .variant(.string(let inner)) = value { name = inner } else if case .string(let inner) = value {
                name = inner
            } else { name = "" }
            return name.isEmpty != present
        }
    }

    /// Runs `notifyctl event SESSION --app APP ARGS...` and checks it succeeded.
    func event(_ session: String, app: String, _ arguments: [String]) throws {
        try NotifyctlRunner(environment: daemon.environment).event(session, app: app, arguments)
    }

    /// Answered Notify calls for `app` (by its desktop-entry hint).
    func notifies(_ app: String) -> [NotificationCallMonitor.Notify] {
        monitor.notifyCalls.filter { $0.hints["desktop-entry"] == .string(app) }
    }

    func posted(_ session: String) -> [NotificationCallMonitor.Posted] {
        monitor.posted.filter { $0.session == session }
    }

    /// Waits until `count` Notify calls for `app` were answered.
    @discardableResult
    func waitForNotifies(_ app: String, count: Int, seconds: Double = 15) throws -> [NotificationCallMonitor.Notify] {
        try waitUntil("\(count) answered Notify calls for \(app)", seconds: seconds) {
            notifies(app).filter { $0.id != nil || $0.error != nil }.count >= count
        }
        return notifies(app)
    }

    func waitForPosted(_ session: String) throws -> NotificationCallMonitor.Posted {
        try waitUntil("NotificationPosted for \(session)", seconds: 15) { !posted(session).isEmpty }
        return posted(session)[0]
    }

    func callsDescription(_ app: String) -> String {
        "Notify calls for \(app): " + notifies(app).map(\.description).joined(separator: "; ")
    }

    func file(_ name: String) throws -> String {
        let url = downloads.appendingPathComponent(name)
        try Data("notifyd desktop suite\n".utf8).write(to: url)
        return url.path
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The body the server must get for `text` (escaped when it reads markup).
    func wireBody(_ text: String) -> String {
        capabilities.contains("body-markup") ? Self.escaped(text) : text
    }

    func checkActions(_ notify: NotificationCallMonitor.Notify, path: Bool) {
        if capabilities.contains("actions") {
            check(notify.actionIDs.contains("default"), "no default action: \(notify.actions)")
            if path {
                check(notify.actionIDs.contains("open"), "no open action: \(notify.actions)")
                check(notify.actionLabels["open"] == "Open", "the open action's label: \(notify.actions)")
            }
        } else {
            check(notify.actions.isEmpty, "actions sent to a server without `actions`: \(notify.actions)")
        }
    }
}
