/// The docks as operations of the core: every badge change sets the app's
/// count (``badgeOutcome(_:)``), every event with progress its progress;
/// the slots are chosen once per batch (``publishDocks()``), and what the
/// slots report comes back here.
extension NotifydState {
    /// A badge change: its row, `BadgeChanged`, and the count docks show.
    mutating func badgeOutcome(_ change: BadgeChange?) -> NotifydOutcome {
        guard let change else { return NotifydOutcome() }
        docks.setCount(change.new, for: change.app)
        return NotifydOutcome(writes: [.badge(change)], effects: [.badgeChanged(change)])
    }

    /// The docks' changes since the last call, as the slots carry them out:
    /// one update per app per batch (the daemon's committer asks once a
    /// batch is committed).
    public mutating func publishDocks() -> [NotifydEffect] {
        docks.publish().map { .dock($0) }
    }

    /// Every badge shown again at start-up (SPEC "Badges").
    public mutating func showBadgesAtStart() -> Decision<Void> {
        for (app, count) in badges.nonZero { docks.setCount(count, for: app) }
        return Decision(NotifydOutcome(effects: publishDocks()))
    }

    /// The slot of `app` could not be opened; its answer is whether this is
    /// the first failure in a row (worth a warning).
    public mutating func dockSlotFailed(_ app: AppID, at now: Microseconds) -> Decision<Bool> {
        Decision(docks.slotFailed(app, at: popupTime(now)), NotifydOutcome())
    }

    /// The slot of `app` opened.
    public mutating func dockSlotOpened(_ app: AppID) -> Decision<Void> {
        docks.slotOpened(app)
        return Decision(NotifydOutcome())
    }

    /// Failed slots tried again, when due.
    public mutating func docksDue(at now: Microseconds) -> Decision<Void> {
        Decision(NotifydOutcome(effects: docks.retryDue(at: popupTime(now)).map { .dock($0) }))
    }

    /// Docks show at most `limit` apps (``DockBook/slotLimit``): set once, at start-up.
    public mutating func limitDockSlots(to limit: Int) {
        docks = DockBook(slotLimit: limit)
    }
}
