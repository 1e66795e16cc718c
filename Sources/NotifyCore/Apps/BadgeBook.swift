/// A change of one app's badge, for storing and announcing.
public struct BadgeChange: Hashable, Sendable {
    public let app: AppID
    public let old: UInt32
    public let new: UInt32

    public init(app: AppID, old: UInt32, new: UInt32) {
        self.app = app
        self.old = old
        self.new = new
    }
}

/// Badge counts per app: the rules of the Badges interface, without I/O.
///
/// Every mutation returns the changes it made, and nothing for a no-op, so
/// callers store and announce exactly the real changes.
///
/// At most ``maximumApps`` apps have a badge that is not 0: any string of
/// the right shape is an app ID, and each badged app is a row, an entry
/// here and a line of every `ListBadges` reply, so the number must be
/// bounded. Clearing a badge makes room.
public struct BadgeBook: Hashable, Sendable {
    /// The largest count a badge may have (the range of `int32`).
    public static let maximum: UInt32 = 2_147_483_647
    /// Apps with a badge other than 0 at most: giving one more app a badge
    /// is `LimitExceeded` and changes nothing.
    public static let maximumApps = 10_000

    private var counts: [AppID: UInt32]

    /// A book with the given non-zero counts.
    public init(_ counts: [AppID: UInt32] = [:]) {
        self.counts = counts.filter { $0.value > 0 }
    }

    /// The app's count; 0 for an unknown app.
    public subscript(app: AppID) -> UInt32 { counts[app] ?? 0 }

    /// Every app whose badge is not 0.
    public var nonZero: [AppID: UInt32] { counts }

    /// Sets a count, or throws `OutOfRange` above ``maximum``.
    public mutating func set(_ app: AppID, to count: UInt32) throws(NotifydError) -> BadgeChange? {
        guard count <= Self.maximum else {
            throw NotifydError(.outOfRange, "badge count \(count) is above the maximum \(Self.maximum)")
        }
        return try apply(app, count)
    }

    /// Adds `delta`; a result below 0 clamps to 0, above ``maximum`` is
    /// `OutOfRange` and changes nothing. Returns the new count and the change.
    public mutating func increment(_ app: AppID, by delta: Int32) throws(NotifydError) -> (count: UInt32, change: BadgeChange?) {
        let old = Int64(self[app])
        let wanted = old + Int64(delta)
        guard wanted <= Int64(Self.maximum) else {
            throw NotifydError(
                .outOfRange, "badge of \(app) is \(old); adding \(delta) would pass the maximum \(Self.maximum)")
        }
        let count = UInt32(max(0, wanted))
        return (count, try apply(app, count))
    }

    /// Sets every non-zero badge to 0.
    public mutating func clearAll() -> [BadgeChange] {
        let changes = counts.keys.sorted().compactMap { app in
            let old = self[app]
            counts[app] = nil
            return BadgeChange(app: app, old: old, new: 0)
        }
        counts.shrinkIfSparse()
        return changes
    }

    /// Whether giving `app` a badge other than 0 would make one badged app
    /// too many (``maximumApps``).
    public func isFull(for app: AppID) -> Bool {
        counts[app] == nil && counts.count >= Self.maximumApps
    }

    /// `LimitExceeded` when giving `app` a badge would make one badged app too many.
    public func checkRoom(for app: AppID) throws(NotifydError) {
        guard isFull(for: app) else { return }
        throw NotifydError(
            .limitExceeded,
            "\(Self.maximumApps) apps have a badge already, the most notifyd keeps, and \(app) would be one more; clearing a badge makes room"
        )
    }

    private mutating func apply(_ app: AppID, _ count: UInt32) throws(NotifydError) -> BadgeChange? {
        let old = self[app]
        guard old != count else { return nil }
        if count > 0 { try checkRoom(for: app) }
        counts[app] = count == 0 ? nil : count
        if count == 0 { counts.shrinkIfSparse() }
        return BadgeChange(app: app, old: old, new: count)
    }
}
