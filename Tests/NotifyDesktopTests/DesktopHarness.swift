import CGioUnix
import Foundation
import Logging
import NotifyDesktop
import NotifyTesting

/// What the suites share: a data directory with test desktop files, put in
/// `XDG_DATA_DIRS` once, before GIO reads it (GIO reads it once per process).
enum DesktopFixture {
    /// An app with a desktop file: `Name=Test Mail`, `Icon=mail-test-icon`.
    static let namedApp = "org.notifyd.test.Mail"
    static let namedAppName = "Test Mail"
    static let namedAppIcon = "mail-test-icon"
    /// An app with a desktop file whose icon is a file path.
    static let pathIconApp = "org.notifyd.test.Viewer"
    static let pathIcon = "/usr/share/pixmaps/notifyd-test-viewer.png"

    /// Created on first use, with every desktop file the tests need (and
    /// the launching tests' apps, files and `XDG_CONFIG_HOME`).
    static let dataDirectory: URL = {
        let directory = try! makeTemporaryDirectory(prefix: "notifyd-xdg")
        let applications = directory.appendingPathComponent("applications")
        try! FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        let files = [
            namedApp: desktopFile(name: namedAppName, icon: namedAppIcon),
            pathIconApp: desktopFile(name: "Test Viewer", icon: pathIcon),
        ]
        for (app, text) in files {
            try! text.write(to: applications.appendingPathComponent("\(app).desktop"), atomically: true, encoding: .utf8)
        }
        try! LaunchFixture.install(in: directory)
        let system = ProcessInfo.processInfo.environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share"
        setenv("XDG_DATA_DIRS", "\(directory.path):\(system)", 1)
        return directory
    }()

    static func desktopFile(name: String, icon: String) -> String {
        "[Desktop Entry]\nType=Application\nName=\(name)\nIcon=\(icon)\nExec=true\n"
    }

    static var logger: Logger {
        var logger = Logger(label: "notifyd.desktop.tests")
        logger.logLevel = .debug
        return logger
    }
}

/// Collects events from any thread and waits for them.
final class EventRecorder: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [DesktopEvent] = []

    func record(_ event: DesktopEvent) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    var received: [DesktopEvent] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// Waits (bounded) until `match` finds what it wants in the events so far.
    func wait<T>(seconds: Double = 20, for match: ([DesktopEvent]) -> T?) throws -> T {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = match(events) { return found }
            guard condition.wait(until: deadline) else { throw TestFailure("no matching event within \(seconds) s: \(events)") }
        }
    }

    /// Waits for the `occurrence`-th `.posted` of `key`; a `.failed` of `key` throws.
    @discardableResult
    func posted(_ key: NotificationKey, occurrence: Int = 1) throws -> (id: UInt32, appName: String) {
        let outcome: Result<(id: UInt32, appName: String), TestFailure> = try wait { events in
            for event in events {
                if case .failed(key, let message) = event { return .failure(TestFailure("posting \(key) failed: \(message)")) }
            }
            let posts = events.compactMap { event -> (id: UInt32, appName: String)? in
                guard case .posted(key, let id, let appName) = event else { return nil }
                return (id, appName)
            }
            return posts.count >= occurrence ? .success(posts[occurrence - 1]) : nil
        }
        return try outcome.get()
    }

    /// Waits for any event `match` picks out.
    func first<T>(seconds: Double = 20, _ match: @escaping (DesktopEvent) -> T?) throws -> T {
        try wait(seconds: seconds) { $0.lazy.compactMap(match).first }
    }
}

/// A private bus with a recording server and a notifier on it. libnotify
/// takes `DBUS_SESSION_BUS_ADDRESS` when it first connects, so the
/// variable is set before the notifier exists; suites using this must be
/// serialized.
final class DesktopHarness {
    let bus: TestBus
    let server: RecordingNotificationServer
    let events = EventRecorder()
    let notifier: DesktopNotifier

    init(capabilities: [String] = ["actions", "body", "sound"]) throws {
        _ = DesktopFixture.dataDirectory
        bus = try TestBus()
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        try Self.waitForAnOpenSessionBus()
        server = try RecordingNotificationServer(address: bus.address, capabilities: capabilities)
        let events = self.events
        notifier = try DesktopNotifier(logger: DesktopFixture.logger) { events.record($0) }
    }

    deinit {
        notifier.shutDown()
        server.stop()
        bus.stop()
    }

    /// GIO keeps one session-bus connection per process for as long as
    /// anyone holds it, and hands it to libnotify and to app launches. One
    /// left from the previous harness (closed when its bus stopped, still
    /// held by a call that had not yet failed) would make this harness's
    /// posts and launches fail with "The connection is closed": wait
    /// (bounded) until GIO hands out an open one, which is then on this
    /// harness's bus.
    static func waitForAnOpenSessionBus() throws {
        try waitUntil("GIO's session bus connection is an open one", seconds: 20) {
            guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return false }
            defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
            return g_dbus_connection_is_closed(connection) == 0
        }
    }
}
