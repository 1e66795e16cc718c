import DBus
import Foundation

/// How to run one real notification server (dunst, GNOME's or MATE's
/// notification-daemon, xfce4-notifyd, lxqt-notificationd, notify-osd).
public struct NotificationServerCommand: Sendable, Hashable {
    /// A short key for logs and file names, e.g. `dunst`.
    public var key: String
    public var executable: String
    public var arguments: [String]
    /// Whether a compositing manager must run on the display first
    /// (notify-osd draws its bubbles with an alpha channel).
    public var needsCompositor: Bool

    public init(key: String, executable: String, arguments: [String] = [], needsCompositor: Bool = false) {
        self.key = key
        self.executable = executable
        self.arguments = arguments
        self.needsCompositor = needsCompositor
    }
}

/// A real notification server on an Xvfb display of its own, serving
/// `org.freedesktop.Notifications` on a test bus, with a scratch HOME,
/// XDG directories and an in-memory GSettings backend, so that nothing of
/// the user's desktop leaks in or out. It can be stopped and started
/// again on the same display (a server that restarts).
public final class NotificationServerSession: NotificationServerHost, @unchecked Sendable {
    public static let busName = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"

    public let command: NotificationServerCommand
    public let screen: XvfbDisplay
    private let busAddress: String
    private let home: URL
    private let logURL: URL
    private var compositor: SpawnedProcess?
    private var server: SpawnedProcess?
    private let client: DBusConnection

    /// Starts Xvfb (and a compositor when needed), then the server, and
    /// waits until it owns its bus name.
    public init(command: NotificationServerCommand, busAddress: String, directory: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: command.executable) else {
            throw TestFailure("\(command.executable) is missing: install it (scripts/test does)")
        }
        self.command = command
        self.busAddress = busAddress
        home = directory.appendingPathComponent("home-\(command.key)")
        for sub in ["", ".config", ".cache", ".local/share", "runtime"] {
            try FileManager.default.createDirectory(
                at: home.appendingPathComponent(sub), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        logURL = directory.appendingPathComponent("\(command.key).log")
        screen = try XvfbDisplay(directory: directory, width: 1024, height: 768)
        client = try DBusConnection.connect(to: .address(busAddress))
        if command.needsCompositor {
            let logPath = directory.appendingPathComponent("xcompmgr.log").path
            let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(log) }
            let display = screen.display
            func startCompositor() throws -> SpawnedProcess {
                try SpawnedProcess(
                    "/usr/bin/xcompmgr", ["-d", display], environment: ["DISPLAY": display, "PATH": "/usr/bin:/bin"],
                    stdoutFD: log, stderrFD: log)
            }
            var compositor = try startCompositor()
            var starts = 1
            // xcompmgr names the window that holds the _NET_WM_CM_S0 selection "xcompmgr".
            // It gives up at once when it cannot open the display (seen once in a CI
            // rehearsal, while xwininfo could): then it is started again, three times at most.
            var tree = ProcessResult(status: 0, stdout: "", stderr: "")
            do {
                try waitUntil("xcompmgr manages \(display)", seconds: 20) {
                    tree = try runProcess(
                        "/usr/bin/xwininfo", ["-display", display, "-root", "-tree"], environment: ["DISPLAY": display])
                    if tree.stdout.contains("\"xcompmgr\"") { return true }
                    if !compositor.isRunning, starts < 3 {
                        compositor = try startCompositor()
                        starts += 1
                    }
                    return false
                }
            } catch {
                let said = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw TestFailure(
                    "\(error); xcompmgr started \(starts) time(s), \(compositor.isRunning ? "runs" : "has exited"), "
                        + "its log: \(said); xwininfo said (status \(tree.status)): \(tree.stderr) \(tree.stdout.prefix(500))")
            }
            self.compositor = compositor
        }
        try start()
    }

    deinit {
        stopProcess()
        compositor?.kill(SIGTERM)
    }

    /// The environment the server runs with.
    public var environment: [String: String] {
        var environment = screen.environment(busAddress: busAddress)
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
        environment["XDG_RUNTIME_DIR"] = home.appendingPathComponent("runtime").path
        environment["GSETTINGS_BACKEND"] = "memory"
        environment["NO_AT_BRIDGE"] = "1"
        environment["QT_QPA_PLATFORM"] = "xcb"
        return environment
    }

    /// What the server has logged so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Starts the server (again) and waits until it owns its name.
    public func start() throws {
        guard server == nil else { return }
        let log = open(logURL.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(log) }
        let process = try SpawnedProcess(
            command.executable, command.arguments, environment: environment, stdoutFD: log, stderrFD: log)
        server = process
        try waitUntil("\(command.key) owns \(Self.busName)", seconds: 20) {
            guard process.isRunning else { throw TestFailure("\(command.key) exited: \(self.log)") }
            return try ownsName()
        }
    }

    /// Stops the server (SIGTERM, SIGKILL after 5 s) and waits until its
    /// name is gone from the bus.
    public func stop() throws {
        stopProcess()
        try waitUntil("\(Self.busName) is released", seconds: 10) { try !ownsName() }
    }

    private func stopProcess() {
        guard let process = server else { return }
        server = nil
        if process.isRunning {
            kill(process.pid, SIGTERM)
            try? waitUntil("\(command.key) exits", seconds: 5) { !process.isRunning }
        }
        process.kill(SIGKILL)
    }

    private func ownsName() throws -> Bool {
        try client.callBus("NameHasOwner", [.string(Self.busName)]).decode(0)
    }

    public var display: String { screen.display }

    public func serverInformation() throws -> (name: String, vendor: String, version: String, spec: String) {
        try client.notificationServerInformation()
    }

    public func capabilities() throws -> [String] {
        try client.notificationServerCapabilities()
    }
}
