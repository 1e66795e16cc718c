import DBus
import NotifyCore
import NotifyTestingCore

/// One call of a soak client: what it is and its message's parts.
struct SoakIntent {
    let call: SoakCall
    let interface: String
    let member: String
    let arguments: [DBusValue]
    /// For `HandleEventsForBackgroundSession`: the session, and whether the
    /// client will complete it (else its handler is left to expire).
    var session: (id: String, deadline: UInt64, completes: Bool)?
    /// For `FetchNow`: the app, and whether the client will complete it.
    var fetch: (app: String, completes: Bool)?
    /// For `CompleteFetch` and `EndBackgroundTask`: which one it ends.
    var ends: UInt64?

    init(_ call: SoakCall, _ interface: String, _ arguments: [DBusValue]) {
        self.call = call
        self.interface = interface
        member = call.member
        self.arguments = arguments
    }
}

/// What a soak client has started and not yet ended, so that each of its
/// calls is one notifyd must accept, and the state it leaves stays bounded:
/// at most ``pendingPerApp`` pending handlers per app it completes (plus
/// those left to expire, each within 20 s), at most one fetch per app,
/// at most ``tasksAtOnce`` tasks.
struct SoakClientBook {
    /// Sessions the client will complete, oldest first, with their deadlines.
    private var pending: [(id: String, deadline: UInt64)] = []
    /// Fetches running, by app, with when each may be started again (for
    /// one left to expire: after its 30 s and a margin).
    private var fetches: [String: (id: UInt64?, completes: Bool, busyUntil: UInt64)] = [:]
    private var tasks: [UInt64] = []
    private var sessionsMade = 0

    static let pendingPerApp = 3
    static let tasksAtOnce = 4
    /// A session is completed only while its handler has this long left.
    static let completionMargin: UInt64 = 2_000_000_000

    private static let sessions = NotifydNames.sessionsInterface
    private static let badges = NotifydNames.badgesInterface
    private static let appsInterface = NotifydNames.appsInterface
    private static let fetch = NotifydNames.fetchInterface
    private static let tasksInterface = NotifydNames.tasksInterface

    /// The call to make for `wanted`, or the one that makes it possible.
    mutating func intent(
        for wanted: SoakCall, app: String, apps: ArraySlice<String>, now: UInt64, using generator: inout SplitMix64
    ) -> SoakIntent {
        pending.removeAll { $0.deadline < now + Self.completionMargin }
        switch wanted {
        case .getBadge: return SoakIntent(.getBadge, Self.badges, [.string(app)])
        case .setBadge: return SoakIntent(.setBadge, Self.badges, [.string(app), .uint32(.random(in: 1...99, using: &generator))])
        case .incrementBadge:
            return SoakIntent(.incrementBadge, Self.badges, [.string(app), .int32(.random(in: 1...5, using: &generator))])
        case .listBadges: return SoakIntent(.listBadges, Self.badges, [])
        case .didBecomeActive: return SoakIntent(.didBecomeActive, Self.appsInterface, [.string(app)])
        case .willResignActive: return SoakIntent(.willResignActive, Self.appsInterface, [.string(app)])
        case .getState: return SoakIntent(.getState, Self.appsInterface, [.string(app)])
        case .setFetchInterval:
            // Never or at least a day: no scheduled fetch comes during a soak
            // to collide with the client's own FetchNow.
            let seconds: UInt32 = [0, 86_400, 604_800].randomElement(using: &generator)!
            return SoakIntent(.setFetchInterval, Self.fetch, [.string(app), .uint32(seconds)])
        case .getFetchSchedule: return SoakIntent(.getFetchSchedule, Self.fetch, [.string(app)])
        case .listSessions: return SoakIntent(.listSessions, Self.sessions, [])
        case .propertiesGet:
            return SoakIntent(
                .propertiesGet, "org.freedesktop.DBus.Properties",
                [.string(NotifydNames.daemonInterface), .string("PendingHandlers")])
        case .handleEvents, .completeSession:
            return sessionIntent(wanted, app: app, apps: apps, now: now, using: &generator)
        case .fetchNow, .completeFetch:
            return fetchIntent(wanted, apps: apps, now: now, using: &generator)
        case .beginTask, .endTask:
            return taskIntent(wanted, app: app, using: &generator)
        }
    }

