import DBus
import Foundation
import NotifyTesting

/// One browser's run: a private bus with notifyd and a recording
/// notification server, a slow loopback web server, and the headless
/// browser with the extension and its host.
final class BrowserRun: @unchecked Sendable {
    let bus: TestBus
    let daemon: DaemonProcess
    let client: DBusConnection
    let server: RecordingNotificationServer
    let web: SlowDownloadServer
    /// The browser (not started yet); nil for a run that drives the host itself.
    let headless: HeadlessBrowser?
    var browser: HeadlessBrowser { headless! }
    /// notifyd's `HandleEventsForBackgroundSession` signals: each finished
    /// or failed event, with its dictionary.
    let reported: SignalRecorder
    static let path = "/org/notifyd/Notifyd1"
    static let sessionsInterface = "org.notifyd.Notifyd1.Sessions"

    init(_ kind: HeadlessBrowser.Kind, browser: Bool = true) throws {
        bus = try TestBus()
        daemon = try DaemonProcess(bus: bus)
        client = try DBusConnection.connect(to: .address(bus.address))
        reported = try SignalRecorder(
            address: bus.address,
            rules: [DBusMatchRule(interface: Self.sessionsInterface, member: "HandleEventsForBackgroundSession")])
        server = try RecordingNotificationServer(address: bus.address)
        web = try SlowDownloadServer(scratch: bus.directory)
        headless = browser ? try HeadlessBrowser(kind, in: bus.directory.appendingPathComponent("browser")) : nil
        try waitUntil("notifyd sees the notification server", seconds: 10) {
            let server: DBusValue = try self.call(
                "org.freedesktop.DBus.Properties", "Get",
                [.string("org.notifyd.Notifyd1.Daemon"), .string("NotificationServer")]
            ).decode(0)
            return server != .string("")
        }
    }

    deinit { headless?.stop() }

    var app: String { headless?.kind.appID ?? "" }

    @discardableResult
    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.call(
            destination: "org.notifyd.Notifyd1", path: Self.path, interface: interface, member: member, arguments)
    }

    /// Opens a page that downloads `files` a moment after it loads.
    func download(_ files: [String]) throws {
        try browser.open(web.page(downloading: files), busAddress: bus.address)
    }

    struct Session {
        var id: String
        var app: String
        var pending: UInt32
        var details: [String: DBusValue]
    }

    /// `ListSessions`.
    func sessions() throws -> [Session] {
        guard case .array(_, let rows)? = try call(Self.sessionsInterface, "ListSessions").first else { return [] }
        return rows.compactMap { row in
            guard case .structure(let fields) = row, fields.count == 4, case .string(let id) = fields[0],
                case .string(let app) = fields[1], case .uint32(let pending) = fields[2]
            else { return nil }
            return Session(id: id, app: app, pending: pending, details: (try? [String: DBusValue](dbusValue: fields[3])) ?? [:])
        }
    }

    func badge(of app: String? = nil) throws -> UInt32 {
        try call("org.notifyd.Notifyd1.Badges", "GetBadge", [.string(app ?? self.app)]).decode(0)
    }

    /// The event dictionaries of `finished` and `failed` events notifyd
    /// received, in order.
    func reportedEvents(count: Int, seconds: Double = 60) throws -> [[String: DBusValue]] {
        func event(_ signal: SignalRecorder.Signal) -> [String: DBusValue]? {
            guard signal.arguments.count == 4 else { return nil }
            return try? [String: DBusValue](dbusValue: signal.arguments[3])
        }
        guard let signals = reported.wait(seconds: seconds, forCount: count, of: {
            guard let kind = event($0)?["kind"] else { return false }
            return kind != .string("progress")
        }) else {
            let got = reported.received.filter { event($0)?["kind"].map { $0 != .string("progress") } ?? false }.count
            let files = (try? FileManager.default.contentsOfDirectory(atPath: browser.downloads.path).count) ?? 0
            throw TestFailure(
                "notifyd got \(got) ends of \(app)'s downloads in \(Int(seconds)) s, not \(count) (\(files) files saved):\n\(browser.log)")
        }
        return signals.compactMap(event)
    }

    /// The popups of the browser's app, waiting (bounded) for `count`.
    func popups(count: Int, seconds: Double = 60, app: String? = nil) throws -> [RecordingNotificationServer.Recorded] {
        let app = app ?? self.app
        try waitUntil("\(count) popups of \(app):\n\(headless?.log ?? "")", seconds: seconds) {
            server.notifications.filter { $0.hints["desktop-entry"] == .string(app) && $0.summary.hasPrefix("Download") }
                .count >= count
        }
        return server.notifications.filter { $0.hints["desktop-entry"] == .string(app) }
    }
}
