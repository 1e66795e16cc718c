import DBus
import NotifyCore
import NotifyTestingCore

/// One call of the load section, with the arguments it was given.
enum LoadIntent {
    case getBadge
    case setBadge(UInt32)
    case incrementBadge(Int32)
    case listBadges
    /// A new session, one event.
    case handleEvents(session: String, event: [String: DBusValue])
    /// The oldest session with a pending handler.
    case completeSession(String)
    case getState
    case listSessions
    /// A property of the Daemon interface.
    case propertiesGet(String)
}

/// What notifyd must answer one load client, from that client's own calls
/// (no other client touches its app or its sessions), and the arguments of
/// its next call, drawn from a generator seeded by the client's number.
struct LoadExpectation {
    let app: String
    let client: Int
    /// The badge the app must have.
    var badge: UInt32 = 0
    private var generator: SplitMix64
    /// Sessions with one pending handler each, the oldest at `oldestPending`.
    private var pendingSessions: [String] = []
    private var oldestPending = 0

    /// The deadline of the handlers the client stores: longer than any run,
    /// so that none expires before the client completes it.
    static let handlerTimeoutSeconds: UInt32 = 600
    /// Daemon properties read by `Properties.Get`, in turn at random.
    static let properties = ["PendingHandlers", "Version", "NotificationServer"]

    init(app: String, client: Int) {
        self.app = app
        self.client = client
        generator = SplitMix64(seed: UInt64(client) &* 0x2545_f491_4f6c_dd1d)
    }

    var pendingCount: Int { pendingSessions.count - oldestPending }

    /// Removes and returns the oldest session still pending.
    mutating func takeOldestPending() -> String? {
        guard oldestPending < pendingSessions.count else { return nil }
        oldestPending += 1
        return pendingSessions[oldestPending - 1]
    }

    /// The arguments of the next call of `kind`.
    mutating func nextIntent(_ kind: LoadCall) -> LoadIntent {
        switch kind {
        case .getBadge: return .getBadge
        case .setBadge: return .setBadge(UInt32.random(in: 0...99, using: &generator))
        case .incrementBadge: return .incrementBadge(Int32.random(in: -3...5, using: &generator))
        case .listBadges: return .listBadges
        case .handleEvents:
            let number = pendingSessions.count + 1
            let session = "load-\(client)-\(number)"
            var event: [String: DBusValue] = [
                "title": .string("file-\(number).iso"), "notify": .boolean(false),
                "timeout": .uint32(Self.handlerTimeoutSeconds),
            ]
            if number % 5 == 0 {
                event["kind"] = .string("failed")
                event["error"] = .string("connection reset by peer")
            } else {
                event["path"] = .string("/tmp/notifyd-bench-load/file-\(number).iso")
            }
            return .handleEvents(session: session, event: event)
        case .completeSession:
            // The schedule puts a HandleEvents before every CompleteSession.
            return .completeSession(pendingSessions[min(oldestPending, pendingSessions.count - 1)])
        case .getState: return .getState
        case .listSessions: return .listSessions
        case .propertiesGet:
            return .propertiesGet(Self.properties[Int.random(in: 0..<Self.properties.count, using: &generator)])
        default:
            preconditionFailure("\(kind.rawValue) is not in the load's mix")
        }
    }

    /// A call that got an error reply changed nothing, except that a
    /// session that could not be completed is not tried again.
    mutating func failed(_ intent: LoadIntent) {
        if case .completeSession = intent { oldestPending += 1 }
    }

