/// Everything notifyd knows, as one value: copying it is a snapshot, which
/// is how a failed commit rolls memory back to what is on disk.
public struct NotifydState: Hashable, Sendable {
    public var badges: BadgeBook
    /// Background sessions and their pending completion handlers.
    public var sessions: SessionBook

    public init(badges: BadgeBook = BadgeBook(), sessions: SessionBook = SessionBook()) {
        self.badges = badges
        self.sessions = sessions
    }
}