    private mutating func sessionIntent(
        _ wanted: SoakCall, app: String, apps: ArraySlice<String>, now: UInt64, using generator: inout SplitMix64
    ) -> SoakIntent {
        if wanted == .completeSession, let oldest = pending.first {
            pending.removeFirst()
            return SoakIntent(.completeSession, Self.sessions, [.string(oldest.id)])
        }
        if pending.count >= Self.pendingPerApp * apps.count, let oldest = pending.first {
            pending.removeFirst()
            return SoakIntent(.completeSession, Self.sessions, [.string(oldest.id)])
        }
        sessionsMade += 1
        let timeout: UInt32 = sessionsMade % 2 == 0 ? 10 : 20
        let id = "soak-\(app)-\(sessionsMade)"
        var event: [String: DBusValue] = [
            "title": .string("file-\(sessionsMade).iso"), "timeout": .uint32(timeout),
            "notify": .boolean(sessionsMade % 4 == 0), "sound": .string(""),
        ]
        if sessionsMade % 5 == 0 {
            event["kind"] = .string("failed")
            event["error"] = .string("connection reset by peer")
        } else {
            event["path"] = .string("/tmp/notifyd-bench-soak/file-\(sessionsMade).iso")
        }
        var intent = SoakIntent(.handleEvents, Self.sessions, [.string(id), .string(app), .vardict(event)])
        intent.session = (id, now + UInt64(timeout) * 1_000_000_000, sessionsMade % 10 != 0)
        return intent
    }

    private mutating func fetchIntent(
        _ wanted: SoakCall, apps: ArraySlice<String>, now: UInt64, using generator: inout SplitMix64
    ) -> SoakIntent {
        if wanted == .completeFetch,
            let (app, running) = fetches.first(where: { $0.value.completes && $0.value.id != nil }),
            let id = running.id
        {
            fetches[app] = nil
            let result = ["new-data", "no-data", "failed"].randomElement(using: &generator)!
            var intent = SoakIntent(.completeFetch, Self.fetch, [.uint64(id), .string(result)])
            intent.ends = id
            return intent
        }
        fetches = fetches.filter { $0.value.completes || $0.value.busyUntil > now }
        guard let app = apps.filter({ fetches[$0] == nil }).randomElement(using: &generator) else {
            return SoakIntent(.listBadges, Self.badges, [])
        }
        var intent = SoakIntent(.fetchNow, Self.fetch, [.string(app)])
        intent.fetch = (app, UInt64.random(in: 0..<20, using: &generator) != 0)
        return intent
    }

    private mutating func taskIntent(_ wanted: SoakCall, app: String, using generator: inout SplitMix64) -> SoakIntent {
        if (wanted == .endTask || tasks.count >= Self.tasksAtOnce), !tasks.isEmpty {
            let id = tasks.removeFirst()
            var intent = SoakIntent(.endTask, Self.tasksInterface, [.uint64(id)])
            intent.ends = id
            return intent
        }
        return SoakIntent(.beginTask, Self.tasksInterface, [.string(app), .string("sync")])
    }

    /// Takes note of what an answered call started.
    mutating func answered(_ intent: SoakIntent, reply: DBusMessage, now: UInt64, using generator: inout SplitMix64) {
        switch intent.call {
        case .handleEvents:
            if let session = intent.session, session.completes { pending.append((session.id, session.deadline)) }
        case .fetchNow:
            guard let fetch = intent.fetch, let id: UInt64 = try? reply.arguments().decode(0) else { return }
            // One left to expire keeps its app out of FetchNow for its 30 s and a margin.
            fetches[fetch.app] = (id, fetch.completes, now + 35_000_000_000)
        case .beginTask:
            if let id: UInt64 = try? reply.arguments().decode(0) { tasks.append(id) }
        default: break
        }
    }

    /// The calls that end what is still running at the end: tasks, fetches.
    func cleanUpIntents() -> [SoakIntent] {
        tasks.map { SoakIntent(.endTask, Self.tasksInterface, [.uint64($0)]) }
            + fetches.values.compactMap { fetch in
                guard fetch.completes, let id = fetch.id else { return nil }
                return SoakIntent(.completeFetch, Self.fetch, [.uint64(id), .string("no-data")])
            }
    }
}
