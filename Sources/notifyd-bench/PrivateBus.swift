import Glibc

/// A `dbus-daemon` of the benchmark's own, never the user's session bus.
///
/// It listens in the scratch directory, with the limits of Debian's session
/// bus. It has no service directory unless one is given (the cold-start
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
        try scratch.write(
            Self.configuration(socketDirectory: scratch.path, serviceDirectory: serviceDirectory), to: "bus.conf")
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
    ///
    /// The limits are those of Debian's session bus
    /// (`/usr/share/dbus-1/session.conf`): dbus-daemon's built-in ones (256
    /// connections per user, 64 still authenticating) are a system bus's,
    /// and the load section alone opens more than 100 (its clients, and
    /// notifyd's connection for each app with a badge).
    static func configuration(socketDirectory: String, serviceDirectory: String? = nil) -> String {
        let services = serviceDirectory.map { "\n  <servicedir>\($0)</servicedir>" } ?? ""
        return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(socketDirectory)</listen>\(services)
          <auth>EXTERNAL</auth>
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_incoming_unix_fds">250000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_outgoing_unix_fds">250000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="service_start_timeout">120000</limit>
          <limit name="auth_timeout">240000</limit>
          <limit name="pending_fd_timeout">150000</limit>
          <limit name="max_completed_connections">100000</limit>
          <limit name="max_incomplete_connections">10000</limit>
          <limit name="max_connections_per_user">100000</limit>
          <limit name="max_pending_service_starts">10000</limit>
          <limit name="max_names_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <limit name="max_replies_per_connection">50000</limit>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }
}
