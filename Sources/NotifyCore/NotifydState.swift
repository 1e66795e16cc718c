/// Everything notifyd knows, as one value: copying it is a snapshot, which
/// is how a failed commit rolls memory back to what is on disk.
public struct NotifydState: Hashable, Sendable {
    public var badges: BadgeBook

    public init(badges: BadgeBook = BadgeBook()) {
        self.badges = badges
    }
}
