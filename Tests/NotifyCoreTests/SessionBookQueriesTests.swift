import NotifyCore
import Testing

@Suite struct SessionBookQueriesTests {
    let app = try! AppID("org.example.Downloads")
    let other = try! AppID("org.example.Mail")

    func session(_ name: String) -> SessionID { try! SessionID(name) }

    @Test func progressAggregatesTheAppsSessionsInProgress() throws {
        var book = SessionBook()
        #expect(book.progress(of: app) == nil)
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 50, bytesExpected: 100), session: session("a"), app: app, at: 0)
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 25, bytesExpected: 300), session: session("b"), app: app, at: 0)
        _ = try book.record(WorkerEvent(kind: .progress, bytesWritten: 9), session: session("c"), app: app, at: 0)
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 0, bytesExpected: 100), session: session("d"), app: other, at: 0)
        #expect(book.progress(of: app) == 75.0 / 400.0)
        #expect(book.progress(of: other) == 0)
        _ = try book.record(WorkerEvent(kind: .finished), session: session("b"), app: app, at: 1)
        #expect(book.progress(of: app) == 0.5)
        _ = try book.record(WorkerEvent(kind: .failed), session: session("a"), app: app, at: 1)
        #expect(book.progress(of: app) == 0)  // c is in progress, size unknown
        _ = try book.record(WorkerEvent(kind: .finished), session: session("c"), app: app, at: 1)
        #expect(book.progress(of: app) == nil)
    }

    @Test func progressIsClamped() throws {
        var book = SessionBook()
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 500, bytesExpected: 100), session: session("a"), app: app, at: 0)
        #expect(book.progress(of: app) == 1)
    }

    @Test func listingsAreSorted() throws {
        var book = SessionBook()
        for name in ["m", "b", "z", "a"] { _ = try book.record(WorkerEvent(), session: session(name), app: app, at: 0) }
        #expect(book.allSessions.map(\.id.rawValue) == ["a", "b", "m", "z"])
        #expect(book.allPendingHandlers.map(\.id) == [1, 2, 3, 4])
        #expect(book.pendingHandlers(of: session("unknown")).isEmpty)
        #expect(book.pendingCount(of: session("unknown")) == 0)
        #expect(book.pendingCount(of: other) == 0)
    }

    @Test func equalityIgnoresHowTheBookGotThere() throws {
        var direct = SessionBook()
        _ = try direct.record(WorkerEvent(), session: session("a"), app: app, at: 0)
        var roundabout = SessionBook()
        _ = try roundabout.record(WorkerEvent(), session: session("a"), app: app, at: 0)
        _ = try roundabout.record(WorkerEvent(), session: session("b"), app: app, at: 0)
        #expect(roundabout != direct)
        _ = try roundabout.complete(session("b"), result: .completed, at: 0)
        #expect(roundabout != direct)  // b is still listed, and the next id differs
        #expect(Set([direct, direct]).count == 1)
    }
}
