import DBus
import Testing

@testable import notifyctl

/// `notifyctl sessions`: the reply of ListSessions as a table and as JSON.
@Suite struct SessionsOutputTests {
    /// One `(ssua{sv})` entry of the reply.
    static func entry(_ session: String, _ app: String, _ pending: UInt32, _ details: [String: DBusValue]) -> DBusValue {
        .structure([.string(session), .string(app), .uint32(pending), .vardict(details)])
    }

    static func reply(_ entries: [DBusValue]) -> [DBusValue] {
        [.array(element: .structure([.string, .string, .uint32, .dictionary(key: .string, value: .variant)]), entries)]
    }

    static let sample = reply([
        entry("dl-2", "firefox", 0, [
            "events": .uint32(1), "last-event": .int64(1_795_255_200_123_456), "progress": .double(0.456),
            "in-progress": .boolean(true), "bytes-written": .uint64(456), "bytes-expected": .uint64(1000),
        ]),
        entry("dl-10", "org.gnome.Nautilus", 2, [
            "events": .uint32(12), "last-event": .int64(1_795_255_260_000_000), "last-result": .string("completed"),
        ]),
    ])

    /// Local time as UTC+01:00, whatever the machine's zone.
    static func plusOne(_ micros: Int64) -> String {
        Timestamp.local(unixMicroseconds: micros, utcOffsetSeconds: 3600)
    }

    @Test func decodesSortedBySession() throws {
        let sessions = try SessionSummary.list(from: Self.sample)
        #expect(sessions.map(\.session) == ["dl-10", "dl-2"])
        #expect(sessions[0].app == "org.gnome.Nautilus")
        #expect(sessions[0].pending == 2)
        #expect(sessions[0].events == 12)
        #expect(sessions[0].progress == nil)
        #expect(sessions[1].progress == 0.456)
        #expect(sessions[1].lastEvent == 1_795_255_200_123_456)
    }

    @Test func table() throws {
        let lines = SessionSummary.table(try SessionSummary.list(from: Self.sample), localTime: Self.plusOne)
        #expect(
            lines == [
                "SESSION  APP                 PENDING  EVENTS  PROGRESS  LAST-EVENT                 DETAILS",
                "dl-10    org.gnome.Nautilus  2        12      -         2026-11-21T11:01:00+01:00  last-result=completed",
                "dl-2     firefox             0        1       45%       2026-11-21T11:00:00+01:00  bytes-expected=1000 bytes-written=456 in-progress=true",
            ])
    }

    @Test func noSessionsPrintNothing() throws {
        #expect(SessionSummary.table(try SessionSummary.list(from: Self.reply([])), localTime: Self.plusOne) == [])
        #expect(JSON.array(try SessionSummary.list(from: Self.reply([])).map(\.json)).text == "[]")
    }

    @Test func missingDetailsShowAsDashes() throws {
        let sessions = try SessionSummary.list(from: Self.reply([Self.entry("weird id", "a", 1, [:])]))
        #expect(SessionSummary.table(sessions, localTime: Self.plusOne)[1] == #""weird id"  a    1        -       -         -           -"#)
    }

    @Test func progressIsClampedAndRoundedDown() throws {
        for (progress, shown) in [(0.999, "99%"), (1.0, "100%"), (1.5, "100%"), (-0.1, "0%"), (Double.nan, "-")] {
            let session = SessionSummary(session: "s", app: "a", pending: 0, details: [("progress", .double(progress))])
            #expect(session.row(localTime: Self.plusOne)[4] == shown, "\(progress)")
        }
    }

    @Test func json() throws {
        let sessions = try SessionSummary.list(from: Self.sample)
        #expect(
            JSON.array(sessions.map(\.json)).text
                == #"[{"session":"dl-10","app":"org.gnome.Nautilus","pending":2,"events":12,"last_event":"2026-11-21T10:01:00.000Z","last_event_us":1795255260000000,"last_result":"completed"},"#
                + #"{"session":"dl-2","app":"firefox","pending":0,"bytes_expected":1000,"bytes_written":456,"events":1,"in_progress":true,"last_event":"2026-11-21T10:00:00.123Z","last_event_us":1795255200123456,"progress":0.456}]"#)
    }

    @Test(arguments: [
        [DBusValue](),
        [.string("x")],
        [.array(element: .string, [.string("x")])],
        [.array(element: .structure([.string, .string]), [.structure([.string("s"), .string("a")])])],
        [.array(element: .structure([.string, .string, .int32, .string]), [.structure([.string("s"), .string("a"), .int32(1), .string("")])])],
    ])
    func aReplyOfAnotherShapeIsRefused(_ reply: [DBusValue]) {
        #expect(throws: DBusError.self) { try SessionSummary.list(from: reply) }
    }
}
