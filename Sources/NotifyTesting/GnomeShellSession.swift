import DBus
import Foundation

/// GNOME Shell 43, for real, headless: `gnome-shell --headless --unsafe-mode`
/// with a virtual monitor (Mesa's llvmpipe, no GPU), Dash to Dock enabled,
/// on the test's session bus and an empty private system bus, with a
/// scratch HOME, XDG directories and a GSettings keyfile, so nothing of the
/// user's desktop leaks in or out. The recipe is in docs/DESKTOPS.md.
///
/// The notification server is GNOME's helper (`org.gnome.Shell.Notifications`,
/// a gjs process the bus starts): it owns `org.freedesktop.Notifications`
/// and hands each call to the shell. ``stop()`` kills the helper, as a
/// crash would; ``start()`` waits until it is back (notifyd starts it on
/// demand). What the shell shows is read through `org.gnome.Shell.Eval`
/// (unsafe mode): ``GnomeShellSession+Reading.swift``.
public final class GnomeShellSession: NotificationServerHost, @unchecked Sendable {
    public static let helperName = "org.gnome.Shell.Notifications"
    static let dashToDock = "dash-to-dock@micxgx.gmail.com"

    let bus: TestBus
    private let systemBus: TestBus
    private let home: URL
    private let logURL: URL
    private var shell: SpawnedProcess?
    let client: DBusConnection
    /// The environment the shell and its helper run with.
    public let environment: [String: String]

    /// Starts the shell with `favoriteApps` (desktop IDs without `.desktop`)
    /// pinned in Dash to Dock, and waits until its notification server
    /// answers. Apps are looked up in `dataDirectories` (their
    /// `applications/`) first; a favorite without a desktop file there gets
    /// one that does nothing.
    public init(bus: TestBus, directory: URL, favoriteApps: [String] = [], dataDirectories: [URL] = []) throws {
        for tool in ["/usr/bin/gnome-shell", "/usr/bin/gjs", "/usr/share/gnome-shell/extensions/\(Self.dashToDock)"]
        where !FileManager.default.fileExists(atPath: tool) {
            throw TestFailure("\(tool) is missing: install gnome-shell, gjs and gnome-shell-extension-dashtodock")
        }
        self.bus = bus
        systemBus = try TestBus()
        home = directory.appendingPathComponent("gnome")
        logURL = directory.appendingPathComponent("gnome-shell.log")
        environment = Self.environment(
            home: home, busAddress: bus.address, systemBus: systemBus.address, dataDirectories: dataDirectories)
        try Self.writeScratchHome(
            home, pinned: favoriteApps,
            needingDesktopFile: favoriteApps.filter { app in
                !dataDirectories.contains {
                    FileManager.default.fileExists(atPath: $0.appendingPathComponent("applications/\(app).desktop").path)
                }
            })
        client = try DBusConnection.connect(to: .address(bus.address))
        // The helper is started by the bus: it needs the session's variables.
        try bus.updateActivationEnvironment(environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" })
        try bus.installActivationFile(from: "/usr/share/dbus-1/services/\(Self.helperName).service")
        let log = open(logURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(log) }
        let shell = try SpawnedProcess(
            "/usr/bin/gnome-shell",
            [
                "--headless", "--unsafe-mode", "--no-x11", "--wayland-display=notifyd-wayland",
                "--virtual-monitor", "1280x800",
            ], environment: environment, stdoutFD: log, stderrFD: log)
        self.shell = shell
        // The name alone is not enough: the helper owns it a moment before
        // it exports its object.
        try waitUntil("GNOME Shell's notification helper answers", seconds: 90) {
            guard shell.isRunning else { throw TestFailure("gnome-shell exited: \(self.log.suffix(3000))") }
            return (try? self.client.notificationServerInformation()) != nil
        }
        try settle()
    }

    deinit {
        shell?.kill(SIGTERM)
        if let helper = try? helperPID() { kill(pid_t(helper), SIGKILL) }
        if let shell, shell.isRunning {
            try? waitUntil("gnome-shell exits", seconds: 5) { !shell.isRunning }
            shell.kill(SIGKILL)
        }
    }

    public var display: String { "" }
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Kills the notification helper (as a crash would) and waits until
    /// `org.freedesktop.Notifications` has no owner.
    public func stop() throws {
        let pid = try helperPID()
        kill(pid_t(pid), SIGKILL)
        try waitUntil("the helper's name is released", seconds: 10) { try !ownsName() }
    }

    /// Waits until the helper serves again: started on demand by the next
    /// popup (GNOME 43 has no activation file for the name itself).
    public func start() throws {
        try waitUntil("GNOME Shell's notification helper is back", seconds: 30) {
            (try? self.client.notificationServerInformation()) != nil
        }
    }

    public func serverInformation() throws -> (name: String, vendor: String, version: String, spec: String) {
        try client.notificationServerInformation()
    }

    public func capabilities() throws -> [String] {
        try client.notificationServerCapabilities()
    }

    /// The shell itself: the helper hands it each call, and it broadcasts
    /// every ActionInvoked and NotificationClosed, which the helper sends
    /// again to the client that posted.
    public func internalPeers() throws -> [String] {
        ["org.gnome.Shell"] + [try client.nameOwner(of: "org.gnome.Shell")].compactMap { $0 }
    }

    private func ownsName() throws -> Bool {
        try client.callBus("NameHasOwner", [.string(NotificationServerSession.busName)]).decode(0)
    }

    private func helperPID() throws -> UInt32 {
        try client.unixProcessID(of: NotificationServerSession.busName)
    }
}
