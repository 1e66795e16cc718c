public import DBus
import Glibc

/// A real `notifyd` process on a ``PrivateBus``, with its own state
/// directory and log: the one daemon helper of the tests and the benchmark.
///
/// Its log (standard output and error) is `notifyd.log` in the bus's
/// directory, appended to across restarts.
public final class DaemonProcess: @unchecked Sendable {
    public let bus: PrivateBus
    /// The program started (``Executables/notifyd`` unless told).
    public let executable: String
    /// notifyd's `--state-dir`.
    public let stateDirectoryPath: String
    /// Where notifyd's output goes.
    public let logPath: String
    /// The running (or last) notifyd.
    public private(set) var process: SpawnedProcess?
    /// More environment for the daemon (e.g. XDG_DATA_DIRS with test desktop files).
    public var extraEnvironment: [String: String]
    /// A command notifyd runs under, e.g. `prlimit --nofile=256:256 --`.
    public var commandPrefix: [String]
    /// Whether notifyd logs every call (`--verbose`): the tests read it; the
    /// benchmark does not, as it would time the logging too.
    public let verbose: Bool
    private let processGroup: SpawnedProcess.ProcessGroup

    /// Starts notifyd and waits until it owns its bus name.
    ///
    /// - Parameters:
    ///   - stateDirectoryPath: nil: `state` in the bus's directory.
    ///   - connection: the connection to wait on; nil: a new one for each wait.
    /// - Throws: ``TestFailure`` when it does not start or take its name within 10 s.
    public init(
        bus: PrivateBus, executable: String = Executables.notifyd, stateDirectoryPath: String? = nil,
        arguments: [String] = [], extraEnvironment: [String: String] = [:], commandPrefix: [String] = [],
        verbose: Bool = true, processGroup: SpawnedProcess.ProcessGroup = .own, connection: DBusConnection? = nil
    ) throws(TestFailure) {
        self.bus = bus
        self.executable = executable
        self.extraEnvironment = extraEnvironment
        self.commandPrefix = commandPrefix
        self.verbose = verbose
        self.processGroup = processGroup
        self.stateDirectoryPath = stateDirectoryPath ?? bus.directoryPath + "/state"
        logPath = bus.directoryPath + "/notifyd.log"
        try start(arguments: arguments, connection: connection)
    }

    deinit {
        process?.kill(SIGKILL)
    }

    /// The environment notifyd gets on top of this process's own: its bus,
    /// state and configuration directories, and ``extraEnvironment``.
    public var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "NOTIFYD_STATE_DIR": stateDirectoryPath,
            "NOTIFYD_CONFIG_DIR": configDirectoryPath,
        ]
            .merging(extraEnvironment) { $1 }
    }

    /// Where notifyd keeps the push password file without a Secret Service.
    public var configDirectoryPath: String { bus.directoryPath + "/config" }

    /// The running (or last) notifyd's process ID; 0 before it started.
    public var pid: Int32 { process?.pid ?? 0 }

    /// What the daemon has logged so far.
    public var log: String { ProcReader.readFile(logPath) ?? "" }

    /// The end of notifyd's log, for error messages.
    public func logTail(lines: Int = 20) -> String {
        let tail = ScratchDirectory(existing: bus.directoryPath).tail(of: "notifyd.log", lines: lines, empty: "")
        return tail.isEmpty ? "notifyd logged nothing." : "notifyd's log ends:\n\(tail)"
    }

    /// Starts the daemon (again) and waits for its name.
    public func start(arguments: [String] = [], connection: DBusConnection? = nil) throws(TestFailure) {
        let command =
            commandPrefix + [executable, "--state-dir", stateDirectoryPath] + (verbose ? ["--verbose"] : []) + arguments
        process = try SpawnedProcess(
            command[0], Array(command.dropFirst()), environment: childEnvironment(environment),
            standardOutput: .file(logPath), standardError: .standardOutput, processGroup: processGroup)
        try waitForName(present: true, on: connection)
    }

    /// Sends a signal (SIGTERM unless told) and waits for the process to
    /// end; returns its status (the exit code, or the signal that ended it;
    /// -1 if it never ran).
    @discardableResult
    public func stop(signal: Int32? = nil) -> Int32 {
        guard let process else { return -1 }
        return process.kill(signal ?? SIGTERM).status
    }

    /// `kill -9`, then start again on the same state.
    public func crashAndRestart() throws(TestFailure) {
        stop(signal: SIGKILL)
        try waitForName(present: false)
        try start()
    }

    /// Waits (bounded, polling every 5 ms) until the bus name is owned by
    /// this notifyd, or released.
    ///
    /// - Throws: ``TestFailure`` with notifyd's log when it ends first or
    ///   the time runs out.
    public func waitForName(
        present: Bool, seconds: Double = 10, on given: DBusConnection? = nil
    ) throws(TestFailure) {
        let connection: DBusConnection
        do {
            connection = try given ?? DBusConnection.connect(to: .address(bus.address))
        } catch {
            throw TestFailure("cannot connect to the bus at \(bus.address): \(error)")
        }
        let name = "org.notifyd.Notifyd1"
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        while true {
            let owner = try owner(of: name, on: connection)
            if present ? owner == pid || owner == 0 : owner == nil { return }
            if present, let ended = process?.poll() {
                throw TestFailure("notifyd ended with \(ended) before it owned \(name): \(log)")
            }
            guard MonotonicClock.nanoseconds() < deadline else {
                throw TestFailure("\(name) did not \(present ? "appear" : "go away") within \(seconds) s: \(log)")
            }
            usleep(5_000)
        }
    }

    /// The process ID of the name's owner (0 when the bus cannot tell), or
    /// nil when the name has none.
    private func owner(of name: String, on connection: DBusConnection) throws(TestFailure) -> Int32? {
        do {
            let owned: Bool = try connection.callBus("NameHasOwner", [.string(name)]).decode(0)
            guard owned else { return nil }
            return Int32(bitPattern: (try? connection.unixProcessID(of: name)) ?? 0)
        } catch {
            throw TestFailure("NameHasOwner failed on the bus at \(bus.address): \(error)")
        }
    }
}
