import DBus
import Logging

/// Starting a notification server on demand.
///
/// On many desktops no server runs until the first notification: D-Bus
/// starts it from an activation file (dunst and mako on i3 or sway,
/// xfce4-notifyd, MATE's server; GNOME Shell's helper after a crash).
/// libnotify's clients start it by posting; notifyd, which posts only to a
/// server it knows, asks the bus to start it (`StartServiceByName`,
/// asynchronously) and posts what waited once the server has the name and
/// has answered.
extension NotificationServerMonitor {
    /// Where starting a server on demand stands.
    enum Activation {
        /// Nothing asked, or the last start succeeded.
        case idle
        /// `StartServiceByName` sent, its answer not yet in.
        case starting
        /// The bus could not start one (none installed, or it failed to
        /// start), at this elapsed time: not asked again before
        /// ``activationPatience`` has passed.
        case refused(at: UInt64)
    }

    /// How long a refusal stands before a new popup asks again: a server
    /// installed meanwhile is found, and a failing one is not restarted in
    /// a loop. Checked when a popup waits, so nothing wakes while idle.
    static let activationPatience: UInt64 = 30 * 1_000_000_000

    /// Asks the bus to start the notification server when none owns its
    /// name (a popup is waiting). Does nothing while a start is under way,
    /// or within ``activationPatience`` of a refusal. The server, once it
    /// has the name, arrives as any other (through the owner change).
    public func startOnDemand() {
        guard owner == nil, connection != nil else { return }
        switch activation {
        case .starting: return
        case .refused(let at) where EventLoop.now() &- at < Self.activationPatience: return
        case .idle, .refused: break
        }
        activation = .starting
        // The bus's own limit (service_start_timeout, 25 s by default, 120 s
        // in session.conf) ends a start first.
        callBus("StartServiceByName", [.string(Self.busName), .uint32(0)], timeout: 130_000) { [weak self] result in
            guard let self else { return }
            guard case .failure(let error) = result, error.name == DBusError.Name.serviceUnknown else {
                self.activationAnswered(result)
                return
            }
            self.startGnomeShellHelper(else: error)
        }
    }

    /// GNOME Shell 43 serves notifications through a helper that only its
    /// own name starts (`org.gnome.Shell.Notifications`, no activation file
    /// for `org.freedesktop.Notifications`): the shell starts it at login,
    /// and after a crash nothing does. While GNOME Shell runs, notifyd
    /// starts it; elsewhere the helper (installed with gnome-shell) would
    /// have no shell to show anything, and is left alone.
    private func startGnomeShellHelper(else refusal: DBusError) {
        callBus("NameHasOwner", [.string(Self.gnomeShell)], timeout: 5_000) { [weak self] result in
            guard let self else { return }
            guard case .success(let reply) = result, (try? reply.arguments().decode(0, as: Bool.self)) == true else {
                self.activationAnswered(.failure(refusal))
                return
            }
            self.callBus("StartServiceByName", [.string(Self.gnomeShellHelper), .uint32(0)], timeout: 130_000) {
                [weak self] result in self?.activationAnswered(result)
            }
        }
    }

    static let gnomeShell = "org.gnome.Shell"
    static let gnomeShellHelper = "org.gnome.Shell.Notifications"

    /// Calls a method of the bus itself, asynchronously.
    private func callBus(
        _ member: String, _ arguments: [DBusValue], timeout: Int32,
        _ done: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) {
        do throws(DBusError) {
            guard let connection else { throw DBusError(DBusError.Name.disconnected, "the connection is gone") }
            let message = try DBusMessage.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: member, arguments: arguments)
            try connection.callAsync(message, timeoutMilliseconds: timeout, completion: done)
        } catch {
            done(.failure(error))
        }
    }

    private func activationAnswered(_ result: Result<DBusMessage, DBusError>) {
        switch result {
        case .success:
            activation = .idle
            logger.info("started the notification server on demand (D-Bus activation)")
        case .failure(let error):
            // Said at most once per activationPatience: only a popup asks again.
            activation = .refused(at: EventLoop.now())
            if error.name == DBusError.Name.serviceUnknown {
                logger.info(
                    "no notification server runs, and D-Bus can start none: popups wait for one (the newest 100 per app)")
            } else {
                logger.warning("D-Bus could not start the notification server: \(error); popups wait for one")
            }
        }
    }
}
