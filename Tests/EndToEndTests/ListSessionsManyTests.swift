import DBus
import Foundation
import Testing
import NotifyTesting

/// `ListSessions` with thousands of sessions: notifyd writes the reply a
/// piece per turn of its loop, from runs of 4,096 rows sorted apart and
/// merged. The rows must still be every session, in session-ID order, with
/// the same content as ever, and a sandboxed caller must still see only
/// its own app's.
@Suite struct ListSessionsManyTests {
    let fixture: Fixture
    /// More than one run of rows (4,096), so that runs are merged.
    static let count = 9_000

    init() throws {
        fixture = try Fixture()
    }

    /// Session `index`: IDs that do not sort as they are numbered, some not ASCII.
    static func id(_ index: Int) -> String {
        switch index % 4 {
        case 0: "dl-\(index)"
        case 1: "Ü-\(String(index, radix: 16))"
        case 2: "z\(index % 97)-\(index)"
        default: "A \(index)"
        }
    }

    static func app(_ index: Int) -> String { "org.example.Many\(index % 3)" }

    /// What session `index` is sent, and so what its row must say (handlers
    /// with a deadline of an hour: none expires during the test).
    static func events(_ index: Int) -> [[String: DBusValue]] {
        sent(index).map { $0["kind"] == .string("progress") ? $0 : $0.merging(["timeout": .uint32(3_600)]) { a, _ in a } }
    }

    private static func sent(_ index: Int) -> [[String: DBusValue]] {
        switch index % 5 {
        case 0: [["kind": .string("progress"), "bytes-written": .uint64(25), "bytes-expected": .uint64(100)]]
        case 1: [["title": .string("a"), "notify": .boolean(false), "bytes-written": .uint64(7), "bytes-expected": .uint64(7)]]
        case 2: [["kind": .string("failed"), "notify": .boolean(false)], ["notify": .boolean(false)]]
        default: [["notify": .boolean(false)]]
        }
    }

    /// Sends every event as worker signals, then waits until notifyd holds them all.
    func store(_ indices: Range<Int>, app: (Int) -> String = Self.app) throws {
        var handlers = 0
        for index in indices {
            for event in Self.events(index) {
                try fixture.client.emitSignal(
                    path: "/org/example/Worker", interface: Fixture.worker, member: "EventsForBackgroundSession",
                    [.string(Self.id(index)), .string(app(index)), .vardict(event)])
                if event["kind"] != .string("progress") { handlers += 1 }
            }
        }
        fixture.client.flush()
        try waitUntil("notifyd stored \(handlers) handlers", seconds: 60) {
            try fixture.property("PendingHandlers") == .uint32(UInt32(handlers))
        }
    }

    @Test func everySessionInOrderWithItsDetails() throws {
        try store(0..<Self.count)
        let rows: [DBusValue] = try fixture.call(Fixture.sessions, "ListSessions").decode(0)
        #expect(rows.count == Self.count)
        let expectedOrder = (0..<Self.count).map(Self.id).sorted()
        var seen: [String] = []
        let indexByID = Dictionary(uniqueKeysWithValues: (0..<Self.count).map { (Self.id($0), $0) })
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 4, case .string(let id) = fields[0],
                case .dictionary(_, _, let entries) = fields[3], let index = indexByID[id]
            else {
                Issue.record("unexpected row \(row)")
                continue
            }
            seen.append(id)
            let events = Self.events(index)
            let handlers = events.filter { $0["kind"] != .string("progress") }.count
            #expect(fields[1] == .string(Self.app(index)))
            #expect(fields[2] == .uint32(UInt32(handlers)))
            let keys = entries.compactMap { entry -> String? in
                if case .string(let key) = entry.key { return key }
                return nil
            }
            #expect(keys == keys.sorted(), "details keys in sorted order: \(keys)")
            var details: [String: DBusValue] = [:]
            for entry in entries {
                if case .string(let key) = entry.key, case .variant(let value) = entry.value { details[key] = value }
            }
            #expect(details["events"] == .uint32(UInt32(events.count)))
            if case .int64(let lastEvent)? = details["last-event"] {
                #expect(lastEvent > 1_600_000_000_000_000)
            } else {
                Issue.record("no last-event in \(details)")
            }
            switch index % 5 {
            case 0:
                #expect(Set(keys) == ["bytes-expected", "bytes-written", "events", "in-progress", "last-event", "progress"])
                #expect(details["progress"] == .double(0.25) && details["in-progress"] == .boolean(true))
            case 1:
                #expect(details["progress"] == .double(1) && details["bytes-written"] == .uint64(7))
                #expect(details["in-progress"] == .boolean(false))
            default:
                #expect(Set(keys) == ["events", "in-progress", "last-event"])
            }
        }
        #expect(seen == expectedOrder, "rows sorted by session ID, each once")
    }

    @Test func aCompletedSessionShowsItsResult() throws {
        try store(0..<5_000)
        #expect(try fixture.call(Fixture.sessions, "CompleteSession", [.string(Self.id(3))]) == [.uint32(1)])
        let sessions = try fixture.sessions()
        #expect(sessions.count == 5_000)
        #expect(sessions[Self.id(3)]?.pending == 0)
        #expect(sessions[Self.id(3)]?.details["last-result"] == .string("completed"))
        #expect(sessions[Self.id(7)]?.pending == 2, "7 % 5 == 2: two events")
    }

    @Test func aSandboxedCallerSeesOnlyItsOwnSessions() throws {
        if let reason = SandboxedClient.unavailableReason {
            Issue.record("cannot test what a sandboxed caller sees here: \(reason)")
            return
        }
        try store(0..<6_000) { $0 % 1_000 == 0 ? "org.example.Sandboxed" : Self.app($0) }
        let result = try SandboxedClient.run(
            appID: "org.example.Sandboxed", Executables.notifyctl, ["sessions", "--json"],
            environment: fixture.daemon.environment, scratch: fixture.bus.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let ids = objects.compactMap { $0["session"] as? String }
        #expect(ids == stride(from: 0, to: 6_000, by: 1_000).map(Self.id).sorted())
        #expect(objects.allSatisfy { $0["app"] as? String == "org.example.Sandboxed" })
        #expect(try fixture.sessions().count == 6_000, "the host sees them all")
    }
}
