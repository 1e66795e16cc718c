import DBus
import Glibc
import NotifyCore

/// The event loop behind `notifyctl monitor`: one match rule for
/// everything notifyd sends (`sender='org.notifyd.Notifyd1'`, which the
/// bus resolves to the name's current owner), the owner of the name
/// followed, and SIGINT and SIGTERM read from a signalfd.
///
/// Only signals from the name's owner are printed: the bus's own signals
/// (`NameOwnerChanged`, `NameAcquired`) and signals another peer sends
/// straight to this connection also reach the connection, and are not
/// notifyd's.
final class SignalMonitor {
    /// Why the loop stopped.
    enum End: Equatable {
        case interrupted
        case daemonLeft
        case busLost
        case outputFailed(String)
    }

    private let json: Bool
    private let loop: EventLoop
    private let client: DaemonClient
    private var owner: String?
    private var end: End?

    init(json: Bool) throws(NotifyctlError) {
        self.json = json
        do {
            loop = try EventLoop()
        } catch {
            throw NotifyctlError(.daemon, "cannot start the event loop: \(error.message)")
        }
        client = try DaemonClient.connect()
    }

    /// Prints signals until interrupted (returns) or until notifyd or the
    /// bus goes away (throws, exit 3).
    func run() throws(NotifyctlError) {
        // Activates notifyd if needed; "not running" is exit 3 from here.
        _ = try client.call(Self.peerInterface, "Ping")
        let connection = client.connection
        do {
            try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in finish(.interrupted) }
            try connection.attach(to: loop)
            connection.onDisconnect { [unowned self] in finish(.busLost) }
            try connection.subscribe(DBusMatchRule(sender: NotifydNames.busName)) { [unowned self] message in
                received(message)
            }
            try connection.watchNameOwner(NotifydNames.busName) { [unowned self] owner in
                self.owner = owner
                if owner == nil { finish(.daemonLeft) }
            }
        } catch {
            throw DaemonClient.failure(for: error)
        }
        // A stop requested before run() would be forgotten by it.
        if end == nil { loop.run() }
        switch end {
        case .interrupted, nil:
            return
        case .daemonLeft:
            throw NotifyctlError(
                .notRunning, "notifyd left the bus (it stopped or is restarting); run notifyctl monitor again to follow it.")
        case .busLost:
            throw NotifyctlError(.notRunning, "the session bus went away.")
        case .outputFailed(let reason):
            throw NotifyctlError(.daemon, "cannot write the output: \(reason)")
        }
    }

    static let peerInterface = "org.freedesktop.DBus.Peer"

    private func received(_ message: DBusMessage) {
        guard end == nil, let owner, message.sender == owner else { return }
        let line = SignalLine(message)
        if json {
            Output.json(line.json)
        } else {
            Output.line(line.text)
        }
        if !Output.flush() { finish(.outputFailed(String(cString: strerror(errno)))) }
    }

    private func finish(_ reason: End) {
        guard end == nil else { return }
        end = reason
        loop.stop()
    }
}
