import DBus
import Foundation
@_exported import NotifyTestingCore

/// A private `dbus-daemon` for one test: never the user's bus.
///
/// The bus has its own service directory so tests can install D-Bus
/// activation files, and it is killed when the object is released.
public final class TestBus: @unchecked Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// A scratch directory removed with the bus.
    public let directory: URL
    /// Where activatable services of this bus are described.
    public let serviceDirectory: URL
    private let process: SpawnedProcess

    /// - Parameter allowOtherUsers: let every Unix user connect (as a
    ///   session bus never does), to test how notifyd treats them.
    public init(allowOtherUsers: Bool = false) throws {
        directory = try makeTemporaryDirectory(prefix: "notifyd-bus")
        if allowOtherUsers { chmod(directory.path, 0o755) }
        serviceDirectory = directory.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: serviceDirectory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try BusConfiguration.text(
            socketDirectory: directory.path, serviceDirectory: serviceDirectory.path, allowOtherUsers: allowOtherUsers)
            .write(to: config, atomically: true, encoding: .utf8)

        let logPath = directory.appendingPathComponent("bus.log").path
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw TestFailure("pipe failed") }
        defer { close(log) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_DIRS"] = directory.path
        process = try SpawnedProcess(
            "/usr/bin/dbus-daemon",
            ["--config-file=\(config.path)", "--nofork", "--nopidfile", "--print-address=1"],
            environment: environment, stdoutFD: pipeFDs[1], stderrFD: log)
        close(pipeFDs[1])
        let output = FileHandle(fileDescriptor: pipeFDs[0], closeOnDealloc: true)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8)?.split(separator: "\n").first, !text.isEmpty else {
            process.kill(SIGKILL)
            throw TestFailure("dbus-daemon printed no address")
        }
        address = String(text)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the bus (its clients see the connection drop).
    public func stop() {
        process.kill(SIGKILL)
    }

    /// Writes a D-Bus activation file for `name` running `executable`.
    public func installService(name: String, executable: String, arguments: [String] = []) throws {
        let exec = ([executable] + arguments).joined(separator: " ")
        let text = "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
        try text.write(
            to: serviceDirectory.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
    }
}

extension TestBus {
    /// Installs a real package's D-Bus activation file (e.g. dunst's
    /// `/usr/share/dbus-1/services/org.knopwob.dunst.service`) on this bus,
    /// as a desktop has it: the server is then started on demand.
    public func installActivationFile(from path: String) throws {
        let source = URL(fileURLWithPath: path)
        try FileManager.default.copyItem(
            at: source, to: serviceDirectory.appendingPathComponent(source.lastPathComponent))
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
}

/// A new empty directory under the system's temporary directory.
public func makeTemporaryDirectory(prefix: String) throws -> URL {
    var template = Array("\(NSTemporaryDirectory())/\(prefix).XXXXXX".utf8CString)
    guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
    return URL(fileURLWithPath: String(cString: result))
}
