import DBus
import Testing

@testable import notifyctl

/// What `transfers` and `transfer show` print, from notifyd's replies
/// (no bus): the table, the JSON, the lines.
@Suite struct TransfersOutputTests {
    static let vardict = DBusType.dictionary(key: .string, value: .variant)

    static func row(_ id: UInt64, _ app: String, _ details: [String: DBusValue]) -> DBusValue {
        .structure([.uint64(id), .string(app), .string("s\(id)"), .vardict(details)])
    }

    /// A reply of `ListTransfers`, not in ID order.
    static let reply: [DBusValue] = [
        .array(
            element: .structure([.uint64, .string, .string, vardict]),
            [
                row(
                    12, "org.example.Get",
                    ["state": .string("waiting"), "bytes-done": .uint64(0), "bytes-total": .uint64(0),
                     "reason": .string("waiting for a network that is not metered")]),
                row(
                    3, "notifyctl",
                    ["state": .string("running"), "bytes-done": .uint64(23_500_000),
                     "bytes-total": .uint64(50_000_000), "reason": .string(""), "direction": .string("download")]),
                row(
                    9, "firefox",
                    ["state": .string("failed"), "bytes-done": .uint64(1_200), "bytes-total": .uint64(0),
                     "reason": .string("Not found (HTTP 404)"), "created": .int64(1_800_000_000_000_000),
                     "ended": .int64(1_800_000_060_000_000)]),
            ]),
    ]

    @Test func tableIsSortedByIDWithBytesAndReasons() throws {
        let transfers = try TransferInfo.list(from: Self.reply)
        #expect(transfers.map(\.id) == [3, 9, 12])
        #expect(
            TransferInfo.table(transfers) == [
                "ID  APP              STATE    PERCENT  BYTES          REASON",
                "3   notifyctl        running  47%      23.5MB/50.0MB  -",
                "9   firefox          failed   -        1.2kB/?        Not found (HTTP 404)",
                "12  org.example.Get  waiting  -        0B/?           waiting for a network that is not metered",
            ])
        #expect(TransferInfo.table([]).isEmpty, "nothing at all when there is no transfer")
    }

    @Test func aReplyOfAnotherShapeIsAnError() {
        #expect(throws: DBusError.self) { try TransferInfo.list(from: [.string("x")]) }
        #expect(throws: DBusError.self) {
            try TransferInfo.list(from: [.array(element: .string, [.string("x")])])
        }
    }

    @Test func jsonHasSnakeCaseKeysAndTimesTwice() throws {
        let failed = try #require(try TransferInfo.list(from: Self.reply).first { $0.id == 9 })
        #expect(
            failed.json.text == """
                {"id":9,"app":"firefox","session":"s9","state":"failed","reason":"Not found (HTTP 404)",\
                "bytes_done":1200,"bytes_total":0,"created":"2027-01-15T08:00:00.000Z","created_us":1800000000000000,\
                "ended":"2027-01-15T08:01:00.000Z","ended_us":1800000060000000}
                """)
    }

    @Test func showLinesInAFixedOrder() {
        let info = TransferInfo(
            id: 7, app: "notifyctl", session: "download-1",
            details: [
                "zz-extra": .boolean(true), "attempts": .uint32(2), "state": .string("running"),
                "path": .string("/home/u/Downloads/"), "url": .string("https://example.org/a.iso"),
                "direction": .string("download"), "title": .string("a.iso"), "reason": .string(""),
                "bytes-done": .uint64(500), "bytes-total": .uint64(1000), "created": .int64(1_800_000_000_000_000),
                "retry-at": .int64(1_800_000_030_000_000),
            ])
        #expect(
            info.lines { "T\($0 / 1_000_000_000_000)" } == [
                "id: 7", "app: notifyctl", "session: download-1", "direction: download", "title: a.iso",
                "url: https://example.org/a.iso", "path: /home/u/Downloads/", "state: running",
                "progress: 50% (500 B / 1.0 kB)", "bytes-done: 500", "bytes-total: 1000", "attempts: 2",
                "created: T1800", "retry-at: T1800", "zz-extra: true",
            ])
    }

    @Test func showMakesTheDaemonsTextPrintable() {
        let info = TransferInfo(id: 1, details: ["reason": .string("bad\u{1B}]0;title\u{07}")])
        #expect(info.lines { _ in "" } == ["id: 1", "reason: bad\\u{1b}]0;title\\u{7}"])
    }

    @Test func percentAndBytes() {
        #expect(TransferInfo(id: 1, details: ["state": .string("completed")]).percentText == "100%")
        #expect(TransferInfo(id: 1, details: ["bytes-done": .uint64(5)]).percentText == "-")
        #expect(TransferInfo(id: 1, details: ["bytes-done": .uint64(5)]).bytesText == "5 B")
        let over = TransferInfo(id: 1, details: ["bytes-done": .uint64(20), "bytes-total": .uint64(10)])
        #expect(over.percentText == "100%" && over.fraction == 1, "never more than 100%")
        #expect(TransferInfo(id: 1, details: [:]).state == "unknown")
    }
}
