/// Everything notifyd knows, as one value. The rules that span its books
/// are its operations (``recordEvent(_:session:app:at:)``,
/// ``reportAppState(_:for:by:at:)``). After a failed commit the daemon
/// reloads it from the database, which holds exactly what was committed.
public struct NotifydState: Hashable, Sendable {
    public var badges: BadgeBook
    /// Background sessions and their pending completion handlers.
    public var sessions: SessionBook
    /// App states, their owning connections, and when each app was active.
    public var apps: AppBook
    /// Background fetch: schedules, running fetches, history.
    public var fetches: FetchBook
    /// Finite-length background tasks (not stored).
    public var tasks: TaskBook
    /// UnifiedPush registrations and the messages held for them.
    public var push: PushBook
    /// Background transfers: those not yet ended and the last ended.
    public var transfers: TransferBook
    /// The popups: floods, progress, summaries, those waiting for a server (not stored).
    public var popups: PopupBook
    /// What the actions of posted popups act on (not stored).
    public var popupTargets: PopupTargets
    /// What docks show, and which apps have a slot (not stored).
    public var docks: DockBook
    /// How far the wall clock was set since start (µs, the sum of every
    /// step): the popups' timers run on wall time with these taken out,
    /// which is elapsed time (not stored).
    public var wallClockSteps: Microseconds

    public init(
        badges: BadgeBook = BadgeBook(), sessions: SessionBook = SessionBook(), apps: AppBook = AppBook(),
        fetches: FetchBook = FetchBook(), tasks: TaskBook = TaskBook(), push: PushBook = PushBook(),
        transfers: TransferBook = TransferBook()
    ) {
        popups = PopupBook()
        docks = DockBook()
        popupTargets = PopupTargets()
        wallClockSteps = 0
        self.badges = badges
        self.sessions = sessions
        self.apps = apps
        self.fetches = fetches
        self.tasks = tasks
        self.push = push
        self.transfers = transfers
    }

    /// The earliest deadline of the books (Unix µs): a handler's, a
    /// running fetch's, a task's cue or expiry, a popup's timer; nil when
    /// none is pending. The fetch plan has its own
    /// (``nextFetchWake(planner:conditions:at:)``).
    public var nextDeadline: Microseconds? {
        [sessions.nextDeadline, fetches.earliestDeadline, tasks.nextWake, transfers.nextWake,
         popups.nextWake.map { $0 + wallClockSteps }, docks.retryAt.map { $0 + wallClockSteps }]
            .compactMap { $0 }.min()
    }

    /// What is kept in memory only (popups, docks, tasks, the clock's steps):
    /// after a failed commit the daemon reloads the rest from the database
    /// and puts this back as it was before the batch.
    public struct MemoryOnly: Sendable {
        let tasks: TaskBook
        let popups: PopupBook
        let popupTargets: PopupTargets
        let docks: DockBook
        let wallClockSteps: Microseconds
    }

    public var memoryOnly: MemoryOnly {
        get { MemoryOnly(
            tasks: tasks, popups: popups, popupTargets: popupTargets, docks: docks, wallClockSteps: wallClockSteps)
        }
        set {
            tasks = newValue.tasks
            popups = newValue.popups
            popupTargets = newValue.popupTargets
            docks = newValue.docks
            wallClockSteps = newValue.wallClockSteps
        }
    }

    /// Every app notifyd knows (ListApps): one with a state, an activation
    /// history, a badge, or a session.
    public var knownApps: Set<AppID> {
        var known = apps.knownApps.union(badges.nonZero.keys)
        for session in sessions.allSessions { known.insert(session.app) }
        return known
    }
}

extension NotifydState {
    /// The state for reading only, as the daemon keeps it beside the state
    /// it decides on (the state as last committed): the same value, without
    /// the indexes only decisions use (``SessionBook/forReading``), so that
    /// keeping it costs no copy of them. ``rebuildIndexes()`` makes it a
    /// state to decide on again (after a failed commit).
    public var forReading: NotifydState {
        var reading = self
        reading.sessions = sessions.forReading
        return reading
    }

    /// Builds the indexes ``forReading`` left out.
    public mutating func rebuildIndexes() {
        sessions.rebuildIndexes()
    }
}
