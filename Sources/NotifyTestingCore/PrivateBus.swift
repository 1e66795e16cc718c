import DBus
import Glibc

/// A private `dbus-daemon` of a test or of the benchmark: never the user's
/// bus. The one bus helper of both (the tests call it ``TestBus``).
///
/// It listens in its directory, with the limits of Debian's session bus
/// (``BusConfiguration``). With a service directory (``serviceDirectoryPath``),
/// tests and the benchmark's cold-start section install D-Bus activation
/// files there; without one, nothing on it can be activated: only what the
/// caller starts is there. Stopped (and its directory removed, when it made
/// it) when the object is released.
public final class PrivateBus: Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// Where the bus has its socket, configuration and log (`bus.log`).
    public let directoryPath: String
    /// Where activatable services of this bus are described, if anywhere.
    public let serviceDirectoryPath: String?
    /// The `dbus-daemon` process (started with `--nofork`, so it is our child).
    public let process: SpawnedProcess
    private let ownsDirectory: Bool

    /// Starts `dbus-daemon` and reads the address it prints.
    ///
    /// - Parameters:
    ///   - directory: where the bus lives; nil: a new temporary directory,
    ///     removed with the bus.
    ///   - services: give the bus a service directory (`services`).
    ///   - isolatedDataDirectories: set the bus's `XDG_DATA_DIRS` to its
    ///     directory, so the services it starts see none of the desktop's
    ///     files; otherwise they inherit this process's environment.
    ///   - allowOtherUsers: let every Unix user connect (as a session bus
    ///     never does), to test how notifyd treats them.
    ///   - dbusDaemon: the program.
    ///   - processGroup: whose process group the bus joins.
    /// - Throws: ``TestFailure`` when the bus does not start.
    public init(
        in directory: ScratchDirectory? = nil, services: Bool = true, isolatedDataDirectories: Bool = true,
        allowOtherUsers: Bool = false, dbusDaemon: String = "/usr/bin/dbus-daemon",
        processGroup: SpawnedProcess.ProcessGroup = .own
    ) throws(TestFailure) {
        let home: ScratchDirectory
        if let directory { home = directory } else { home = try ScratchDirectory(prefix: "notifyd-bus") }
        ownsDirectory = directory == nil
        directoryPath = home.path
        if allowOtherUsers { chmod(home.path, 0o755) }
        if services { serviceDirectoryPath = try home.makeSubdirectory("services") } else { serviceDirectoryPath = nil }
        try home.write(
            BusConfiguration.text(
                socketDirectory: home.path, serviceDirectory: serviceDirectoryPath, allowOtherUsers: allowOtherUsers),
            to: "bus.conf")
        // The services the bus starts get its own address, never another bus's.
        var environment = childEnvironment(
            removing: ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE"])
        if isolatedDataDirectories { environment["XDG_DATA_DIRS"] = home.path }
        // The address goes to descriptor 3, which dbus-daemon closes after
        // writing; its log goes to bus.log.
        process = try SpawnedProcess(
            dbusDaemon,
            ["--config-file=\(home.appending("bus.conf"))", "--nofork", "--nopidfile", "--print-address=3"],
            environment: environment, standardOutput: .file(home.appending("bus.log")),
            standardError: .standardOutput, pipedDescriptors: [3], processGroup: processGroup)
        let printed = process.readPipe(stopAtNewline: true)
        guard let line = printed.split(separator: "\n").first, line.hasPrefix("unix:") else {
            process.kill(SIGKILL)
            throw TestFailure("dbus-daemon printed no address. Its log:\n\(ProcReader.readFile(home.appending("bus.log")) ?? "")")
        }
        address = String(line)
    }

    deinit {
        stop()
        if ownsDirectory { ScratchDirectory(existing: directoryPath).remove() }
    }

    /// The bus's log (dbus-daemon's, and that of the services it starts).
    public var logPath: String { directoryPath + "/bus.log" }

    /// Stops the bus: SIGKILL at once (its clients see the connection
    /// drop), or SIGTERM and SIGKILL after `graceSeconds`.
    public func stop(graceSeconds: Double? = nil) {
        if let graceSeconds { process.terminate(graceSeconds: graceSeconds) } else { process.kill(SIGKILL) }
    }

    /// Writes a D-Bus activation file for `name` running `executable`.
    ///
    /// - Throws: ``TestFailure`` when the bus has no service directory, or
    ///   a path cannot be named on an `Exec` line.
    public func installService(name: String, executable: String, arguments: [String] = []) throws(TestFailure) {
        var words: [String] = []
        for word in [executable] + arguments { words.append(try Self.quoted(word)) }
        try serviceDirectory().write(
            "[D-BUS Service]\nName=\(name)\nExec=\(words.joined(separator: " "))\n", to: "\(name).service")
    }

    /// Installs a real package's D-Bus activation file (e.g. dunst's
    /// `/usr/share/dbus-1/services/org.knopwob.dunst.service`) on this bus,
    /// as a desktop has it: the server is then started on demand.
    public func installActivationFile(from path: String) throws(TestFailure) {
        guard let text = ProcReader.readFile(path) else { throw .system("cannot read \(path)", errno: errno) }
        try serviceDirectory().write(text, to: Executables.baseName(of: path))
    }

    /// What a desktop session does at login (`dbus-update-activation-environment`):
    /// services the bus starts from now on get these variables (`DISPLAY`).
    public func updateActivationEnvironment(_ variables: [String: String]) throws {
        let connection = try DBusConnection.connect(to: .address(address))
        _ = try connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "UpdateActivationEnvironment",
            [
                .dictionary(
                    key: .string, value: .string,
                    variables.sorted { $0.key < $1.key }.map {
                        DBusDictionaryEntry(key: .string($0.key), value: .string($0.value))
                    })
            ])
    }

    private func serviceDirectory() throws(TestFailure) -> ScratchDirectory {
        guard let serviceDirectoryPath else { throw TestFailure("this bus has no service directory") }
        return ScratchDirectory(existing: serviceDirectoryPath)
    }

    /// A path as one argument of an `Exec` line (which dbus-daemon splits
    /// as a shell would, without running one).
    private static func quoted(_ word: String) throws(TestFailure) -> String {
        guard !word.contains("'") else { throw TestFailure("cannot name \(word) in a D-Bus service file.") }
        return word.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" }) ? "'\(word)'" : word
    }
}
