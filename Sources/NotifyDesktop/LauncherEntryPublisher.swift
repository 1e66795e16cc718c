public import DBus
public import Logging
public import NotifyCore

/// Publishes badges (and progress) to docks as Unity LauncherEntry
/// signals, as the core's ``NotifyCore/DockBook`` decided: a thin adapter.
///
/// Docks (KDE Plasma, Dash to Dock, Plank) tie an entry to the connection
/// that sent it and keep one app per connection, so each shown app has a
/// private bus connection of its own (``LauncherEntrySlot``), opened
/// without blocking the loop. Which apps have one (the pool is bounded) is
/// the core's choice; this opens, sends, retracts and closes, and reports
/// whether each slot opened.
public final class LauncherEntryPublisher {
    /// What became of a slot's connection, for the core.
    public enum SlotReport: Sendable {
        case opened(AppID)
        case failed(AppID, DBusError)
    }

    private let bus: DBusConnection.Bus
    private let loop: EventLoop
    private let logger: Logger
    private let report: (SlotReport) -> Void
    private var slots: [AppID: LauncherEntrySlot] = [:]

    /// - Parameters:
    ///   - bus: where to open the per-app connections.
    ///   - report: told, on the loop, whether each slot opened.
    public init(bus: DBusConnection.Bus, loop: EventLoop, logger: Logger, report: @escaping (SlotReport) -> Void) {
        self.bus = bus
        self.loop = loop
        self.logger = logger
        self.report = report
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

    /// Carries out one of the core's dock effects.
    public func carryOut(_ effect: DockEffect) {
        switch effect {
        case .show(let app, let entry):
            openSlot(for: app, sending: LauncherEntry(entry))
        case .send(let app, let entry):
            slots[app]?.send(LauncherEntry(entry))
        case .retract(let app):
            guard let slot = slots.removeValue(forKey: app) else { return }
            slot.send(LauncherEntry(), force: true)
            slot.close()
        case .release(let app):
            slots.removeValue(forKey: app)?.closeWhenSent()
        }
    }

    /// Sends every shown entry again (a dock restarted, a desktop's job ended).
    public func republishAll() {
        for app in slots.keys.sorted() {
            guard let slot = slots[app] else { continue }
            slot.send(slot.latest, force: true)
        }
    }

    private func openSlot(for app: AppID, sending entry: LauncherEntry) {
        slots[app]?.close()
        let slot = LauncherEntrySlot(app: app, logger: logger)
        slots[app] = slot
        slot.send(entry)  // waits for the connection, as later changes do
        slot.open(bus: bus, loop: loop) { [weak self, weak slot] error in
            guard let self, let slot, self.slots[app] === slot else { return }
            if let error {
                self.slots[app] = nil
                self.report(.failed(app, error))
            } else {
                self.report(.opened(app))
            }
        }
    }
}
