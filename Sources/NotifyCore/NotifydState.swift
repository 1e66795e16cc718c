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

    public init(
        badges: BadgeBook = BadgeBook(), sessions: SessionBook = SessionBook(), apps: AppBook = AppBook(),
        fetches: FetchBook = FetchBook(), tasks: TaskBook = TaskBook()
    ) {
        self.badges = badges
        self.sessions = sessions
        self.apps = apps
        self.fetches = fetches
        self.tasks = tasks
    }

    /// The earliest deadline of the books (Unix µs): a handler's, a
    /// running fetch's, a task's cue or expiry; nil when none is pending.
    /// The fetch plan has its own (``nextFetchWake(planner:conditions:at:)``).
    public var nextDeadline: Microseconds? {
        [sessions.nextDeadline, fetches.earliestDeadline, tasks.nextWake].compactMap { $0 }.min()
    }

    /// Every app notifyd knows (ListApps): one with a state, an activation
    /// history, a badge, or a session.
    public var knownApps: Set<AppID> {
        var known = apps.knownApps.union(badges.nonZero.keys)
        for session in sessions.allSessions { known.insert(session.app) }
        return known
    }
}
