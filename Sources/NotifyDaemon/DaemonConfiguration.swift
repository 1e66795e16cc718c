public import DBus
public import NotifyCore
import Glibc

/// Where notifyd keeps its state and which bus it serves.
public struct DaemonConfiguration: Sendable {
    /// The state directory (holds `state.sqlite3`).
    public var stateDirectory: String
    /// The bus to serve on.
    public var bus: DBusConnection.Bus
    /// How many apps docks are shown at once, each from a bus connection
    /// of its own (`--launcher-entries`).
    public var launcherEntryLimit: Int
    /// Runs inside another program (a test harness): popups and sounds go
    /// to a ``RecordingDesktop`` (libnotify and libcanberra are never
    /// loaded), no Unix signals are handled, and the process's environment
    /// and limits are left as they are.
    public var embedded: Bool
    /// The desktop an embedded daemon posts to (a test keeps it to read
    /// what was posted); nil: one of its own.
    public var recordingDesktop: RecordingDesktop?
    /// The shortest interval between two scheduled fetches of an app
    /// (`--fetch-minimum`; SPEC's 15 minutes unless lowered for development).
    public var fetchMinimum: Microseconds
    /// The zone times of day follow (the usage rule, times in reasons).
    public var timeZone: LocalTimeZone
    /// How long a background task may run (`--task-seconds`; SPEC's 180).
    public var taskSeconds: UInt32
    /// Where systemd-logind is asked for the sleep lock (the system bus);
    /// nil: no lock at all (an embedded daemon, unless a test gives a bus).
    public var sleepLockBus: DBusConnection.Bus?
    /// Where the push server's password file is when no Secret Service
    /// keeps it: `$NOTIFYD_CONFIG_DIR`, else `$XDG_CONFIG_HOME/notifyd`,
    /// else `~/.config/notifyd`.
    public var configDirectory: String

    public init(
        stateDirectory: String, bus: DBusConnection.Bus = .session,
        launcherEntryLimit: Int = DaemonConfiguration.defaultLauncherEntryLimit, embedded: Bool = false,
        fetchMinimum: Microseconds = FetchPlanner.standardFloor, timeZone: LocalTimeZone = .system,
        taskSeconds: UInt32 = TaskBook.defaultSeconds, sleepLockBus: DBusConnection.Bus? = .system,
        configDirectory: String = DaemonConfiguration.defaultConfigDirectory()
    ) {
        self.configDirectory = configDirectory
        self.taskSeconds = taskSeconds
        self.sleepLockBus = sleepLockBus
        self.stateDirectory = stateDirectory
        self.bus = bus
        self.launcherEntryLimit = launcherEntryLimit
        self.embedded = embedded
        self.fetchMinimum = fetchMinimum
        self.timeZone = timeZone
    }

    /// Apps shown on docks at once unless `--launcher-entries` says otherwise.
    public static let defaultLauncherEntryLimit = 64
    /// What `--launcher-entries` accepts.
    public static let launcherEntryLimitRange = 1...1024

    /// The state directory SPEC names: `--state-dir`, else
    /// `$NOTIFYD_STATE_DIR`, else `$XDG_STATE_HOME/notifyd`, else
    /// `~/.local/state/notifyd`.
    public static func defaultStateDirectory(
        override: String? = nil, environment: [String: String] = currentEnvironment()
    ) -> String {
        if let override, !override.isEmpty { return override }
        if let directory = environment["NOTIFYD_STATE_DIR"], !directory.isEmpty { return directory }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/notifyd" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        return home + "/.local/state/notifyd"
    }

    /// `$NOTIFYD_CONFIG_DIR`, else `$XDG_CONFIG_HOME/notifyd` (when
    /// absolute), else `~/.config/notifyd`.
    public static func defaultConfigDirectory(environment: [String: String] = currentEnvironment()) -> String {
        if let directory = environment["NOTIFYD_CONFIG_DIR"], !directory.isEmpty { return directory }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/notifyd" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        return home + "/.config/notifyd"
    }

    /// The process environment as a dictionary.
    public static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    private static func homeFromPasswd() -> String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/tmp" }
        return String(cString: directory)
    }
}

extension LocalTimeZone {
    /// The system's zone (`TZ`, `/etc/localtime`), as `localtime_r` reads it.
    public static let system = LocalTimeZone { instant in
        var seconds = time_t(instant / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }
}