    /// Checks an answered call's reply and follows what it changed. Returns
    /// what was wrong, or nil. After a wrong badge the client takes
    /// notifyd's, so that one mistake counts once.
    mutating func check(_ intent: LoadIntent, _ reply: DBusMessage) -> String? {
        let arguments = (try? reply.arguments()) ?? []
        switch intent {
        case .getBadge, .incrementBadge:
            if case .incrementBadge(let delta) = intent { badge = UInt32(max(0, Int64(badge) + Int64(delta))) }
            guard reply.signature == "u", case .uint32(let answered) = arguments.first else {
                return "\(intent.member) answered '\(reply.signature)'"
            }
            defer { badge = answered }
            return answered == badge ? nil : "\(intent.member)(\(app)) answered \(answered), not \(badge)"
        case .setBadge(let count):
            badge = count
            return reply.signature == "" ? nil : "SetBadge answered '\(reply.signature)'"
        case .listBadges:
            guard reply.signature == "a{su}", let badges = try? arguments.decode(0, as: [String: UInt32].self) else {
                return "ListBadges answered '\(reply.signature)'"
            }
            let listed = badges[app]
            defer { badge = listed ?? 0 }
            return listed == (badge == 0 ? nil : badge)
                ? nil : "ListBadges listed \(app) with \(listed.map(String.init) ?? "nothing"), not \(badge)"
        case .handleEvents(let session, _):
            pendingSessions.append(session)
            badge = badge < UInt32(Int32.max) ? badge + 1 : badge
            guard reply.signature == "t", case .uint64(let id) = arguments.first, id > 0 else {
                return "HandleEventsForBackgroundSession answered '\(reply.signature)' \(arguments.first.map { "\($0)" } ?? "")"
            }
            return nil
        case .completeSession(let session):
            oldestPending += 1
            guard reply.signature == "u", case .uint32(let invoked) = arguments.first else {
                return "CompleteSession answered '\(reply.signature)'"
            }
            return invoked == 1 ? nil : "CompleteSession(\(session)) invoked \(invoked) handlers, not 1"
        case .getState:
            guard reply.signature == "s", case .string(let state) = arguments.first else {
                return "GetState answered '\(reply.signature)'"
            }
            return state == "not-running" ? nil : "GetState(\(app)) answered \(state), not not-running"
        case .listSessions:
            return checkSessions(reply.signature, arguments)
        case .propertiesGet(let name):
            let type = name == "PendingHandlers" ? "u" : "s"
            guard reply.signature == "v", case .variant(let value) = arguments.first, value.signature == type else {
                return "Properties.Get(\(name)) answered '\(reply.signature)', not a variant of '\(type)'"
            }
            return nil
        }
    }

    /// The app's sessions in the listing must hold exactly the handlers the
    /// client stored and did not complete.
    private func checkSessions(_ signature: String, _ arguments: [DBusValue]) -> String? {
        guard signature == "a(ssua{sv})", case .array(_, let rows) = arguments.first else {
            return "ListSessions answered '\(signature)'"
        }
        var listed = 0
        for case .structure(let fields) in rows where fields.count == 4 && fields[1] == .string(app) {
            if case .uint32(let pending) = fields[2] { listed += Int(pending) }
        }
        return listed == pendingCount ? nil : "ListSessions listed \(listed) pending handlers of \(app), not \(pendingCount)"
    }
}

extension LoadIntent {
    var interface: String {
        switch self {
        case .getBadge, .setBadge, .incrementBadge, .listBadges: NotifydNames.badgesInterface
        case .handleEvents, .completeSession, .listSessions: NotifydNames.sessionsInterface
        case .getState: NotifydNames.appsInterface
        case .propertiesGet: "org.freedesktop.DBus.Properties"
        }
    }

    var member: String {
        switch self {
        case .getBadge: "GetBadge"
        case .setBadge: "SetBadge"
        case .incrementBadge: "IncrementBadge"
        case .listBadges: "ListBadges"
        case .handleEvents: "HandleEventsForBackgroundSession"
        case .completeSession: "CompleteSession"
        case .getState: "GetState"
        case .listSessions: "ListSessions"
        case .propertiesGet: "Get"
        }
    }

    /// The call's arguments; `app` is the client's.
    func arguments(app: String) -> [DBusValue] {
        switch self {
        case .getBadge, .getState: [.string(app)]
        case .listBadges, .listSessions: []
        case .setBadge(let count): [.string(app), .uint32(count)]
        case .incrementBadge(let delta): [.string(app), .int32(delta)]
        case .handleEvents(let session, let event): [.string(session), .string(app), .vardict(event)]
        case .completeSession(let session): [.string(session)]
        case .propertiesGet(let name): [.string(NotifydNames.daemonInterface), .string(name)]
        }
    }
}
