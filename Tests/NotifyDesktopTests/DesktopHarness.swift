import CGioUnix
import Foundation
import Logging
@testable import NotifyDesktop
import NotifyTesting
import Testing

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
///
/// GIO keeps one session-bus connection per process (the one libnotify and
/// app launches use) for as long as anything holds it, closed or not. When
/// its bus goes away, GIO queues the connection's `closed` signal, holding
/// a reference, on the main context the connection was made on; if nobody
/// runs that context again, the closed connection lives on and every later
/// harness is handed it. So the harness makes the connection itself, on a
/// context of its own, and at the end stops the bus while the notifier's
/// GLib thread still runs, waits for the connection to close and runs both
/// contexts dry before letting go.
final class DesktopHarness {
    let bus: TestBus
    let server: RecordingNotificationServer
    let events = EventRecorder()
    let notifier: GLibDesktop
    /// The context ``sessionBus`` was made on, run by nobody but `deinit`.
    private let sessionContext: OpaquePointer
    /// GIO's session-bus connection, on this harness's bus.
    private let sessionBus: OpaquePointer

    init(capabilities: [String] = ["actions", "body", "sound"], popupsKept: Int = GLibDesktopState.popupsKept) throws {
        _ = DesktopFixture.dataDirectory
        bus = try TestBus()
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        sessionContext = g_main_context_new()
        sessionBus = try Self.openSessionBus(on: sessionContext)
        server = try RecordingNotificationServer(address: bus.address, capabilities: capabilities)
        let events = self.events
        notifier = try GLibDesktop(logger: DesktopFixture.logger, popupsKept: popupsKept) { events.record($0) }
    }

    deinit {
        server.stop()
        bus.stop()
        let connection = sessionBus
        try? waitUntil("GIO's session bus connection has closed", seconds: 20) {
            g_dbus_connection_is_closed(connection) != 0
        }
        // The GLib thread runs what GIO queued for it before it stops.
        notifier.shutDown()
        while g_main_context_iteration(sessionContext, 0) != 0 {}
        Self.release(sessionBus)
        g_main_context_unref(sessionContext)
    }

    /// Drops the harness's reference and waits (bounded) for the connection
    /// to be gone, so that a leak is reported by the test that caused it
    /// rather than by the next harness.
    private static func release(_ connection: OpaquePointer) {
        let watch = UnsafeMutablePointer<GWeakRef>.allocate(capacity: 1)
        defer { watch.deallocate() }
        g_weak_ref_init(watch, UnsafeMutableRawPointer(connection))
        defer { g_weak_ref_clear(watch) }
        g_object_unref(UnsafeMutableRawPointer(connection))
        do {
            try waitUntil("GIO's session bus connection is gone", seconds: 20) {
                guard let alive = g_weak_ref_get(watch) else { return true }
                g_object_unref(alive)
                return false
            }
        } catch {
            Issue.record("\(error): something still holds it, so every later harness would get a closed connection")
        }
    }

    /// GIO's session-bus connection, made on `context` (GIO remembers the
    /// thread's default context when it makes one). A connection still
    /// held from an earlier harness would be closed: wait (bounded) until
    /// GIO hands out an open one, which is then on this harness's bus.
    private static func openSessionBus(on context: OpaquePointer) throws -> OpaquePointer {
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        var connection: OpaquePointer?
        try waitUntil("GIO's session bus connection is an open one", seconds: 20) {
            if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
            connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil)
            return connection.map { g_dbus_connection_is_closed($0) == 0 } ?? false
        }
        guard let connection else { throw TestFailure("GIO made no session bus connection") }
        return connection
    }
}
