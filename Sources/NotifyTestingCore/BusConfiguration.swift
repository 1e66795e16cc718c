/// The configuration of a private `dbus-daemon`, for the tests'
/// ``TestBus`` and the benchmark's bus alike: never the user's bus.
///
/// A session-type bus with the limits of Debian's session bus
/// (`/usr/share/dbus-1/session.conf`): dbus-daemon's built-in ones (256
/// connections per user, 64 still authenticating) are a system bus's, and
/// the benchmark's load section alone opens more than 100 connections (its
/// clients, and notifyd's connection for each app with a badge).
public enum BusConfiguration {
    /// The configuration file's text.
    ///
    /// - Parameters:
    ///   - socketDirectory: where the bus makes its socket.
    ///   - serviceDirectory: where it looks for D-Bus activation files, or
    ///     nil for none (then nothing on it can be activated: only what the
    ///     caller starts is there).
    ///   - allowOtherUsers: let every Unix user connect (as a session bus
    ///     never does), to test how notifyd treats them.
    public static func text(
        socketDirectory: String, serviceDirectory: String? = nil, allowOtherUsers: Bool = false
    ) -> String {
        let services = serviceDirectory.map { "\n  <servicedir>\($0)</servicedir>" } ?? ""
        let otherUsers = allowOtherUsers ? "\n    <allow user=\"*\"/>" : ""
        return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:dir=\(socketDirectory)</listen>\(services)
          <auth>EXTERNAL</auth>
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_incoming_unix_fds">250000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_outgoing_unix_fds">250000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <!-- Not in session.conf: dbus-daemon's default (16) is too few
               for the tests that pass descriptors. -->
          <limit name="max_message_unix_fds">4096</limit>
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
          <policy context="default">\(otherUsers)
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }
}
