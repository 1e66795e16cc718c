import DBus
import Foundation
import NotifyTesting
import Testing

/// A desktop (GNOME Shell, Plasma) with notifyd and a test app on a private
/// bus: the app is a DBusActivatable fake, pinned in the desktop's dock,
/// that records how it is activated and opened, and the default handler of
/// text files. Shared by GnomeShellTests and PlasmaTests, each with an
/// extension for its desktop.
final class DesktopAppRun<Desktop> {
    let bus: TestBus
    let data: URL
    let appID: String
    let app: FakeDBusActivatableApp
    let desktop: Desktop
    let daemon: DaemonProcess
    let client: DBusConnection

    /// `startDesktop` starts the desktop on the bus, with the app's
    /// desktop file in `data/applications`; notifyd starts after it.
    init(app appID: String, serverName: String, startDesktop: (TestBus, URL) throws -> Desktop) throws {
        self.appID = appID
        bus = try TestBus()
        data = bus.directory.appendingPathComponent("share")
        let applications = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        app = try FakeDBusActivatableApp(address: bus.address, appID: appID)
        try app.writeDesktopFile(
            into: applications, name: "Fake Downloads", mimeTypes: ["text/plain"], icon: "folder-download")
        let config = bus.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[Default Applications]\ntext/plain=\(appID).desktop\n"
            .write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        desktop = try startDesktop(bus, data)
        daemon = try DaemonProcess(
            bus: bus, extraEnvironment: ["XDG_DATA_DIRS": data.path + ":/usr/share", "XDG_CONFIG_HOME": config.path])
        client = try DBusConnection.connect(to: .address(bus.address))
        try waitUntil("notifyd sees \(serverName)", seconds: 20) { try self.server() == serverName }
    }

    /// `Daemon.NotificationServer`.
    func server() throws -> String {
        let value: DBusValue = try client.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
            interface: "org.freedesktop.DBus.Properties", member: "Get",
            [.string("org.notifyd.Notifyd1.Daemon"), .string("NotificationServer")]
        ).decode(0)
        if case .variant(.string(let name)) = value { return name }
        if case .string(let name) = value { return name }
        return ""
    }

    /// Reports an event as a download tool's hook does: a short-lived notifyctl.
    func event(_ session: String, _ options: String...) throws {
        try NotifyctlRunner(environment: daemon.environment).event(session, app: appID, options)
    }

    func badge() throws -> UInt32 {
        try client.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
            interface: "org.notifyd.Notifyd1.Badges", member: "GetBadge", [.string(appID)]
        ).decode(0)
    }

    /// What Open must do: the file opened by its default handler (the app),
    /// and the badge left as it was (opening a file is not activating the app).
    func expectOpened(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let call = try #require(try app.waitForCalls(count: 1).first, sourceLocation: sourceLocation)
        #expect(call.method == "Open", sourceLocation: sourceLocation)
        #expect(call.uris == [URL(fileURLWithPath: path).absoluteString], sourceLocation: sourceLocation)
        #expect(try badge() == 1, sourceLocation: sourceLocation)
    }

    /// A file of the test's, by name: its absolute path.
    func file(_ name: String) throws -> String {
        let url = bus.directory.appendingPathComponent(name)
        try "data".write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// A region of a screenshot, as its own PNG.
    func crop(_ file: URL, _ region: (x: Int, y: Int, width: Int, height: Int)) throws -> URL {
        let out = bus.directory.appendingPathComponent("crop-" + file.lastPathComponent)
        let result = try runProcess(
            "/usr/bin/convert",
            [file.path, "-crop", "\(region.width)x\(region.height)+\(region.x)+\(region.y)", "+repage", out.path])
        guard result.status == 0 else { throw TestFailure("convert: \(result.stderr)") }
        return out
    }
}
