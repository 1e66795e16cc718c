import DBus
import Foundation

/// A real dock for end-to-end tests: Plank (Debian's `plank`) on an Xvfb
/// display of its own, on a test bus, with a home of its own whose dock
/// has one launcher, a test app's desktop file.
///
/// What Plank does (lib/Services/Unity.vala, 0.11.89): at start it takes
/// `com.canonical.Unity` (allowing replacement) and subscribes to every
/// `com.canonical.Unity.LauncherEntry.Update` signal; it never calls
/// `Query()`, so an app's entry reaches it only when the app sends it
/// again after the dock took the name. It ties an entry to the sending
/// connection and drops it when that connection leaves the bus. It matches
/// the entry's `application://ID.desktop` to a launcher whose desktop file
/// is `ID.desktop`, and draws `count` as a badge and `progress` as a bar on
/// that icon. Started with `--verbose`, it logs each update it processes
/// ("processing update for application://…"), which ``processedUpdates(for:)``
/// counts.
///
/// Plank needs no window manager, compositor or bamfdaemon (it warns that
/// `org.ayatana.bamf` is missing and carries on); its settings are in
/// memory (`GSETTINGS_BACKEND=memory`), so the user's dconf is never read.
public final class PlankSession: @unchecked Sendable {
    public static let unityName = "com.canonical.Unity"

    /// Where the dock window is on the screen.
    public struct Geometry: Sendable, Equatable, CustomStringConvertible {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
        public var description: String { "\(width)x\(height)+\(x)+\(y)" }
    }

    public let screen: XvfbDisplay
    /// The dock's HOME (`.config/plank/dock1/launchers`, `.local/share/applications`).
    public let home: URL
    /// The desktop entry ID of the app on the dock.
    public let appID: String
    /// The app's desktop file.
    public let desktopFile: URL
    /// The app's LauncherEntry URI, `application://ID.desktop`.
    public var appURI: String { "application://\(appID).desktop" }
    public var display: String { screen.display }

    private let busAddress: String
    private let directory: URL
    private var plank: SpawnedProcess?
    private var logURL: URL
    private var runs = 0

