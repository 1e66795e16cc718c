import CLibnotify
public import Logging

/// What the system says about the network and power, for scheduled fetches.
public struct SystemConditions: Sendable, Hashable {
    /// GNetworkMonitor's `network-available`: a default route exists.
    public var networkAvailable: Bool
    /// GNetworkMonitor's `network-metered`.
    public var networkMetered: Bool
    /// GPowerProfileMonitor's `power-saver-enabled`.
    public var powerSaver: Bool

    public init(networkAvailable: Bool, networkMetered: Bool, powerSaver: Bool) {
        self.networkAvailable = networkAvailable
        self.networkMetered = networkMetered
        self.powerSaver = powerSaver
    }
}

/// Follows GIO's network monitor (`GNetworkMonitor`: netlink or
/// NetworkManager; `GIO_USE_NETWORK_MONITOR` picks one) and power-profile
/// monitor (`GPowerProfileMonitor`: power-profiles-daemon) on a GLib
/// thread of its own. No polling: changes arrive as GObject signals, and
/// each reading that differs from the last is handed to `onChange` (on
/// that thread; hop to your own loop from there), the first one at start.
public final class SystemConditionsMonitor: @unchecked Sendable {
    private let thread: GLibThread
    private let watch: ConditionsWatch

    /// Starts the thread and the monitors.
    public init(logger: Logger, onChange: @escaping @Sendable (SystemConditions) -> Void) throws(DesktopError) {
        thread = try GLibThread(name: "notifyd-conditions")
        let watch = ConditionsWatch(onChange: onChange)
        self.watch = watch
        guard thread.perform({ watch.start() }) else {
            throw DesktopError(.thread, "the conditions thread stopped before it started")
        }
        logger.debug("following the network and power-saver mode through GIO")
    }

    deinit { stop() }

    /// Disconnects from the monitors and joins the thread. Idempotent.
    public func stop() {
        let watch = self.watch
        thread.stop { watch.stop() }
    }
}

/// The monitors and the signal handlers, owned by the GLib thread.
private final class ConditionsWatch: @unchecked Sendable {
    private let onChange: @Sendable (SystemConditions) -> Void
    private var network: OpaquePointer?
    private var power: OpaquePointer?
    private var handlers: [(UnsafeMutableRawPointer, gulong)] = []
    private var last: SystemConditions?

    init(onChange: @escaping @Sendable (SystemConditions) -> Void) {
        self.onChange = onChange
    }

    func start() {
        // The default network monitor is GIO's singleton (not a new reference).
        network = g_network_monitor_get_default()
        power = g_power_profile_monitor_dup_default()
        if let network {
            connect(UnsafeMutableRawPointer(network), "network-changed", unsafeBitCast(networkChanged, to: GCallback.self))
            connect(UnsafeMutableRawPointer(network), "notify::network-metered", unsafeBitCast(propertyChanged, to: GCallback.self))
        }
        if let power {
            connect(UnsafeMutableRawPointer(power), "notify::power-saver-enabled", unsafeBitCast(propertyChanged, to: GCallback.self))
        }
        read()
    }

    func stop() {
        for (object, id) in handlers { g_signal_handler_disconnect(object, id) }
        handlers.removeAll()
        if let power { g_object_unref(UnsafeMutableRawPointer(power)) }
        power = nil
        network = nil
    }

    /// Reads the monitors and reports a change.
    func read() {
        let now = SystemConditions(
            networkAvailable: network.map { g_network_monitor_get_network_available($0) != 0 } ?? true,
            networkMetered: network.map { g_network_monitor_get_network_metered($0) != 0 } ?? false,
            powerSaver: power.map { g_power_profile_monitor_get_power_saver_enabled($0) != 0 } ?? false)
        guard now != last else { return }
        last = now
        onChange(now)
    }

    private func connect(_ object: UnsafeMutableRawPointer, _ signal: String, _ callback: GCallback) {
        // Unretained: the handlers are disconnected in stop(), before this object goes.
        let data = Unmanaged.passUnretained(self).toOpaque()
        let id = g_signal_connect_data(object, signal, callback, data, nil, GConnectFlags(rawValue: 0))
        if id != 0 { handlers.append((object, id)) }
    }
}

/// `network-changed (GNetworkMonitor *, gboolean available, gpointer)`.
private let networkChanged: @convention(c) (UnsafeMutableRawPointer?, gboolean, UnsafeMutableRawPointer?) -> Void = {
    _, _, data in
    guard let data else { return }
    Unmanaged<ConditionsWatch>.fromOpaque(data).takeUnretainedValue().read()
}

/// `notify::… (GObject *, GParamSpec *, gpointer)`.
private let propertyChanged: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, _, data in
    guard let data else { return }
    Unmanaged<ConditionsWatch>.fromOpaque(data).takeUnretainedValue().read()
}
