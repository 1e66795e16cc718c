public import DBus
import Foundation
public import Logging
public import NotifyDaemon
import NotifyCore
import NotifyTestingCore
import Synchronization

/// notifyd run inside the test process, on a thread of its own, on a
/// private bus, with a ``ManualClock`` (as dunst's tests include the
/// service): daemon-level behaviour is tested without a process to start,
/// with barriers (``sync()``, ``waitForLog(_:seconds:)``) instead of sleeps.
///
/// It runs embedded (``NotifyDaemon/DaemonConfiguration/embedded``): its
/// popups and sounds go to ``desktop`` (no GLib, no notification server),
/// no signal handling, the process environment untouched.
public final class InProcessDaemon: @unchecked Sendable {
    // Unchecked: `stopDaemon` and `thread` are set before init returns and
    // only used by stop(), which the test calls from one thread.

    /// The private bus, started for the daemon unless one was given.
    public let bus: TestBus
    /// The clock the daemon reads and arms its deadlines on.
    public let clock: ManualClock
    /// The state directory.
    public let stateDirectory: URL
    /// A client connection of the test, on the same bus.
    public let client: DBusConnection
    /// Where the daemon's popups go: what the core decided to post, and clicks.
    public let desktop: RecordingDesktop
    private let log = LogLines()
    private var stopDaemon: (@Sendable () -> Void)?
    private var thread: PosixThread?
    private let exitStatus = ExitStatus()

    /// Starts the daemon and waits until it holds its bus name.
    ///
    /// - Throws: the daemon's ``NotifyDaemon/StartupError``, or a
    ///   ``TestFailure`` when it does not start within 20 s.
    /// `configure` adjusts the configuration (embedded, times of day in
    /// UTC, no sleep lock) before the daemon is made, e.g. a lower
    /// `fetchMinimum`, or a private system bus with a fake logind.
    public init(
        bus: TestBus? = nil, stateDirectory: URL? = nil, clock: ManualClock = ManualClock(),
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws {
        self.bus = try bus ?? TestBus()
        self.clock = clock
        self.stateDirectory = try stateDirectory ?? makeTemporaryDirectory(prefix: "notifyd-in-process")
        var configuration = DaemonConfiguration(
            stateDirectory: self.stateDirectory.path, bus: .address(self.bus.address), timeZone: .utc)
        configuration.embedded = true
        configuration.sleepLockBus = nil
        configuration.configDirectory = self.stateDirectory.appendingPathComponent("config").path
        configuration.recordingDesktop = RecordingDesktop()
        configure(&configuration)
        desktop = configuration.recordingDesktop ?? RecordingDesktop()
        configuration.recordingDesktop = desktop
        client = try DBusConnection.connect(to: .address(self.bus.address))
        // The daemon is made, run and released on its own thread, as its
        // bus connection must be; the start-up's outcome comes back here.
        let started = StartOutcome()
        let exitStatus = self.exitStatus
        let logger = log.logger
        thread = try PosixThread { [configuration] in
            let daemon: Notifyd
            do throws(StartupError) {
                daemon = try Notifyd(configuration: configuration, logger: logger, clock: clock)
            } catch {
                started.report(.failure(error))
                return
            }
            started.report(.success(daemon.stopFromAnyThread))
            let status = daemon.run()
            exitStatus.value.withLock { $0 = status }
        }
        switch started.wait() {
        case .success(let stop): stopDaemon = stop
        case .failure(let error):
            thread?.join()
            thread = nil
            throw error
        }
        try waitForLog("ready as")
    }

    deinit { stop() }

    /// Stops the daemon (as SIGTERM does) and waits for its thread;
    /// returns its exit status. Idempotent.
    @discardableResult
    public func stop() -> Int32 {
        if let thread {
            stopDaemon?()
            thread.join()
            self.thread = nil
        }
        return exitStatus.value.withLock { $0 } ?? 0
    }

    /// Every line the daemon logged so far.
    public var logLines: [String] { log.lines }

    /// Waits (bounded) until the daemon logged a line containing `text`.
    public func waitForLog(_ text: String, seconds: Double = 20) throws {
        try waitUntil("notifyd logged '\(text)'; it logged \(logLines)", seconds: seconds) {
            log.lines.contains { $0.contains(text) }
        }
    }

    /// A barrier: returns once the daemon has answered a call made now, so
    /// everything sent before it has been handled and committed.
    public func sync() throws {
        _ = try client.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: "org.freedesktop.DBus.Peer",
            member: "Ping", [])
    }

    /// Calls a method of notifyd's object.
    @discardableResult
    public func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: interface, member: member,
            arguments)
    }
}

/// How the daemon's start-up went, handed from its thread to the test's.
private final class StartOutcome: Sendable {
    private let outcome = Mutex<Result<@Sendable () -> Void, StartupError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func report(_ result: Result<@Sendable () -> Void, StartupError>) {
        outcome.withLock { $0 = result }
        done.signal()
    }

    func wait() -> Result<@Sendable () -> Void, StartupError> {
        done.wait()
        return outcome.withLock { $0 }!
    }
}

/// The daemon's exit status, set by its thread.
private final class ExitStatus: Sendable {
    let value = Mutex<Int32?>(nil)
}

/// Lines logged, readable from any thread.
public final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])

    public init() {}

    /// Every line so far, oldest first.
    public var lines: [String] { storage.withLock { $0 } }

    func append(_ line: String) { storage.withLock { $0.append(line) } }

    /// A logger whose every line, at every level, lands here as
    /// `"level: message key=value…"`.
    public var logger: Logger { Logger(label: "notifyd") { [self] _ in RecordingLogHandler(lines: self) } }
}

/// A swift-log handler that keeps each line, at every level.
struct RecordingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.append("\(event.level): \(event.message)\(extra)")
    }
}
