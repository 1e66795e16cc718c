import NotifyCore

/// What SPEC.md fixes and the fuzzer holds notifyd to: names, every method
/// with its input signature, and the error names. Spelled out here rather
/// than read from notifyd's own declarations, so the fuzzer is an
/// independent check of them.
enum Contract {
    static let busName = NotifydNames.busName
    static let path = NotifydNames.objectPath
    static let badges = NotifydNames.badgesInterface
    static let apps = NotifydNames.appsInterface
    static let sessions = NotifydNames.sessionsInterface
    static let daemon = NotifydNames.daemonInterface
    static let worker = NotifydNames.workerInterface
    static let workerMember = "EventsForBackgroundSession"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"

    /// One method of the object and the signature of its arguments.
    struct Method: Sendable {
        let interface: String
        let member: String
        let signature: String
        /// Its argument types, parsed from ``signature``.
        var types: [Character] { Array(signature) }
    }

    /// Every method the object answers (SPEC and the standard interfaces).
    static let methods: [Method] = [
        Method(interface: badges, member: "GetBadge", signature: "s"),
        Method(interface: badges, member: "SetBadge", signature: "su"),
        Method(interface: badges, member: "IncrementBadge", signature: "si"),
        Method(interface: badges, member: "ClearBadge", signature: "s"),
        Method(interface: badges, member: "ClearAllBadges", signature: ""),
        Method(interface: badges, member: "ListBadges", signature: ""),
        Method(interface: apps, member: "DidBecomeActive", signature: "s"),
        Method(interface: apps, member: "WillResignActive", signature: "s"),
        Method(interface: apps, member: "DidEnterBackground", signature: "s"),
        Method(interface: apps, member: "GetState", signature: "s"),
        Method(interface: apps, member: "ListApps", signature: ""),
        Method(interface: sessions, member: "HandleEventsForBackgroundSession", signature: "ssa{sv}"),
        Method(interface: sessions, member: "CompleteSession", signature: "s"),
        Method(interface: sessions, member: "CancelSession", signature: "s"),
        Method(interface: sessions, member: "WaitForSession", signature: "s"),
        Method(interface: sessions, member: "ListSessions", signature: ""),
        Method(interface: properties, member: "Get", signature: "ss"),
        Method(interface: properties, member: "GetAll", signature: "s"),
        Method(interface: properties, member: "Set", signature: "ssv"),
        Method(interface: introspectable, member: "Introspect", signature: ""),
        Method(interface: peer, member: "Ping", signature: ""),
        Method(interface: peer, member: "GetMachineId", signature: ""),
    ]

    /// Methods whose first argument is an app ID (the rest: `rest`).
    static let appMethods: [(interface: String, member: String)] = [
        (badges, "GetBadge"), (badges, "SetBadge"), (badges, "IncrementBadge"), (badges, "ClearBadge"),
        (apps, "DidBecomeActive"), (apps, "WillResignActive"), (apps, "DidEnterBackground"), (apps, "GetState"),
    ]

    /// Methods whose only argument is a session ID.
    static let sessionMethods = ["CompleteSession", "CancelSession", "WaitForSession"]

    /// Signals of the object and of workers: calling them as methods is an unknown member.
    static let signalNames: [(interface: String, member: String)] = [
        (badges, "BadgeChanged"), (apps, "StateChanged"), (sessions, "SessionCompleted"),
        (sessions, "NotificationPosted"), (worker, workerMember), (properties, "PropertiesChanged"),
        (worker, "HandleEventsForBackgroundSession"),
    ]

    /// The Daemon properties (all read-only).
    static let daemonProperties = ["Version", "NotificationServer", "ServerCapabilities", "PendingHandlers", "StateDirectory"]

    /// The event keys of SPEC and their one accepted type.
    static let eventKeys: [(key: String, signature: String)] = [
        ("kind", "s"), ("title", "s"), ("summary", "s"), ("body", "s"), ("path", "s"), ("uri", "s"),
        ("bytes-written", "t"), ("bytes-expected", "t"), ("error", "s"), ("result", "s"), ("sound", "s"),
        ("badge", "i"), ("notify", "b"), ("timeout", "u"),
    ]
    static let kinds = ["finished", "failed", "progress", "fetch"]
    static let results = ["new-data", "no-data", "failed"]
    static let maximumEventString = 4096
    static let timeoutRange: ClosedRange<UInt32> = 1...86400
    static let maximumBadge: UInt32 = 2_147_483_647
    static let pendingPerApp = 10_000

    /// Error names.
    enum Error {
        static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        static let invalidAppId = NotifydNames.errorPrefix + "InvalidAppId"
        static let invalidSessionId = NotifydNames.errorPrefix + "InvalidSessionId"
        static let outOfRange = NotifydNames.errorPrefix + "OutOfRange"
        static let unknownSession = NotifydNames.errorPrefix + "UnknownSession"
        static let limitExceeded = NotifydNames.errorPrefix + "LimitExceeded"
    }
}

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

    static let badges: [(String, UInt32)] = [
        (appA, badgeA), (appB, badgeB), (maxApp, Contract.maximumBadge), (nearApp, nearBadge),
    ]
}
