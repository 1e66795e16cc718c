import DBus
import Foundation

/// A real `notifyd` process on a ``TestBus``, with its own state directory.
public final class DaemonProcess: @unchecked Sendable {
    public let bus: TestBus
    public let stateDirectory: URL
    public private(set) var process: Process?
    private var logURL: URL
    /// More environment for the daemon (e.g. XDG_DATA_DIRS with test desktop files).
    public var extraEnvironment: [String: String]
    /// A command notifyd runs under, e.g. `prlimit --nofile=256:256 --`.
    public var commandPrefix: [String]

    /// Starts notifyd and waits until it owns its bus name.
    public init(
        bus: TestBus, stateDirectory: URL? = nil, arguments: [String] = [], extraEnvironment: [String: String] = [:],
        commandPrefix: [String] = []
    ) throws {
        self.bus = bus
        self.extraEnvironment = extraEnvironment
        self.commandPrefix = commandPrefix
        self.stateDirectory = stateDirectory ?? bus.directory.appendingPathComponent("state")
        logURL = bus.directory.appendingPathComponent("notifyd.log")
        try start(arguments: arguments)
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "NOTIFYD_STATE_DIR": stateDirectory.path]
            .merging(extraEnvironment) { $1 }
    }

    public var pid: Int32 { process?.processIdentifier ?? 0 }

    /// What the daemon has logged so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Starts the daemon (again) and waits for its name.
    public func start(arguments: [String] = []) throws {
        let process = Process()
        let command = commandPrefix + [Executables.notifyd, "--state-dir", stateDirectory.path, "--verbose"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = childEnvironment(environment)
        if !FileManager.default.fileExists(atPath: logURL.path) {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitForName(present: true)
    }

    /// Sends a signal and waits for the process to end; returns its status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let process else { return -1 }
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// `kill -9`, then start again on the same state.
    public func crashAndRestart() throws {
        stop(signal: SIGKILL)
        try waitForName(present: false)
        try start()
    }

    /// Waits (bounded) until the bus name is owned or released.
    public func waitForName(present: Bool, seconds: Double = 10) throws {
        let connection = try DBusConnection.connect(to: .address(bus.address))
        do {
            try waitUntil("org.notifyd.Notifyd1 \(present ? "appears" : "goes away")", seconds: seconds, intervalMicroseconds: 5_000) {
                let owned: Bool = try connection.callBus("NameHasOwner", [.string("org.notifyd.Notifyd1")]).decode(0)
                if owned != present, present, let process, !process.isRunning {
                    throw TestFailure("notifyd exited with \(process.terminationStatus): \(log)")
                }
                return owned == present
            }
        } catch let failure as TestFailure where failure.description.hasPrefix("timed out") {
            throw TestFailure("org.notifyd.Notifyd1 did not \(present ? "appear" : "go away") within \(seconds) s: \(log)")
        }
    }
}
