import DBus
import Logging
import NotifyDesktop

/// Follows the network for the push connection, through GIO's monitor
/// (``SystemConditionsMonitor``, on a GLib thread of its own, signals and
/// no polling), while a push server is set: when the network comes back,
/// `returned` runs on the bus loop, so that a lost connection is tried
/// again at once rather than after its backoff (SPEC).
final class PushNetworkWatch {
    private let loop: EventLoop
    private let logger: Logger
    private var monitor: SystemConditionsMonitor?

    init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// Starts following the network, unless it already is.
    func start(returned: @escaping () -> Void) {
        guard monitor == nil else { return }
        let watch = LoopBound(NetworkReadings(returned), loop: loop)
        do {
            monitor = try SystemConditionsMonitor(logger: logger) { conditions in
                watch.execute { $0.reading(available: conditions.networkAvailable) }
            }
        } catch {
            logger.warning("cannot follow the network (\(error)); a lost push server is tried again on its backoff alone")
        }
    }

    /// Stops following it (no push server).
    func stop() {
        monitor?.stop()
        monitor = nil
    }
}

/// The last reading, on the bus loop: a change from unavailable to
/// available is the network's return.
private final class NetworkReadings {
    private let returned: () -> Void
    private var available: Bool?

    init(_ returned: @escaping () -> Void) {
        self.returned = returned
    }

    func reading(available now: Bool) {
        defer { available = now }
        if available == false && now { returned() }
    }
}