    /// Creates the dock's home and display; starts Plank unless `start` is false.
    ///
    /// - Parameters:
    ///   - icon: a theme icon name that exists on the system (the desktop file's `Icon`).
    public init(
        busAddress: String, directory: URL, appID: String, appName: String = "Downloads",
        icon: String = "folder-download", start: Bool = true, width: Int = 640, height: Int = 480
    ) throws {
        for tool in [
            "/usr/bin/plank", "/usr/bin/xdotool", "/usr/bin/import", "/usr/bin/convert", "/usr/bin/compare",
            "/usr/bin/stdbuf", "/usr/bin/dbus-monitor",
        ]
        where !FileManager.default.fileExists(atPath: tool) {
            throw TestFailure("\(tool) is missing: install plank, xdotool, imagemagick and dbus (scripts/test does)")
        }
        guard Self.themeIconExists(icon) else {
            throw TestFailure("no icon \(icon) in /usr/share/icons: install adwaita-icon-theme or pick another")
        }
        self.busAddress = busAddress
        self.directory = directory
        self.appID = appID
        home = directory.appendingPathComponent("plank-home")
        let applications = home.appendingPathComponent(".local/share/applications")
        let launchers = home.appendingPathComponent(".config/plank/dock1/launchers")
        let runtime = home.appendingPathComponent("runtime")
        for folder in [applications, launchers, runtime, home.appendingPathComponent(".cache")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        chmod(runtime.path, 0o700)
        desktopFile = applications.appendingPathComponent("\(appID).desktop")
        try """
            [Desktop Entry]
            Type=Application
            Name=\(appName)
            Exec=/bin/true
            Icon=\(icon)
            Terminal=false

            """.write(to: desktopFile, atomically: true, encoding: .utf8)
        try """
            [PlankDockItemPreferences]
            Launcher=\(desktopFile.absoluteString)

            """.write(to: launchers.appendingPathComponent("\(appID).dockitem"), atomically: true, encoding: .utf8)
        logURL = directory.appendingPathComponent("plank-0.log")
        screen = try XvfbDisplay(directory: directory, width: width, height: height)
        if start { try self.start() }
    }

    deinit {
        stop()
    }

    /// Plank's environment: the display, the test bus, the dock's own home.
    public var environment: [String: String] {
        var environment = screen.environment(busAddress: busAddress)
        for key in ["XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION", "WAYLAND_DISPLAY", "XDG_DATA_HOME"] {
            environment[key] = nil
        }
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        environment["XDG_RUNTIME_DIR"] = home.appendingPathComponent("runtime").path
        environment["GSETTINGS_BACKEND"] = "memory"
        environment["GDK_BACKEND"] = "x11"
        environment["GIO_USE_VFS"] = "local"  // no gvfs daemon
        environment["NO_AT_BRIDGE"] = "1"  // no accessibility bus
        return environment
    }

    /// The process ID of the running Plank (0 when stopped).
    public var pid: pid_t { plank.map { $0.isRunning ? $0.pid : 0 } ?? 0 }

    /// Starts Plank (`--verbose`); each run logs to `plank-N.log` in the test's directory.
    public func start() throws {
        guard plank == nil else { throw TestFailure("plank is already running") }
        runs += 1
        logURL = directory.appendingPathComponent("plank-\(runs).log")
        let log = open(logURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard log >= 0 else { throw TestFailure("cannot create \(logURL.path)") }
        defer { close(log) }
        // Plank logs to stdout, which a file buffers: line by line instead
        // (stdbuf execs plank, so the process is plank's).
        plank = try SpawnedProcess(
            "/usr/bin/stdbuf", ["-oL", "/usr/bin/plank", "--verbose"], environment: environment, stdoutFD: log,
            stderrFD: log)
    }

    /// Stops Plank: SIGTERM, and SIGKILL if it is still there after 5 s.
    public func stop() {
        guard let plank else { return }
        self.plank = nil
        if plank.isRunning {
            kill(plank.pid, SIGTERM)
            try? waitUntil("plank exits", seconds: 5) { !plank.isRunning }
        }
        plank.kill(SIGKILL)
    }

    /// What the current (or last) run of Plank logged.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// How many LauncherEntry updates for `uri` the current run of Plank processed.
    public func processedUpdates(for uri: String) -> Int {
        log.components(separatedBy: "processing update for \(uri))").count - 1
    }

    /// ``waitUntil(_:seconds:_:)`` whose failure tells what Plank logged
    /// and `details` as they are at the end.
    public func waitWithLog(
        _ what: String, details: () -> String = { "" }, seconds: Double, _ condition: () throws -> Bool
    ) throws {
        do {
            try waitUntil(what, seconds: seconds, condition)
        } catch let failure as TestFailure {
            throw TestFailure("\(failure.description) \(details())\nplank's log:\n\(log)")
        }
    }

    /// Waits (bounded) until this Plank owns `com.canonical.Unity`; returns its unique name.
    @discardableResult
    public func waitForUnityName(seconds: Double = 20) throws -> String {
        let connection = try DBusConnection.connect(to: .address(busAddress))
        defer { connection.close() }
        var owner: String?
        try waitWithLog("plank owns \(Self.unityName)", seconds: seconds) {
            guard let plank, plank.isRunning else { throw TestFailure("plank exited:\n\(log)") }
            owner = try connection.nameOwner(of: Self.unityName)
            guard let owner else { return false }
            return try connection.unixProcessID(of: owner) == UInt32(plank.pid)
        }
        return owner ?? ""
    }

    /// Waits (bounded) until the dock window is on the screen; returns where.
    public func dockGeometry(seconds: Double = 20) throws -> Geometry {
        var found: Geometry?
        try waitWithLog("plank shows its dock window on the screen", details: { "last seen: \(found.map(\.description) ?? "none")" }, seconds: seconds) {
            guard let plank, plank.isRunning else { throw TestFailure("plank exited:\n\(log)") }
            found = try visibleWindows().max { $0.width * $0.height < $1.width * $1.height }
            // Plank maps the window below the screen's edge and slides it in.
            guard let window = found else { return false }
            return window.width >= 32 && window.height >= 32 && window.x >= 0 && window.y >= 0
                && window.x + window.width <= screen.width && window.y + window.height <= screen.height
        }
        return found!
    }

    /// The visible windows of Plank on the display (xdotool).
    private func visibleWindows() throws -> [Geometry] {
        let environment = ["DISPLAY": display]
        let search = try runProcess("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "plank"], environment: environment)
        var windows: [Geometry] = []
        for id in search.stdout.split(whereSeparator: \.isNewline) {
            let shell = try runProcess("/usr/bin/xdotool", ["getwindowgeometry", "--shell", String(id)], environment: environment)
            var values: [String: Int] = [:]
            for line in shell.stdout.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
            }
            if let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"] {
                windows.append(Geometry(x: x, y: y, width: width, height: height))
            }
        }
        return windows
    }

    /// Whether a theme in /usr/share/icons has `name` as a PNG or SVG.
    static func themeIconExists(_ name: String) -> Bool {
        let root = URL(fileURLWithPath: "/usr/share/icons")
        for theme in ["hicolor", "Adwaita"] {
            guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(theme).path) else {
                continue
            }
            for case let path as String in files where path.hasSuffix("/\(name).png") || path.hasSuffix("/\(name).svg") {
                return true
            }
        }
        return false
    }
}
