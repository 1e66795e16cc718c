import Glibc
import NotifyTestingCore

/// A `dbus-daemon` of the benchmark's own, never the user's session bus.
///
/// It listens in the scratch directory, with the limits of Debian's session
/// bus (``BusConfiguration``). It has no service directory unless one is given (the cold-start
/// section's bus), so nothing on it can be activated: only what the
/// benchmark starts is there.
struct PrivateBus {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    let address: String
    /// The `dbus-daemon` process (started with `--nofork`, so it is our child).
    let process: ChildProcess

    /// Starts `dbus-daemon` and reads the address it prints.
    ///
    /// - Parameter serviceDirectory: where the bus looks for D-Bus activation
    ///   files, or nil for none.
    init(
        dbusDaemon: String, scratch: ScratchDirectory, environment: [String], serviceDirectory: String? = nil
    ) throws(BenchFailure) {
        // A bus only the current user may use, configured as the tests' buses are.
        try scratch.write(
            BusConfiguration.text(socketDirectory: scratch.path, serviceDirectory: serviceDirectory), to: "bus.conf")
        // The address goes to descriptor 3, which dbus-daemon closes after
        // writing; its log goes to bus.log.
        process = try ChildProcess.spawn(
            dbusDaemon,
            ["--config-file=\(scratch.appending("bus.conf"))", "--nofork", "--nopidfile", "--print-address=3"],
            environment: environment, output: .file(scratch.appending("bus.log")), pipedDescriptors: [3])
        let printed = process.readPipe(stopAtNewline: true)
        guard let line = printed.split(separator: "\n").first, line.hasPrefix("unix:") else {
            process.terminate()
            let log = ProcReader.readFile(scratch.appending("bus.log")) ?? ""
            throw BenchFailure("dbus-daemon printed no address. Its log:\n\(log)")
        }
        address = String(line)
    }

    /// Stops the bus.
    func stop() {
        process.terminate(graceSeconds: 2)
    }
}
