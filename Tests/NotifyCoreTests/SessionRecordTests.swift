import NotifyCore
import Testing

@Suite struct SessionRecordTests {
    let app = try! AppID("org.example.Downloads")
    let id = try! SessionID("s")

    @Test func progressEventsUpdateBytesAndFraction() throws {
        var book = SessionBook()
        var record = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 10, bytesExpected: 40), session: id, app: app, at: 7
        ).session
        #expect(
            record
                == SessionRecord(
                    id: id, app: app, events: 1, lastEvent: 7, bytesWritten: 10, bytesExpected: 40, progress: 0.25,
                    inProgress: true))
        record = try book.record(WorkerEvent(kind: .progress, bytesWritten: 20), session: id, app: app, at: 8).session
        #expect(record.bytesExpected == 40)
        #expect(record.progress == 0.5)
        #expect(record.events == 2)
        #expect(record.lastEvent == 8)
    }

    @Test func finishedEndsProgressAtOne() throws {
        var book = SessionBook()
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 10, bytesExpected: 40), session: id, app: app, at: 0)
        let record = try book.record(WorkerEvent(kind: .finished), session: id, app: app, at: 1).session
        #expect(record.inProgress == false)
        #expect(record.progress == 1)
    }

    @Test func finishedWithoutSizeLeavesProgressUnknown() throws {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(kind: .progress), session: id, app: app, at: 0)
        let record = try book.record(WorkerEvent(kind: .finished), session: id, app: app, at: 1).session
        #expect(record.inProgress == false)
        #expect(record.progress == nil)
    }

    @Test func failedEndsProgressWhereItWas() throws {
        var book = SessionBook()
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 10, bytesExpected: 40), session: id, app: app, at: 0)
        let record = try book.record(WorkerEvent(kind: .failed, error: "gone"), session: id, app: app, at: 1).session
        #expect(record.inProgress == false)
        #expect(record.progress == 0.25)
    }

    @Test func fetchLeavesProgressAlone() throws {
        var book = SessionBook()
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 1, bytesExpected: 2), session: id, app: app, at: 0)
        #expect(try book.record(WorkerEvent(kind: .fetch), session: id, app: app, at: 1).session.inProgress)
    }
}
