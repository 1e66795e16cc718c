import CLibnotify
import Synchronization
public import Logging

/// What the system says about the network and power, for scheduled fetches.
public struct SystemConditions: Sendable, Hashable {
    /// GNetworkMonitor's `network-available`: a default route exists.
    public var networkAvailable: Bool
    /// GNetworkMonitor's `network-metered`.
    public var networkMetered: Bool
    /// GPowerProfileMonitor's `power-saver-enabled`.
    public var powerSaver: Bool
    /// UPower's `OnBattery` (false without UPower: a desktop on mains).
    public var onBattery: Bool

    public init(networkAvailable: Bool, networkMetered: Bool, powerSaver: Bool, onBattery: Bool = false) {
        self.networkAvailable = networkAvailable
        self.networkMetered = networkMetered
        self.powerSaver = powerSaver
        self.onBattery = onBattery
    }
}

/// Follows GIO's network monitor (`GNetworkMonitor`: netlink or
/// NetworkManager; `GIO_USE_NETWORK_MONITOR` picks one), power-profile
/// monitor (`GPowerProfileMonitor`: power-profiles-daemon) and UPower's
/// `OnBattery` (a `GDBusProxy` on the system bus, which never starts
/// UPower) on a GLib thread of its own. No polling: changes arrive as GObject signals, and
/// each reading that differs from the last is handed to `onChange` (on
/// that thread; hop to your own loop from there), the first one at start.
///
/// Every monitor of the process shares one thread, started with the first
/// and kept to the end. GIO's network and power-profile monitors are
/// process-wide singletons that deliver their signals in the main context
/// of the thread that first asked for them: on a thread of each
/// monitor's own, the push connection's watch (which stops when the push
/// server is removed) could take the singletons' context away from the
/// fetches' and transfers' watch for good.
public final class SystemConditionsMonitor: @unchecked Sendable {
    private let thread: GLibThread
    private let watch: ConditionsWatch
    private let stopped = Mutex(false)

    /// The shared thread, started by the first monitor (nil until then).
    private static let sharedThread = Mutex<GLibThread?>(nil)

    /// Starts the monitors (and the shared thread, for the first).
    public init(logger: Logger, onChange: @escaping @Sendable (SystemConditions) -> Void) throws(DesktopError) {
        thread = try Self.startedThread()
        let watch = ConditionsWatch(onChange: onChange)
        self.watch = watch
        guard thread.perform({ watch.start() }) else {
            throw DesktopError(.thread, "the conditions thread stopped before it started")
        }
        logger.debug("following the network and power-saver mode through GIO")
    }

    deinit { stop() }

    /// Disconnects this monitor's handlers, waiting until they are (the
    /// shared thread goes on for the others). Idempotent.
    public func stop() {
        guard stopped.withLock({ stopped in
            defer { stopped = true }
            return !stopped
        }) else { return }
        let watch = self.watch
        _ = thread.sync { watch.stop() }
    }

    private static func startedThread() throws(DesktopError) -> GLibThread {
        try sharedThread.withLock { shared throws(DesktopError) -> GLibThread in
            if let shared { return shared }
            let started = try GLibThread(name: "notifyd-conditions")
            shared = started
            return started
        }
    }
}

/// The monitors and the signal handlers, owned by the GLib thread.
private final class ConditionsWatch: @unchecked Sendable {
    private let onChange: @Sendable (SystemConditions) -> Void
    private var network: OpaquePointer?
    private var power: OpaquePointer?
    /// UPower's `GDBusProxy`, nil without a system bus.
    private var upower: UnsafeMutablePointer<GDBusProxy>?
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
        // Synchronous, on this thread of its own: a bus that is not there fails at once.
        upower = g_dbus_proxy_new_for_bus_sync(
            G_BUS_TYPE_SYSTEM, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START, nil, "org.freedesktop.UPower",
            "/org/freedesktop/UPower", "org.freedesktop.UPower", nil, nil)
        if let upower {
            connect(UnsafeMutableRawPointer(upower), "g-properties-changed", unsafeBitCast(proxyPropertiesChanged, to: GCallback.self))
            connect(UnsafeMutableRawPointer(upower), "notify::g-name-owner", unsafeBitCast(propertyChanged, to: GCallback.self))
        }
        read()
    }

    func stop() {
        for (object, id) in handlers { g_signal_handler_disconnect(object, id) }
        handlers.removeAll()
        if let power { g_object_unref(UnsafeMutableRawPointer(power)) }
        power = nil
        if let upower { g_object_unref(UnsafeMutableRawPointer(upower)) }
        upower = nil
        network = nil
    }

    /// Reads the monitors and reports a change.
    func read() {
        let now = SystemConditions(
            networkAvailable: network.map { g_network_monitor_get_network_available($0) != 0 } ?? true,
            networkMetered: network.map { g_network_monitor_get_network_metered($0) != 0 } ?? false,
            powerSaver: power.map { g_power_profile_monitor_get_power_saver_enabled($0) != 0 } ?? false,
            onBattery: onBattery())
        guard now != last else { return }
        last = now
        onChange(now)
    }

    /// UPower's cached `OnBattery`; false when UPower does not run.
    private func onBattery() -> Bool {
        guard let upower, let name = g_dbus_proxy_get_name_owner(upower) else { return false }
        g_free(name)
        guard let value = g_dbus_proxy_get_cached_property(upower, "OnBattery") else { return false }
        defer { g_variant_unref(value) }
        return g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN_()) != 0 && g_variant_get_boolean(value) != 0
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

/// `g-properties-changed (GDBusProxy *, GVariant *changed, GStrv invalidated, gpointer)`.
private let proxyPropertiesChanged: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
) -> Void = { _, _, _, data in
    guard let data else { return }
    Unmanaged<ConditionsWatch>.fromOpaque(data).takeUnretainedValue().read()
}
