import NotifyCore
import Testing

@Suite struct SessionBookPruningTests {
    let app = try! AppID("org.example.Downloads")

    func session(_ index: Int) -> SessionID { try! SessionID("s\(index)") }

    /// A book with `count` finished sessions; session i's last event is at
    /// `count - i`, so the last ones made are the oldest.
    func finishedBook(_ count: Int) throws -> SessionBook {
        var book = SessionBook()
        for index in 0..<count {
            _ = try book.record(WorkerEvent(), session: session(index), app: app, at: Microseconds(count - index))
            _ = try book.complete(session(index), result: .completed, at: 0)
        }
        return book
    }

    @Test func keepsAThousandFinishedSessions() throws {
        var book = try finishedBook(SessionBook.finishedSessionsKept)
        let recorded = try book.record(WorkerEvent(), session: session(5_000), app: app, at: 10_000)
        #expect(recorded.forgotten.isEmpty)
        _ = try book.complete(session(5_000), result: .completed, at: 0)
        #expect(book.allSessions.count == SessionBook.finishedSessionsKept + 1)  // complete does not prune
        let next = try book.record(WorkerEvent(kind: .progress), session: session(5_001), app: app, at: 10_001)
        #expect(next.forgotten == [session(SessionBook.finishedSessionsKept - 1)])
        #expect(book.allSessions.count == SessionBook.finishedSessionsKept + 1)
        #expect(book.session(session(SessionBook.finishedSessionsKept - 1)) == nil)
    }

    @Test func forgetsTheOldestFirst() throws {
        let records = (0..<1_003).map {
            SessionRecord(
                id: session($0), app: app, events: 1, lastEvent: Microseconds(1_003 - $0), lastResult: .completed)
        }
        var book = SessionBook(restoring: records, handlers: [])
        let recorded = try book.record(WorkerEvent(), session: session(9_999), app: app, at: 9_999)
        #expect(recorded.forgotten == [session(1_002), session(1_001), session(1_000)])
        // A forgotten session is unknown, and free for any app.
        let error = #expect(throws: NotifydError.self) { try book.complete(session(1_002), result: .completed, at: 0) }
        #expect(error?.code == .unknownSession)
        _ = try book.record(WorkerEvent(), session: session(1_002), app: try AppID("other"), at: 0)
    }

    @Test func pendingAndInProgressSessionsAreNeverForgotten() throws {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(), session: session(-1), app: app, at: -10)
        _ = try book.record(WorkerEvent(kind: .progress), session: session(-2), app: app, at: -10)
        for index in 0..<1_100 {
            _ = try book.record(WorkerEvent(), session: session(index), app: app, at: Microseconds(index))
            _ = try book.complete(session(index), result: .completed, at: 0)
        }
        _ = try book.record(WorkerEvent(kind: .progress), session: session(-3), app: app, at: 2_000)
        #expect(book.session(session(-1)) != nil)
        #expect(book.session(session(-2)) != nil)
        #expect(book.allSessions.count == 1_003)
        #expect(book.session(session(99)) == nil)
        #expect(book.session(session(100)) != nil)
    }

    @Test func aSessionUsedAgainIsNoLongerFinished() throws {
        var book = try finishedBook(1_000)
        // Session 999 is the oldest; using it again makes it new.
        _ = try book.record(WorkerEvent(), session: session(999), app: app, at: 20_000)
        _ = try book.complete(session(999), result: .completed, at: 0)
        let recorded = try book.record(WorkerEvent(), session: session(7_000), app: app, at: 20_001)
        #expect(recorded.forgotten.isEmpty)
        _ = try book.complete(session(7_000), result: .completed, at: 0)
        #expect(
            try book.record(WorkerEvent(), session: session(7_001), app: app, at: 20_002).forgotten == [session(998)])
    }

    @Test func manyCompletedHandlersStayCheap() throws {
        var book = SessionBook()
        for index in 0..<50_000 {
            _ = try book.record(
                WorkerEvent(timeout: 86_400), session: session(index % 7), app: app, at: Microseconds(index))
            if index % 3 == 2 { _ = try book.complete(session(index % 7), result: .completed, at: 0) }
        }
        #expect(book.expire(at: 86_400_000_000 + 50_000).allSatisfy { $0.result == .expired })
        #expect(book.pendingCount == 0)
        #expect(book.nextDeadline == nil)
    }
}
