import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// The list-sessions section's calls on its notifyd: storing the sessions,
/// `ListSessions` and checking its reply, `PendingHandlers`.
struct ListSessionsClient {
    /// The benchmark's connection to the section's bus (blocking calls only).
    let connection: DBusConnection

    /// How long notifyd may take to store one batch of signals.
    static let storeWaitSeconds = 120.0
    /// Signals sent before waiting for notifyd to count them.
    static let batch = 10_000

    /// The app of session `index`: 10,000 sessions per app.
    static func app(of index: Int, perApp: Int) -> String { "org.notifyd.BenchList.A\(index / perApp)" }

    /// Stores one pending handler on each of `sessions` sessions, by worker
    /// signals from a connection of their own, a batch at a time; each event
    /// also carries `extra` (the limits section: `badge` 0).
    func populate(
        sessions: Int, perApp: Int, address: String, extra: [String: DBusValue] = [:],
        session: (Int) -> String = { "bench-list-\($0)" }, app: (Int, Int) -> String = Self.app(of:perApp:)
    ) throws(BenchFailure) {
        let sender = try EventBurst.sender(address: address)
        var sent = 0
        while sent < sessions {
            let end = min(sent + Self.batch, sessions)
            var messages: [DBusMessage] = []
            for index in sent..<end {
                do {
                    messages.append(
                        try DBusMessage.signal(
                            path: EventBurst.path, interface: EventBurst.workerInterface, member: EventBurst.member,
                            arguments: [
                                .string(session(index)), .string(app(index, perApp)),
                                .vardict(
                                    [
                                        "title": .string("file-\(index)"), "notify": .boolean(false),
                                        "timeout": .uint32(86_400),
                                    ].merging(extra) { _, new in new }),
                            ]))
                } catch {
                    throw BenchFailure("cannot build a worker signal: \(error)")
                }
            }
            _ = try EventBurst.send(messages, on: sender)
            try waitForPending(end)
            sent = end
        }
        withExtendedLifetime(sender) {}
    }

    private func waitForPending(_ count: Int) throws(BenchFailure) {
        let deadline = MonotonicClock.nanoseconds() + UInt64(Self.storeWaitSeconds * 1e9)
        while try pendingHandlers() < count {
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchFailure("notifyd did not store \(count) pending handlers within \(Int(Self.storeWaitSeconds)) s.")
            }
            usleep(20_000)
        }
    }

    /// Calls `ListSessions` and returns the reply as received.
    func listSessions() throws(BenchFailure) -> DBusMessage {
        do {
            let call = try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.sessionsInterface, member: "ListSessions")
            return try connection.call(call, timeoutMilliseconds: 120_000)
        } catch {
            throw BenchFailure("ListSessions failed: \(error)")
        }
    }

    /// Checks the reply's signature, its row count and the order of its
    /// session IDs (sorted); returns the row count.
    func checkedRows(_ reply: DBusMessage, expected: Int) throws(BenchFailure) -> Int {
        guard reply.signature == "a(ssua{sv})" else {
            throw BenchFailure("ListSessions answered '\(reply.signature)', expected 'a(ssua{sv})'.")
        }
        let rows: [DBusValue]
        do {
            guard case .array(_, let values)? = try reply.arguments().first else {
                throw BenchFailure("ListSessions answered no array.")
            }
            rows = values
        } catch let error as BenchFailure {
            throw error
        } catch {
            throw BenchFailure("cannot decode the ListSessions reply: \(error)")
        }
        guard rows.count == expected else {
            throw BenchFailure("ListSessions gave \(rows.count) rows, expected \(expected).")
        }
        var previous: String?
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 4, case .string(let id) = fields[0],
                case .uint32(1) = fields[2]
            else { throw BenchFailure("a ListSessions row is not (session, app, 1 pending, details): \(row)") }
            if let previous, !(previous < id) {
                throw BenchFailure("ListSessions rows are not sorted: '\(previous)' before '\(id)'.")
            }
            previous = id
        }
        return rows.count
    }

    /// The Daemon property `PendingHandlers` (a long timeout: notifyd may be storing a burst).
    func pendingHandlers() throws(BenchFailure) -> Int {
        try connection.notifydPendingHandlers(timeoutMilliseconds: 120_000)
    }
}
