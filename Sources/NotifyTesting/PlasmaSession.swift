import DBus
import Foundation
import NotifyTestingCore

/// KDE Plasma 5.27, for real, on an Xvfb display of its own: `kwin_x11`,
/// `kactivitymanagerd` and `plasmashell` on the test's session bus and an
/// empty private system bus, with a scratch HOME and XDG directories, and
/// the test's apps pinned in the panel's task manager before the shell
/// first starts. plasmashell is the notification server itself (and owns
/// `com.canonical.Unity` for the task manager's badges): ``stop()`` and
/// ``start()`` restart it. The recipe is in docs/DESKTOPS.md.
public final class PlasmaSession: NotificationServerHost, @unchecked Sendable {
    public let screen: XvfbDisplay
    private let systemBus: TestBus
    private let client: DBusConnection
    private let logDirectory: URL
    private var window: SpawnedProcess?
    private var activities: SpawnedProcess?
    private var shell: SpawnedProcess?
    /// The environment every part of the session runs with.
    public let environment: [String: String]

    /// Starts the session with `pinnedApps` (desktop IDs without `.desktop`)
    /// as launchers of the task manager, and waits until plasmashell serves
    /// notifications and docks and its panel is up. Apps are looked up in
    /// `dataDirectories` (their `applications/`) first.
    public init(bus: TestBus, directory: URL, pinnedApps: [String] = [], dataDirectories: [URL] = []) throws {
        for tool in ["/usr/bin/plasmashell", "/usr/bin/kwin_x11", Self.activityManager]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestFailure("\(tool) is missing: install plasma-desktop and kwin-x11")
        }
        screen = try XvfbDisplay(directory: directory, width: 1280, height: 800)
        systemBus = try TestBus()
        logDirectory = directory
        let home = directory.appendingPathComponent("plasma")
        environment = Self.environment(
            home: home, display: screen.display, busAddress: bus.address, systemBus: systemBus.address,
            dataDirectories: dataDirectories)
        try Self.writeScratchHome(home, pinnedApps: pinnedApps)
        client = try DBusConnection.connect(to: .address(bus.address))
        try bus.updateActivationEnvironment(environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" })
        try bus.installActivationFile(from: "/usr/share/dbus-1/services/org.kde.ActivityManager.service")
        window = try spawn("kwin", "/usr/bin/kwin_x11", ["--replace"])
        activities = try spawn("kactivitymanagerd", Self.activityManager, [])
        try start()
        try waitUntil("plasmashell serves the docks' name", seconds: 60) {
            try self.client.nameOwner(of: "com.canonical.Unity") != nil
        }
        try waitUntil("Plasma's task manager is in its panel", seconds: 60) {
            (try? self.evaluateScript(Self.countTaskManagers))?.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
    }

    deinit {
        for process in [shell, activities, window].compactMap({ $0 }) { process.kill(SIGTERM) }
        for process in [shell, activities, window].compactMap({ $0 }) where process.isRunning {
            try? waitUntil("a part of Plasma exits", seconds: 5) { !process.isRunning }
            process.kill(SIGKILL)
        }
    }

    static let activityManager = "/usr/lib/x86_64-linux-gnu/libexec/kactivitymanagerd"
    static let countTaskManagers = """
        var n = 0;
        panels().forEach(function (p) { p.widgets().forEach(function (w) {
          if (w.type == "org.kde.plasma.icontasks") n++; }); });
        print(n);
        """

    public var display: String { screen.display }
    public var log: String {
        (try? String(contentsOf: logDirectory.appendingPathComponent("plasmashell.log"), encoding: .utf8)) ?? ""
    }

    /// Starts plasmashell (again) and waits until its notification server
    /// answers.
    public func start() throws {
        guard shell == nil else { return }
        let process = try spawn("plasmashell", "/usr/bin/plasmashell", ["--no-respawn"])
        shell = process
        try waitUntil("plasmashell serves notifications", seconds: 60) {
            guard process.isRunning else { throw TestFailure("plasmashell exited: \(self.log.suffix(3000))") }
            return (try? self.client.notificationServerInformation()) != nil
        }
    }

    /// Stops plasmashell (SIGTERM, SIGKILL after 5 s) and waits until the
    /// notification server's name is gone.
    public func stop() throws {
        guard let process = shell else { return }
        shell = nil
        process.kill(SIGTERM)
        try? waitUntil("plasmashell exits", seconds: 5) { !process.isRunning }
        process.kill(SIGKILL)
        try waitUntil("org.freedesktop.Notifications is released", seconds: 10) {
            try self.client.nameOwner(of: NotificationServerSession.busName) == nil
        }
    }

    public func serverInformation() throws -> (name: String, vendor: String, version: String, spec: String) {
        try client.notificationServerInformation()
    }

    public func capabilities() throws -> [String] {
        try client.notificationServerCapabilities()
    }

    /// A screenshot once the screen has settled: unchanged for 3 seconds.
    /// The wallpaper and the panel draw a moment after plasmashell answers,
    /// and a launcher's icon later still: under load, two screenshots in a
    /// row were alike while the launcher still showed a placeholder icon.
    public func settledScreenshot(to file: URL) throws {
        let previous = file.deletingPathExtension().appendingPathExtension("previous.png")
        try screen.screenshot(to: previous)
        var stableSince = MonotonicClock.nanoseconds()
        try waitUntil("Plasma's screen settles", seconds: 60) {
            try self.screen.screenshot(to: file)
            defer { try? FileManager.default.removeItem(at: previous); try? FileManager.default.copyItem(at: file, to: previous) }
            if try PlankSession.differingPixels(previous, file) != 0 { stableSince = MonotonicClock.nanoseconds() }
            return MonotonicClock.nanoseconds() - stableSince >= 3_000_000_000
        }
    }

    /// Runs a script of Plasma's desktop scripting API; returns what it printed.
    public func evaluateScript(_ script: String) throws -> String {
        try client.call(
            destination: "org.kde.plasmashell", path: "/PlasmaShell", interface: "org.kde.PlasmaShell",
            member: "evaluateScript", [.string(script)]
        ).decode(0)
    }

    /// Invokes a notification's action as Plasma's own popup does
    /// (`org.kde.NotificationManager.InvokeAction`: `ActionInvoked` only).
    public func invokeAction(id: UInt32, action: String) throws {
        _ = try client.call(
            destination: NotificationServerSession.busName, path: NotificationServerSession.path,
            interface: "org.kde.NotificationManager", member: "InvokeAction", [.uint32(id), .string(action)])
    }

    private func spawn(_ name: String, _ executable: String, _ arguments: [String]) throws -> SpawnedProcess {
        let log = open(logDirectory.appendingPathComponent("\(name).log").path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(log) }
        return try SpawnedProcess(executable, arguments, environment: environment, stdoutFD: log, stderrFD: log)
    }
}
