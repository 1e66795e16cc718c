import Foundation

/// The built `notifyctl` (``Executables/notifyctl``), run to its end as a
/// user runs it: a short-lived process with an environment that names its
/// bus (`DBUS_SESSION_BUS_ADDRESS`) and whatever else the test sets (`HOME`,
/// `TZ`, `NOTIFYD_STATE_DIR`). The one way tests run notifyctl and read
/// its status and output.
public struct NotifyctlRunner: Sendable {
    /// The environment notifyctl gets on top of the test process's own
    /// (see ``childEnvironment(_:)``).
    public var environment: [String: String]

    /// notifyctl with `environment` as it is (e.g. a ``DaemonProcess``'s).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// notifyctl on `bus`, with `environment` added (e.g. `["TZ": "UTC"]`).
    public init(bus: TestBus, environment: [String: String] = [:]) {
        self.environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address].merging(environment) { $1 }
    }

    /// The executable's path.
    public var executable: String { Executables.notifyctl }

    /// Runs `notifyctl arguments` to its end; its status and output,
    /// whatever the status.
    @discardableResult
    public func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try runProcess(executable, arguments, environment: environment, input: input)
    }

    /// Runs `notifyctl arguments…` to its end: `try notifyctl("apps")`.
    @discardableResult
    public func callAsFunction(_ arguments: String...) throws -> ProcessResult {
        try run(arguments)
    }

    /// Runs `notifyctl arguments…`, which must exit 0, and parses its
    /// standard output as JSON (`--json` is the caller's to pass).
    ///
    /// - Throws: a ``TestFailure`` naming the command, its status and its
    ///   standard error when it exits otherwise.
    public func json(_ arguments: String...) throws -> Any {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw TestFailure("notifyctl \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Reports an event as a download tool's hook does, with a short-lived
    /// `notifyctl event SESSION --app APP OPTIONS…`, which must exit 0.
    ///
    /// - Throws: a ``TestFailure`` with its status and standard error otherwise.
    public func event(_ session: String, app: String, _ options: [String] = []) throws {
        let result = try run(["event", session, "--app", app] + options)
        guard result.status == 0 else {
            throw TestFailure("notifyctl event \(session) exited \(result.status): \(result.stderr)")
        }
    }
}
