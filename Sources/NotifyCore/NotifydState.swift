/// Everything notifyd knows, as one value: copying it is a snapshot, which
/// is how a failed commit rolls memory back to what is on disk.
public struct NotifydState: Hashable, Sendable {
    public var badges: BadgeBook
    /// Background sessions and their pending completion handlers.
    public var sessions: SessionBook
    /// App states, their owning connections, and when each app was active.
    public var apps: AppBook

    public init(badges: BadgeBook = BadgeBook(), sessions: SessionBook = SessionBook(), apps: AppBook = AppBook()) {
        self.badges = badges
        self.sessions = sessions
        self.apps = apps
    }
}
