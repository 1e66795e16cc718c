import DBus
import NotifyCore
import Testing

@testable import NotifyDaemon

/// The pieces of a streamed `ListSessions` reply: runs merged in the order
/// of one sort, and rows written as the ``DBusValue`` form wrote them.
@Suite struct SessionListingTests {
    static func record(_ id: String, app: String = "org.example.App", _ change: (inout SessionRecord) -> Void = { _ in })
        throws -> SessionRecord
    {
        var record = SessionRecord(id: try SessionID(id), app: try AppID(app), events: 1, lastEvent: 1_700_000_000_000_000)
        change(&record)
        return record
    }

    /// The row as `listSessions` built it before it streamed: the oracle.
    static func valueRow(_ row: SessionListingRow) -> DBusValue {
        let session = row.record
        var details: [String: DBusValue] = [
            "events": .uint32(session.events), "last-event": .int64(session.lastEvent),
            "in-progress": .boolean(session.inProgress),
        ]
        if let progress = session.progress { details["progress"] = .double(progress) }
        if let written = session.bytesWritten { details["bytes-written"] = .uint64(written) }
        if let expected = session.bytesExpected { details["bytes-expected"] = .uint64(expected) }
        if let result = session.lastResult { details["last-result"] = .string(result.rawValue) }
        return .structure([
            .string(session.id.rawValue), .string(session.app.rawValue), .uint32(UInt32(row.pending)), .vardict(details),
        ])
    }

    @Test func rowsAreWrittenAsTheValueFormWroteThem() throws {
        let rows = [
            SessionListingRow(record: try Self.record("plain"), pending: 1),
            SessionListingRow(
                record: try Self.record("dl-ü ✓", app: "org.example.Other") {
                    $0.bytesWritten = 5
                    $0.bytesExpected = 10
                    $0.progress = 0.5
                    $0.inProgress = true
                    $0.events = .max
                    $0.lastEvent = -1
                },
                pending: 0),
            SessionListingRow(record: try Self.record("done") { $0.lastResult = .expired }, pending: 100_000),
            SessionListingRow(
                record: try Self.record("bytes-only") {
                    $0.bytesExpected = 0
                    $0.progress = 1
                    $0.lastResult = .completed
                },
                pending: 2),
        ]
        let streamed = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M")
        let writer = try DBusArrayWriter(appendingTo: streamed, element: SessionService.sessionRowType)
        for row in rows { try SessionListing.write(row, to: writer) }
        _ = try writer.finish()
        let built = try DBusMessage.signal(
            path: "/t", interface: "org.example.T", member: "M",
            arguments: [.array(element: SessionService.sessionRowType, rows.map(Self.valueRow))])
        #expect(streamed.signature == "a(ssua{sv})")
        #expect(try streamed.arguments() == built.arguments())
        #expect(streamed.wireSize == built.wireSize, "the same bytes on the wire")
    }

    @Test(arguments: [1, 2, 7, 4_096])
    func runsMergeInTheOrderOfOneSort(runLength: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let ids = Set((0..<3_000).map { _ in "s-\(UInt32.random(in: 0...1_000_000, using: &generator))" } + ["Ä", "a", "B", "é-1"])
        var rows = try ids.map { SessionListingRow(record: try Self.record($0), pending: 1) }
        for start in stride(from: 0, to: rows.count, by: runLength) {
            rows[start..<min(start + runLength, rows.count)].sort(by: SessionListingRow.precedes)
        }
        var merger = SessionRunMerger(rows: rows, runLength: runLength)
        var order: [String] = []
        while let index = merger.next(rows) { order.append(rows[index].record.id.rawValue) }
        #expect(order.count == ids.count)
        #expect(order == ids.sorted { try! SessionID($0) < SessionID($1) })
    }

    @Test func noRowsMergeToNothing() {
        var merger = SessionRunMerger(rows: [], runLength: 4_096)
        #expect(merger.next([]) == nil)
    }

    @Test func theBookListsEveryVisibleSessionWithItsPendingCount() throws {
        var book = SessionBook()
        let event = try WorkerEvent(validating: [:])
        _ = try book.record(event, session: SessionID("a"), app: AppID("org.example.A"), at: 1)
        _ = try book.record(event, session: SessionID("a"), app: AppID("org.example.A"), at: 2)
        _ = try book.record(event, session: SessionID("b"), app: AppID("org.example.B"), at: 3)
        let all = book.listingRows { _ in true }.sorted(by: SessionListingRow.precedes)
        #expect(all.map(\.record) == book.allSessions)
        #expect(all.map(\.pending) == [2, 1])
        let onlyB = book.listingRows { $0.rawValue == "org.example.B" }
        #expect(onlyB.map(\.record.id.rawValue) == ["b"])
    }
}
