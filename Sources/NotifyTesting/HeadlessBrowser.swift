import Foundation
import NotifyCore

/// Chromium or Firefox ESR from Debian, headless, with notifyd's extension
/// (built from `browser/` for the browser by `browser/make-extension`, as
/// the package builds it) and the built `notifyd-browser-host` as its
/// native messaging host, on a private bus (Tests/BrowserTests).
///
/// Each browser gets a profile, a home and a downloads directory of its
/// own, so nothing of the user's is read or written.
public final class HeadlessBrowser: @unchecked Sendable {
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case chromium
        case firefox = "firefox-esr"

        /// The app ID the host reports for this browser (its desktop entry ID).
        public var appID: String { rawValue }
        public var description: String { rawValue }
        /// The Debian package of the browser.
        var package: String { self == .chromium ? "chromium" : "firefox-esr" }
        /// Its family in `browser/` (`browser/make-extension`'s argument).
        public var family: String { self == .chromium ? "chromium" : "firefox" }
    }

    public let kind: Kind
    public let directory: URL
    /// Where downloads are saved.
    public let downloads: URL
    private var process: SpawnedProcess?
    /// A DevTools client that stays attached (``openIncognito(_:busAddress:)``).
    var devToolsClient: SpawnedProcess?
    /// Firefox's Marionette port (``chromeScript(_:)``).
    public internal(set) var marionettePort: UInt16?
    /// Chromium's DevTools port (``extensionScript(_:)``).
    public internal(set) var devToolsPort: UInt16?

    /// The extension's Chromium ID, fixed by the `key` of its manifest.
    public static let chromiumExtensionID = BrowserNames.chromiumExtensionID
    public static let firefoxExtensionID = BrowserNames.firefoxExtensionID
    /// The extension for `kind`, built into `directory` by
    /// `browser/make-extension` (the package's own build of it).
    public static func buildExtension(_ kind: Kind, into directory: URL) throws -> URL {
        let maker = Executables.repositoryRoot().appendingPathComponent("browser/make-extension").path
        let result = try runProcess(maker, [kind.family, directory.path])
        guard result.status == 0 else { throw TestFailure("browser/make-extension \(kind.family) failed: \(result.stderr)") }
        return directory
    }
    /// Chromium's arguments that load the extension; by default this
    /// browser's build of it (a test sets what Debian's wrapper would add).
    public var extensionArguments: [String]?
    /// This browser's build of the extension (made in ``init(_:in:)``).
    public var extensionDirectory: URL { directory.appendingPathComponent("extension-\(kind.family)") }
    public static var host: String { Executables.directory.appendingPathComponent("notifyd-browser-host").path }

    /// Prepares the profile (nothing runs until ``open(_:busAddress:)``).
    public init(_ kind: Kind, in directory: URL) throws {
        _ = try requireTool(kind == .chromium ? "chromium" : "firefox-esr", package: kind.package)
        self.kind = kind
        self.directory = directory
        downloads = directory.appendingPathComponent("downloads")
        for sub in ["downloads", "profile", "home/.config/chromium"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        _ = try Self.buildExtension(kind, into: directory.appendingPathComponent("extension-\(kind.family)"))
        switch kind {
        case .chromium: try prepareChromium()
        case .firefox: try prepareFirefox()
        }
    }

    deinit { stop() }

    /// Chromium's profile is where `--user-data-dir` defaults to, so that
    /// `notifyctl browser install` writes its host manifest where it looks.
    var profile: URL {
        kind == .chromium ? home.appendingPathComponent(".config/chromium") : directory.appendingPathComponent("profile")
    }
    var home: URL { directory.appendingPathComponent("home") }

    /// Starts the browser on `url`, with notifyd's bus as its session bus;
    /// `incognito` opens Chromium's window incognito.
    public func open(_ url: String, busAddress: String, incognito: Bool = false) throws {
        let log = Glibc.open(directory.appendingPathComponent("browser.log").path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(log) }
        var environment = childEnvironment([
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path, "MOZ_HEADLESS": "1",
        ])
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        let arguments: [String]
        switch kind {
        case .chromium:
            let port = try Self.freePort()
            devToolsPort = port
            arguments = ["--headless=new", "--no-sandbox", "--no-first-run", "--disable-gpu", "--user-data-dir=\(profile.path)",
                         "--remote-debugging-port=\(port)",
                        ] + (extensionArguments ?? ["--load-extension=\(extensionDirectory.path)"]) + (incognito ? ["--incognito"] : []) + [url]
        case .firefox:
            arguments = ["--headless", "--no-remote", "--marionette", "-remote-allow-system-access", "--profile", profile.path, url]
        }
        let executable = try requireTool(kind == .chromium ? "chromium" : "firefox-esr", package: kind.package)
        process = try SpawnedProcess(executable, arguments, environment: environment, stdoutFD: log, stderrFD: log)
    }

    /// Ends the browser and everything it started (its process group).
    public func stop() {
        devToolsClient?.kill(SIGTERM)
        devToolsClient = nil
        guard let process, process.isRunning else { return }
        Foundation.kill(-process.pid, SIGTERM)
        try? waitUntil("the browser ends", seconds: 10) { !process.isRunning }
        Foundation.kill(-process.pid, SIGKILL)
        process.kill(SIGKILL)
        self.process = nil
    }

    /// The process IDs of the host instances running on `busAddress` (the
    /// test's own bus: no other test's browser uses it).
    public func hostProcesses(busAddress: String) -> [pid_t] {
        let host = URL(fileURLWithPath: Self.host).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == host,
                let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return nil }
            let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return variables.contains("DBUS_SESSION_BUS_ADDRESS=\(busAddress)") ? pid : nil
        }
    }

    /// What the browser has logged (the host's standard error included).
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("browser.log"), encoding: .utf8)) ?? ""
    }
}
