/// The apps and sessions of the fuzzer's own legitimate state, all under
/// `org.notifyd.Fuzz.` so they never collide with a user's.
enum Legit {
    static let appA = "org.notifyd.Fuzz.LegitA"
    static let appB = "org.notifyd.Fuzz.LegitB"
    static let badgeA: UInt32 = 3
    static let badgeB: UInt32 = 42
    /// Badge at the maximum: any increment overflows.
    static let maxApp = "org.notifyd.Fuzz.Max"
    /// Badge 647 below the maximum.
    static let nearApp = "org.notifyd.Fuzz.Near"
    static let nearBadge: UInt32 = 2_147_483_000
    /// 10,000 pending handlers: every storing event is LimitExceeded.
    static let fullApp = "org.notifyd.Fuzz.Full"
    static let fullSession = "fuzz-legit-full"
    static let pendingSession = "fuzz-legit-pending"
    static let doneSession = "fuzz-legit-done"
    static let progressSession = "fuzz-legit-progress"
    /// An app with a fetch interval, its switch off (so no scheduled fetch
    /// ever runs) and one fetch in its history: setting either again
    /// changes nothing.
    static let fetchApp = "org.notifyd.Fuzz.Fetch"
    static let fetchInterval: UInt32 = 86_400
    /// The app of the task the preparation begins and ends, so that task
    /// IDs have been used.
    static let taskApp = "org.notifyd.Fuzz.Task"
    /// The app the fuzzer registers with the UnifiedPush distributor (no
    /// connector answers for it: Unregistered to it is only logged).
    static let pushApp = "org.notifyd.Fuzz.Push"
    /// Where valid events with hostile unknown keys go; accounted for at
    /// the end. Cases are spread over one app per ``acceptedBucketSize``
    /// indices, so no app nears the limit of 10,000 pending handlers.
    static let acceptedPrefix = "org.notifyd.Fuzz.Accepted"
    static let acceptedSessionPrefix = "fuzz-accepted"
    static let acceptedBucketSize: UInt64 = 200_000

    /// The accepted app and session of case `index`.
    static func accepted(_ index: UInt64) -> (app: String, session: String, bucket: Int) {
        let bucket = Int(index / acceptedBucketSize)
        let suffix = bucket == 0 ? "" : "\(bucket)"
        return (acceptedPrefix + suffix, acceptedSessionPrefix + suffix, bucket)
    }
    /// Valid app IDs used with refused requests: nothing may ever be stored for them.
    static let rejectedPrefix = "org.notifyd.Fuzz.Rejected"

    /// Two transfers that never start (a start time in the year 2255, a
    /// closed port on loopback, a directory that does not exist): one
    /// waiting, one suspended, so that resuming the first and suspending
    /// the second again change nothing.
    static let transferApp = "org.notifyd.Fuzz.Transfer"
    static let transferSession = "fuzz-legit-transfer"
    static let waitingTransferTitle = "legit waiting transfer"
    static let suspendedTransferTitle = "legit suspended transfer"
    /// `not-before` of every transfer the fuzzer makes: Unix µs in 2255.
    static let farFuture: Int64 = 9_000_000_000_000_000
    /// Where the fuzzer's transfers would write: a directory that does not exist.
    static let transferDirectory = "/nonexistent-notifyd-fuzz"
    /// The transfers of the accepted-transfer family, cancelled once
    /// answered (and any left at the end of the run), one app and session
    /// per ``acceptedBucketSize`` indices as the accepted events; under
    /// ``acceptedPrefix`` so the snapshots leave them out.
    static let acceptedTransferPrefix = acceptedPrefix + "Transfer"
    static let acceptedTransferSessionPrefix = acceptedSessionPrefix + "-transfer"

    /// The accepted-transfer app and session of case `index`.
    static func acceptedTransfer(_ index: UInt64) -> (app: String, session: String) {
        let bucket = index / acceptedBucketSize
        return (acceptedTransferPrefix + "\(bucket)", acceptedTransferSessionPrefix + "\(bucket)")
    }

    static let badges: [(String, UInt32)] = [
        (appA, badgeA), (appB, badgeB), (maxApp, Contract.maximumBadge), (nearApp, nearBadge),
    ]
}
