import Glibc

/// A `dbus-daemon` of the benchmark's own, never the user's session bus.
///
/// It listens in the scratch directory and has no service directories, so
/// nothing on it can be activated: only what the benchmark starts is there.
struct PrivateBus {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    let address: String
    /// The `dbus-daemon` process (started with `--nofork`, so it is our child).
    let process: ChildProcess

    /// Starts `dbus-daemon` and reads the address it prints.
    init(dbusDaemon: String, scratch: ScratchDirectory, environment: [String]) throws(BenchFailure) {
        try scratch.write(Self.configuration(socketDirectory: scratch.path), to: "bus.conf")
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

    /// A session-type bus that only the current user may use.
    static func configuration(socketDirectory: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(socketDirectory)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }
}
