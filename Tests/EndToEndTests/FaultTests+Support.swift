import DBus
import Foundation
import Testing
import NotifyTesting

extension FaultTests {
    /// A file system of its own for a test's state, made by `mount`; nil,
    /// with the reason recorded as an issue (a failure, not a skip), where
    /// mounts cannot be made. `what` ends "cannot test WHAT here".
    static func scratchDisk(_ what: String, _ mount: () throws -> ScratchMount) throws -> ScratchMount? {
        if let reason = ScratchMount.unavailableReason {
            Issue.record("cannot test \(what) here: \(reason)")
            return nil
        }
        return try mount()
    }
}

/// One call of a fault test's stream.
enum StreamedCall {
    /// An event with a session of its own (one handler), no popup, a day's deadline.
    case event(session: String, app: String)
    /// IncrementBadge by 1.
    case increment(app: String)

    func message() throws -> DBusMessage {
        switch self {
        case .event(let session, let app):
            try FaultClient.event(session, app: app, ["notify": .boolean(false), "timeout": .uint32(86_400)])
        case .increment(let app):
            try FaultClient.message(FaultClient.badges, "IncrementBadge", [.string(app), .int32(1)])
        }
    }
}

/// What the calls of a fault test were told, and so what notifyd must hold
/// after a restart: every answered event's handler (once), every answered
/// increment, nothing that was not sent, nothing twice, and everything an
/// earlier restart found.
struct DurabilityBook {
    private(set) var callsSent = 0
    private(set) var callsAnswered = 0
    /// Session → app, for every event sent.
    private var sessionsSent: [String: String] = [:]
    private var sessionsAnswered: Set<String> = []
    private var handlerIDs: Set<UInt64> = []
    private var eventsSent: [String: Int] = [:]
    private var eventsAnswered: [String: Int] = [:]
    private var incrementsSent: [String: Int] = [:]
    private var incrementsAnswered: [String: Int] = [:]
    /// The counts answered increments returned, per app (each one once).
    private var incrementReplies: [String: Set<UInt32>] = [:]
    /// What the previous restart found: it was committed, so it stays.
    private var sessionsFound: Set<String> = []
    private var badgesFound: [String: UInt32] = [:]

    /// The errors a call may get when notifyd dies under it: no reply, name gone.
    static let errorsOfALostPeer: Set<String> = [
        DBusError.Name.noReply, DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner,
    ]

    /// Notes how each call ended (`unfinished`: sent, never ended). An
    /// error not in `allowed`, a handler ID given twice or two increments
    /// that returned the same count are a test failure; returns false then.
    @discardableResult
    mutating func record(
        _ outcomes: [CallStream.Outcome], unfinished: [Int] = [], of calls: [StreamedCall], round: Int,
        allowing allowed: Set<String> = errorsOfALostPeer, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        for index in outcomes.map(\.index) + unfinished {
            callsSent += 1
            switch calls[index] {
            case .event(let session, let app):
                sessionsSent[session] = app
                eventsSent[app, default: 0] += 1
            case .increment(let app):
                incrementsSent[app, default: 0] += 1
            }
        }
        var unexpected: [String] = []
        for outcome in outcomes {
            guard let reply = outcome.reply else {
                if let error = outcome.error, !allowed.contains(error.name) {
                    unexpected.append("round \(round), call \(outcome.index): \(error)")
                }
                continue
            }
            callsAnswered += 1
            switch (calls[outcome.index], reply.first) {
            case (.event(let session, let app), .uint64(let id)?):
                sessionsAnswered.insert(session)
                eventsAnswered[app, default: 0] += 1
                if id == 0 || !handlerIDs.insert(id).inserted {
                    unexpected.append("round \(round): handler ID \(id), answered for \(session), was given before")
                }
            case (.increment(let app), .uint32(let count)?):
                incrementsAnswered[app, default: 0] += 1
                if !incrementReplies[app, default: []].insert(count).inserted {
                    unexpected.append("round \(round): two answered increments of \(app) both returned \(count)")
                }
            default:
                unexpected.append("round \(round), call \(outcome.index): unexpected reply \(reply)")
            }
        }
        #expect(
            unexpected.isEmpty, "\(unexpected.count) unexpected outcome(s): \(unexpected.prefix(10))",
            sourceLocation: sourceLocation)
        return unexpected.isEmpty
    }

    /// Checks what notifyd holds now against everything recorded so far;
    /// returns false (after recording the failure) when something is wrong.
    @discardableResult
    mutating func verify(
        _ client: FaultClient, round: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Bool {
        let sessions = try client.sessions()
        let badges: [String: UInt32] = try client.call(FaultClient.badges, "ListBadges").decode(0)
        let pendingHandlers = try client.property("PendingHandlers")
        var problems: [String] = []

        // Every answered event has its handler, once; nothing unsent is there.
        for session in sessionsAnswered where sessions[session]?.pending != 1 {
            problems.append("answered \(session) has \(sessions[session]?.pending ?? 0) pending handler(s), expected 1")
        }
        var handlersByApp: [String: Int] = [:]
        var pendingTotal = 0
        for (session, found) in sessions {
            pendingTotal += Int(found.pending)
            guard let app = sessionsSent[session] else {
                problems.append("\(session) was never sent")
                continue
            }
            handlersByApp[app, default: 0] += Int(found.pending)
            if found.app != app { problems.append("\(session) belongs to \(found.app), sent for \(app)") }
            if found.pending > 1 { problems.append("\(session) has \(found.pending) handlers for 1 event sent") }
            if let events = found.details["events"], events != .uint32(1) {
                problems.append("\(session) counts \(events) events for 1 sent")
            }
        }
        for session in sessionsFound where sessions[session] == nil {
            problems.append("\(session), there after an earlier restart, is gone")
        }
        if pendingHandlers != .uint32(UInt32(pendingTotal)) {
            problems.append("PendingHandlers is \(pendingHandlers), the sessions hold \(pendingTotal)")
        }

        // An event and its badge delta commit together: an app's badge is its handler count.
        for (app, sent) in eventsSent {
            let badge = Int(badges[app] ?? 0)
            let handlers = handlersByApp[app] ?? 0
            let answered = eventsAnswered[app] ?? 0
            if badge != handlers { problems.append("\(app): badge \(badge) but \(handlers) handlers") }
            if !(answered...sent).contains(handlers) {
                problems.append("\(app): \(handlers) handlers, \(answered) events answered, \(sent) sent")
            }
        }
        // Every answered increment counts, and nothing counts twice.
        for (app, sent) in incrementsSent {
            let badge = badges[app] ?? 0
            let answered = incrementsAnswered[app] ?? 0
            if !(answered...sent).contains(Int(badge)) {
                problems.append("\(app): badge \(badge), \(answered) increments answered, \(sent) sent")
            }
            if let highest = incrementReplies[app]?.max(), badge < highest {
                problems.append("\(app): badge \(badge), but an answered increment returned \(highest)")
            }
        }
        for (app, badge) in badgesFound where (badges[app] ?? 0) < badge {
            problems.append("\(app): badge \(badges[app] ?? 0), was \(badge) after an earlier restart")
        }
        sessionsFound = Set(sessions.keys)
        badgesFound = badges
        #expect(
            problems.isEmpty, "after restart \(round + 1): \(problems.count) problem(s): \(problems.prefix(10))",
            sourceLocation: sourceLocation)
        return problems.isEmpty
    }
}

