public import DBus
public import Logging
public import NotifyCore

/// Publishes badges (and progress) to docks as Unity LauncherEntry signals.
///
/// Docks (KDE Plasma, Dash to Dock, Plank) tie an entry to the connection
/// that sent it and keep one app per connection, so each shown app has a
/// private bus connection of its own (``LauncherEntrySlot``), opened
/// without blocking the loop. Connections are a bounded pool: at most
/// ``connectionLimit`` apps are shown, those changed most recently. When a
/// newer app needs a place, the app changed least recently is retracted
/// (`count-visible` and `progress-visible` false) and its connection
/// closed; it comes back when it changes again. Thousands of badged apps
/// therefore cost neither thousands of descriptors in notifyd nor
/// thousands of connections on the bus (whose per-user limit may be 256).
///
/// An entry is state a dock displays, not an event: the changes of one
/// turn of the event loop are sent as one update per app, with the latest
/// values. A publication that fails (no descriptor, the bus refusing a
/// connection) is retried with a backoff of 1 s doubling to 60 s.
public final class LauncherEntryPublisher {
    /// How many apps are shown at most unless the daemon says otherwise.
    public static let defaultConnectionLimit = 64

    /// Apps shown at most, each on a connection of its own.
    public let connectionLimit: Int
    private let bus: DBusConnection.Bus
    private let loop: EventLoop
    private let logger: Logger
    private var entries: [AppID: LauncherEntry] = [:]
    private var changed: Set<AppID> = []
    private var slots: [AppID: LauncherEntrySlot] = [:]
    private var lastChange: [AppID: UInt64] = [:]
    private var changeCounter: UInt64 = 0
    private var failing: Set<AppID> = []
    private var retry: (timer: EventLoop.TimerID, delay: UInt64)?
    private var retryDelay: UInt64 = LauncherEntryPublisher.firstRetryDelay

    static let firstRetryDelay: UInt64 = 1_000_000_000
    static let lastRetryDelay: UInt64 = 60_000_000_000

    /// - Parameters:
    ///   - bus: where to open the per-app connections.
    ///   - connectionLimit: apps shown at most (at least 1).
    public init(
        bus: DBusConnection.Bus, loop: EventLoop, logger: Logger, connectionLimit: Int = defaultConnectionLimit
    ) {
        self.bus = bus
        self.loop = loop
        self.logger = logger
        self.connectionLimit = max(1, connectionLimit)
    }

    /// Follows `com.canonical.Unity` on `connection` and re-sends every
    /// shown entry whenever a dock takes the name.
    public func followDocks(on connection: DBusConnection) throws(DBusError) {
        var first = true
        try connection.watchNameOwner("com.canonical.Unity") { [weak self] owner in
            defer { first = false }
            guard let self, owner != nil, !first else { return }
            self.logger.info("a dock took com.canonical.Unity; re-sending \(self.slots.count) launcher entries")
            self.republishAll()
        }
    }

    /// Sets an app's badge count and publishes the entry if it changed.
    public func setCount(_ count: UInt32, for app: AppID) {
        var entry = entries[app] ?? LauncherEntry()
        entry.count = count
        update(app, entry)
    }

    /// Sets an app's progress (nil: none running) and publishes it.
    public func setProgress(_ progress: Double?, for app: AppID) {
        var entry = entries[app] ?? LauncherEntry()
        entry.progress = progress
        update(app, entry)
    }

    /// Sends every shown entry again (dock restart).
    public func republishAll() {
        for app in slots.keys.sorted() { slots[app]?.send(entries[app] ?? LauncherEntry(), force: true) }
    }

    private func update(_ app: AppID, _ entry: LauncherEntry) {
        entries[app] = entry.isVisible ? entry : nil
        changeCounter += 1
        lastChange[app] = entry.isVisible ? changeCounter : nil
        if !entry.isVisible {
            // 10,000 badges cleared leave no tables sized for 10,000.
            entries.shrinkIfSparse()
            lastChange.shrinkIfSparse()
        }
        if changed.isEmpty { loop.runSoon { [weak self] in self?.publishChanged() } }
        changed.insert(app)
    }

    /// Sends one update per app changed since the last turn: apps already
    /// shown first, then new ones, newest first, while places last.
    private func publishChanged() {
        let apps = changed
        changed.removeAll()
        var newcomers: [AppID] = []
        for app in apps {
            if let slot = slots[app] {
                let entry = entries[app] ?? LauncherEntry()
                slot.send(entry)
                if !entry.isVisible { close(app, retracting: false) }
            } else if entries[app] != nil {
                newcomers.append(app)
            }
        }
        newcomers.sort { (lastChange[$0] ?? 0) > (lastChange[$1] ?? 0) }
        for app in newcomers {
            guard makeRoom(for: app) else { break }
            openSlot(for: app)
        }
    }

    /// Frees a place for `app` by retracting the app changed least
    /// recently, if that one is older; false when every shown app is newer.
    private func makeRoom(for app: AppID) -> Bool {
        guard slots.count >= connectionLimit else { return true }
        let age = lastChange[app] ?? 0
        guard let oldest = slots.keys.min(by: { (lastChange[$0] ?? 0) < (lastChange[$1] ?? 0) }),
            (lastChange[oldest] ?? 0) < age
        else { return false }
        close(oldest, retracting: true)
        return true
    }

    /// Ends an app's place: a retracted app's dock entry is hidden first;
    /// an app whose entry just became empty has that sent, also when its
    /// connection is still opening.
    private func close(_ app: AppID, retracting: Bool) {
        guard let slot = slots.removeValue(forKey: app) else { return }
        if retracting {
            slot.send(LauncherEntry(), force: true)
            slot.close()
        } else {
            slot.closeWhenSent()
        }
    }

    private func openSlot(for app: AppID) {
        let slot = LauncherEntrySlot(app: app, logger: logger) { [weak self] app in self?.entries[app] ?? LauncherEntry() }
        slots[app] = slot
        slot.send(entries[app] ?? LauncherEntry())  // waits for the connection, as later changes do
        slot.open(bus: bus, loop: loop) { [weak self, weak slot] error in
            guard let self, let slot, self.slots[app] === slot else { return }
            if let error {
                self.slots[app] = nil
                self.failed(app, error)
            } else {
                self.failing.remove(app)
                if self.failing.isEmpty { self.retryDelay = Self.firstRetryDelay }
                slot.send(self.entries[app] ?? LauncherEntry())
            }
        }
    }

    private func failed(_ app: AppID, _ error: DBusError) {
        if failing.insert(app).inserted, failing.count <= 3 {
            logger.warning("cannot publish the launcher entry of \(app): \(error.message); retrying")
        }
        guard retry == nil else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.lastRetryDelay)
        let timer = loop.scheduleTimer(afterNanoseconds: delay) { [weak self] in self?.retryFailed() }
        retry = (timer, delay)
    }

    private func retryFailed() {
        retry = nil
        let apps = failing
        failing.removeAll()
        for app in apps where entries[app] != nil && slots[app] == nil {
            if changed.isEmpty { loop.runSoon { [weak self] in self?.publishChanged() } }
            changed.insert(app)
            failing.insert(app)  // kept until a connection opens, for the log's count
        }
    }
}
