/// What docks show on each app's icon (Unity LauncherEntry: a count and a
/// progress), and the rule of the bounded connection pool behind it.
///
/// Docks (KDE Plasma, Dash to Dock, Plank) tie an entry to the connection
/// that sent it and keep one app per connection, so each shown app needs a
/// bus connection of its own: a *slot*. At most ``slotLimit`` apps have
/// one, those changed most recently; when a newer app needs a place, the
/// app changed least recently is retracted (its entry hidden, its slot
/// closed), and it comes back when it changes again. A slot that cannot
/// be opened is tried again after 1 s, doubling to 60 s.
///
/// Changes are decided as they happen and published once per batch
/// (``publish()``): one update per app with its latest values, apps already
/// shown first, then newcomers newest first while places last.
public struct DockBook: Sendable, Hashable {
    /// How many apps are shown at most unless the daemon says otherwise.
    public static let defaultSlotLimit = 64
    public static let firstRetryDelay: Microseconds = 1_000_000
    public static let lastRetryDelay: Microseconds = 60_000_000

    /// Apps shown at most, each on a slot of its own.
    public let slotLimit: Int
    /// The visible entries, per app.
    public private(set) var entries: [AppID: DockEntry] = [:]
    /// The apps that have a slot.
    public private(set) var shown: Set<AppID> = []
    private var lastChange: [AppID: UInt64] = [:]
    private var changeCounter: UInt64 = 0
    private var changed: Set<AppID> = []
    private var failing: Set<AppID> = []
    private var retryDelay = DockBook.firstRetryDelay
    /// When failed slots are tried again (popup time, as ``NotifydState`` keeps it).
    public private(set) var retryAt: Microseconds?

    public init(slotLimit: Int = DockBook.defaultSlotLimit) {
        self.slotLimit = max(1, slotLimit)
    }

    /// The entry docks show for `app` (empty when none).
    public subscript(app: AppID) -> DockEntry { entries[app] ?? DockEntry() }

    /// Sets an app's count.
    public mutating func setCount(_ count: UInt32, for app: AppID) {
        var entry = self[app]
        entry.count = count
        update(app, entry)
    }

    /// Sets an app's progress (nil: none runs).
    public mutating func setProgress(_ progress: Double?, for app: AppID) {
        var entry = self[app]
        entry.progress = progress
        update(app, entry)
    }

    private mutating func update(_ app: AppID, _ entry: DockEntry) {
        entries[app] = entry.isVisible ? entry : nil
        changeCounter += 1
        lastChange[app] = entry.isVisible ? changeCounter : nil
        if !entry.isVisible {
            // 10,000 badges cleared leave no tables sized for 10,000.
            entries.shrinkIfSparse()
            lastChange.shrinkIfSparse()
        }
        changed.insert(app)
    }

    /// What changed since the last publication, as the slots carry it out.
    public mutating func publish() -> [DockEffect] {
        guard !changed.isEmpty else { return [] }
        let apps = changed
        changed.removeAll()
        var effects: [DockEffect] = []
        var newcomers: [AppID] = []
        for app in apps.sorted() {
            if shown.contains(app) {
                let entry = self[app]
                effects.append(.send(app, entry))
                if !entry.isVisible {
                    shown.remove(app)
                    effects.append(.release(app))
                }
            } else if entries[app] != nil {
                newcomers.append(app)
            }
        }
        newcomers.sort { (lastChange[$0] ?? 0) > (lastChange[$1] ?? 0) }
        for app in newcomers {
            guard let room = makeRoom(for: app) else { break }
            effects += room
            shown.insert(app)
            effects.append(.show(app, self[app]))
        }
        return effects
    }

    /// Frees a place for `app` by retracting the app changed least
    /// recently, if that one is older; nil when every shown app is newer.
    private mutating func makeRoom(for app: AppID) -> [DockEffect]? {
        guard shown.count >= slotLimit else { return [] }
        let age = lastChange[app] ?? 0
        guard let oldest = shown.min(by: { (lastChange[$0] ?? 0) < (lastChange[$1] ?? 0) }),
            (lastChange[oldest] ?? 0) < age
        else { return nil }
        shown.remove(oldest)
        return [.retract(oldest)]
    }

    /// The slot of `app` could not be opened: it is tried again after the
    /// backoff. True when this is the app's first failure in a row (worth a log line).
    public mutating func slotFailed(_ app: AppID, at now: Microseconds) -> Bool {
        guard shown.remove(app) != nil else { return false }
        let first = failing.insert(app).inserted
        if retryAt == nil {
            retryAt = now + retryDelay
            retryDelay = min(retryDelay * 2, Self.lastRetryDelay)
        }
        return first
    }

    /// The slot of `app` is open.
    public mutating func slotOpened(_ app: AppID) {
        failing.remove(app)
        if failing.isEmpty { retryDelay = Self.firstRetryDelay }
    }

    /// The retry is due: the failed apps still visible are offered again.
    public mutating func retryDue(at now: Microseconds) -> [DockEffect] {
        guard let retryAt, retryAt <= now else { return [] }
        self.retryAt = nil
        for app in failing where entries[app] != nil && !shown.contains(app) { changed.insert(app) }
        return publish()
    }
}

/// One app's entry on docks.
public struct DockEntry: Sendable, Hashable {
    public var count: UInt32
    /// Progress of the app's running sessions, 0 to 1, when any.
    public var progress: Double?

    public init(count: UInt32 = 0, progress: Double? = nil) {
        self.count = count
        self.progress = progress
    }

    /// Whether docks show anything for the app.
    public var isVisible: Bool { count > 0 || progress != nil }
}

/// What the slots carry out for ``DockBook``.
public enum DockEffect: Sendable, Hashable {
    /// Opens a slot for the app and sends its entry once open.
    case show(AppID, DockEntry)
    /// Sends the app's entry on its slot (unless it sent the same last).
    case send(AppID, DockEntry)
    /// Hides the app's entry and closes its slot at once (its place went to a newer app).
    case retract(AppID)
    /// Closes the app's slot once what it has to send is sent (its entry became empty).
    case release(AppID)
}