/// notifyd's methods over a blocking connection, each call bounded (10 s).
struct FaultClient {
    static let busName = "org.notifyd.Notifyd1"
    static let path = "/org/notifyd/Notifyd1"
    static let badges = "org.notifyd.Notifyd1.Badges"
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    static let timeoutMilliseconds: Int32 = 10_000

    let connection: DBusConnection

    init(_ connection: DBusConnection) { self.connection = connection }

    init(address: String) throws { connection = try DBusConnection.connect(to: .address(address)) }

    static func message(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> DBusMessage {
        try DBusMessage.methodCall(
            destination: busName, path: path, interface: interface, member: member, arguments: arguments)
    }

    static func event(_ session: String, app: String, _ event: [String: DBusValue]) throws -> DBusMessage {
        try message(sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict(event)])
    }

    @discardableResult
    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.call(Self.message(interface, member, arguments), timeoutMilliseconds: Self.timeoutMilliseconds)
            .arguments()
    }

    /// The error a call fails with, nil if it succeeds.
    func failure(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) -> DBusError? {
        do {
            try call(interface, member, arguments)
            return nil
        } catch {
            return error as? DBusError ?? .failed("\(error)")
        }
    }

    /// Reports an event with the method; returns the handler ID.
    @discardableResult
    func event(_ session: String, app: String, _ event: [String: DBusValue]) throws -> UInt64 {
        try connection.call(Self.event(session, app: app, event), timeoutMilliseconds: Self.timeoutMilliseconds)
            .arguments().decode(0)
    }

    /// The error an event fails with, nil if it is stored.
    func eventFailure(_ session: String, app: String, _ event: [String: DBusValue]) -> DBusError? {
        failure(Self.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict(event)])
    }

    func badge(_ app: String) throws -> UInt32 {
        try call(Self.badges, "GetBadge", [.string(app)]).decode(0)
    }

    func setBadge(_ app: String, _ count: UInt32) throws {
        try call(Self.badges, "SetBadge", [.string(app), .uint32(count)])
    }

    /// A property of the Daemon interface.
    func property(_ name: String) throws -> DBusValue {
        try call("org.freedesktop.DBus.Properties", "Get", [.string("org.notifyd.Notifyd1.Daemon"), .string(name)])
            .decode(0)
    }

    /// ListSessions as (app, pending, details) by session ID.
    func sessions() throws -> [String: (app: String, pending: UInt32, details: [String: DBusValue])] {
        guard case .array(_, let rows)? = try call(Self.sessions, "ListSessions").first else { return [:] }
        var result: [String: (app: String, pending: UInt32, details: [String: DBusValue])] = [:]
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 4,
                case .string(let id) = fields[0], case .string(let app) = fields[1],
                case .uint32(let pending) = fields[2]
            else { continue }
            result[id] = (app, pending, (try? [String: DBusValue](dbusValue: fields[3])) ?? [:])
        }
        return result
    }

    /// Waits (bounded) until nobody owns `name` on the bus (asking the bus, not notifyd).
    func waitUntilUnowned(_ name: String, seconds: Double = 5) throws {
        try waitUntil("nobody owns \(name)", seconds: seconds) {
            let owned: Bool = try connection.callBus("NameHasOwner", [.string(name)]).decode(0)
            return !owned
        }
    }
}

/// A small, seedable random number generator (SplitMix64), so that a
/// failing run can be replayed.
struct FaultRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
