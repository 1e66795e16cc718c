import NotifyCore
import Testing

@Suite struct SessionBookRestoreTests {
    let app = try! AppID("org.example.Downloads")
    let s1 = try! SessionID("s1")
    let s2 = try! SessionID("s2")
    static let second: Microseconds = 1_000_000

    func sample() throws -> SessionBook {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(timeout: 10), session: s1, app: app, at: 0)
        _ = try book.record(
            WorkerEvent(kind: .progress, bytesWritten: 1, bytesExpected: 4), session: s2, app: app, at: 1)
        _ = try book.record(WorkerEvent(timeout: 99), session: s1, app: app, at: 2)
        _ = try book.record(WorkerEvent(), session: s2, app: app, at: 3)
        _ = try book.complete(s2, result: .cancelled, at: 4)
        return book
    }

    @Test func restoringGivesTheSameBook() throws {
        let book = try sample()
        let restored = SessionBook(
            restoring: book.allSessions, handlers: book.allPendingHandlers, lastHandlerID: book.lastHandlerID)
        #expect(restored == book)
        #expect(restored.nextDeadline == 10 * Self.second)
        #expect(restored.pendingCount(of: app) == 2)
        #expect(restored.progress(of: app) == nil)
    }

    @Test func idsKeepIncreasingAfterRestore() throws {
        let book = try sample()
        var restored = SessionBook(restoring: book.allSessions, handlers: book.allPendingHandlers)
        #expect(restored.nextHandlerID == 3)  // handler 3 was invoked: unknown without lastHandlerID
        #expect(try restored.record(WorkerEvent(), session: s1, app: app, at: 5).handler?.id == 3)
        var remembering = SessionBook(restoring: book.allSessions, handlers: [], lastHandlerID: book.lastHandlerID)
        #expect(try remembering.record(WorkerEvent(), session: s1, app: app, at: 5).handler?.id == 4)
    }

    @Test func overdueHandlersExpireAtStartUp() throws {
        let handlers = [
            CompletionHandler(id: 7, session: s1, app: app, storedAt: 5, deadline: 30 * Self.second),
            CompletionHandler(id: 3, session: s1, app: app, storedAt: 0, deadline: 90 * Self.second),
            CompletionHandler(id: 9, session: s2, app: app, storedAt: 0, deadline: 10 * Self.second),
        ]
        var book = SessionBook(restoring: [], handlers: handlers)
        #expect(book.allSessions.map(\.id) == [s1, s2])
        #expect(book.session(s1) == SessionRecord(id: s1, app: app, lastEvent: 5))
        #expect(book.pendingHandlers(of: s1).map(\.id) == [3, 7])
        #expect(book.nextHandlerID == 10)
        #expect(book.expire(at: 60 * Self.second).map(\.handler.id) == [9, 7])
        #expect(book.nextDeadline == 90 * Self.second)
    }

    @Test func restoredInProgressSessionsCountForProgress() throws {
        let record = SessionRecord(
            id: s1, app: app, events: 2, lastEvent: 0, bytesWritten: 3, bytesExpected: 4, progress: 0.75,
            inProgress: true)
        let book = SessionBook(restoring: [record], handlers: [])
        #expect(book.progress(of: app) == 0.75)
        #expect(book.session(s1) == record)
    }

    @Test func stateHoldsTheBook() throws {
        let book = try sample()
        #expect(NotifydState().sessions == SessionBook())
        #expect(NotifydState(badges: BadgeBook(), sessions: book) != NotifydState())
    }
}
