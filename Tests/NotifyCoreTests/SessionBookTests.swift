import NotifyCore
import Testing

@Suite struct SessionBookTests {
    let app = try! AppID("org.example.Downloads")
    let other = try! AppID("org.example.Mail")
    let s1 = try! SessionID("s1")
    let s2 = try! SessionID("s2")
    static let second: Microseconds = 1_000_000

    @Test func finishedStoresAHandlerWithTheDefaultDeadline() throws {
        var book = SessionBook()
        let recorded = try book.record(WorkerEvent(), session: s1, app: app, at: 5)
        let handler = CompletionHandler(id: 1, session: s1, app: app, storedAt: 5, deadline: 5 + 30 * Self.second)
        #expect(recorded.handler == handler)
        #expect(recorded.session == SessionRecord(id: s1, app: app, events: 1, lastEvent: 5))
        #expect(recorded.forgotten.isEmpty)
        #expect(book.pendingHandlers(of: s1) == [handler])
        #expect(book.nextDeadline == handler.deadline)
        #expect(book.pendingCount == 1)
        #expect(book.pendingCount(of: app) == 1)
        #expect(book.pendingCount(of: s1) == 1)
    }

    @Test func timeoutSetsTheDeadline() throws {
        var book = SessionBook()
        let handler = try book.record(WorkerEvent(kind: .fetch, timeout: 86_400), session: s1, app: app, at: 0).handler
        #expect(handler?.deadline == 86_400 * Self.second)
        let late = try book.record(WorkerEvent(timeout: 1), session: s1, app: app, at: .max - 1).handler
        #expect(late?.deadline == .max)
    }

    @Test func everyStoringEventAddsOneHandlerAndProgressNone() throws {
        var book = SessionBook()
        for kind in [EventKind.finished, .progress, .failed, .fetch, .progress] {
            let recorded = try book.record(WorkerEvent(kind: kind), session: s1, app: app, at: 1)
            #expect((recorded.handler == nil) == (kind == .progress))
        }
        #expect(book.pendingHandlers(of: s1).map(\.id) == [1, 2, 3])
        #expect(book.session(s1)?.events == 5)
    }

    @Test func completeInvokesAllInStoredOrder() throws {
        var book = SessionBook()
        for timeout in [UInt32(50), 10, 30] {
            _ = try book.record(WorkerEvent(timeout: timeout), session: s1, app: app, at: 0)
        }
        _ = try book.record(WorkerEvent(), session: s2, app: app, at: 0)
        let invoked = try book.complete(s1, result: .completed, at: 1)
        #expect(invoked.map(\.handler.id) == [1, 2, 3])
        #expect(invoked.allSatisfy { $0.result == .completed })
        #expect(book.session(s1)?.lastResult == .completed)
        #expect(book.pendingCount == 1)
        #expect(try book.complete(s1, result: .completed, at: 2).isEmpty)
        #expect(try book.complete(s2, result: .cancelled, at: 2).map(\.result) == [.cancelled])
        #expect(book.session(s2)?.lastResult == .cancelled)
        #expect(book.nextDeadline == nil)
    }

    @Test func completingANeverSeenSessionIsUnknown() {
        var book = SessionBook()
        let error = #expect(throws: NotifydError.self) { try book.complete(s1, result: .completed, at: 0) }
        #expect(error?.code == .unknownSession)
        #expect(error?.message.contains("'s1'") == true)
    }

    @Test func expireGoesByDeadlineThenID() throws {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(timeout: 20), session: s1, app: app, at: 0)  // 1: 20 s
        _ = try book.record(WorkerEvent(timeout: 10), session: s2, app: app, at: 0)  // 2: 10 s
        _ = try book.record(WorkerEvent(timeout: 20), session: s2, app: app, at: 0)  // 3: 20 s
        _ = try book.record(WorkerEvent(timeout: 5), session: s1, app: app, at: 5 * Self.second)  // 4: 10 s
        _ = try book.record(WorkerEvent(timeout: 60), session: s1, app: app, at: 0)  // 5: 60 s
        #expect(book.expire(at: 10 * Self.second - 1).isEmpty)
        #expect(book.expire(at: 10 * Self.second).map(\.handler.id) == [2, 4])
        #expect(book.nextDeadline == 20 * Self.second)
        let later = book.expire(at: 59 * Self.second)
        #expect(later.map(\.handler.id) == [1, 3])
        #expect(later.allSatisfy { $0.result == .expired })
        #expect(book.session(s2)?.lastResult == .expired)
        #expect(book.pendingHandlers(of: s1).map(\.id) == [5])
    }

    @Test func eachHandlerIsInvokedExactlyOnce() throws {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(timeout: 10), session: s1, app: app, at: 0)
        _ = try book.record(WorkerEvent(timeout: 20), session: s2, app: app, at: 0)
        #expect(try book.complete(s1, result: .completed, at: 1).count == 1)
        #expect(book.nextDeadline == 20 * Self.second)  // the completed handler's deadline is gone
        #expect(book.expire(at: 15 * Self.second).isEmpty)
        #expect(book.expire(at: 25 * Self.second).map(\.handler.id) == [2])
        #expect(try book.complete(s2, result: .cancelled, at: 26 * Self.second).isEmpty)
        #expect(book.expire(at: .max).isEmpty)
        #expect(book.session(s1)?.lastResult == .completed)
    }

    @Test func idsStrictlyIncrease() throws {
        var book = SessionBook()
        var ids: [UInt64] = []
        for step in 0..<20 {
            let session = step % 2 == 0 ? s1 : s2
            ids.append(try #require(book.record(WorkerEvent(), session: session, app: app, at: 0).handler).id)
            if step % 3 == 0 { _ = try book.complete(session, result: .completed, at: 0) }
        }
        #expect(ids == Array(1...20))
        #expect(book.nextHandlerID == 21)
    }

    @Test func aSessionBelongsToItsFirstApp() throws {
        var book = SessionBook()
        _ = try book.record(WorkerEvent(kind: .progress), session: s1, app: app, at: 0)
        let before = book
        let error = #expect(throws: NotifydError.self) {
            try book.record(WorkerEvent(), session: s1, app: other, at: 1)
        }
        #expect(error?.code == .invalidArgs)
        #expect(error?.message.contains(app.rawValue) == true)
        #expect(error?.message.contains(other.rawValue) == true)
        #expect(book == before)
    }

    @Test func perAppLimitIsExact() throws {
        var book = SessionBook()
        for step in 0..<SessionBook.maximumPendingPerApp {
            _ = try book.record(WorkerEvent(), session: s1, app: app, at: Microseconds(step))
        }
        _ = try book.record(WorkerEvent(kind: .progress), session: s1, app: app, at: 0)  // stores nothing: allowed
        let before = book
        let error = #expect(throws: NotifydError.self) { try book.record(WorkerEvent(), session: s2, app: app, at: 0) }
        #expect(error?.code == .limitExceeded)
        #expect(
            error?.message
                == "app \(app) has 10000 pending completion handlers, the limit; complete or cancel some first")
        #expect(book == before)
        #expect(book.session(s2) == nil)
        _ = try book.record(WorkerEvent(), session: s2, app: other, at: 0)
        _ = try book.complete(s1, result: .completed, at: 0)
        _ = try book.record(WorkerEvent(), session: s1, app: app, at: 0)
    }

    @Test func totalLimitIsExact() throws {
        var book = SessionBook()
        let apps = try (0..<10).map { try AppID("app\($0)") }
        for app in apps {
            let session = try SessionID(app.rawValue)
            for _ in 0..<SessionBook.maximumPendingPerApp {
                _ = try book.record(WorkerEvent(), session: session, app: app, at: 0)
            }
        }
        #expect(book.pendingCount == SessionBook.maximumPending)
        let error = #expect(throws: NotifydError.self) {
            try book.record(WorkerEvent(kind: .fetch), session: s1, app: app, at: 0)
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("100000") == true)
        #expect(book.session(s1) == nil)
        _ = try book.record(WorkerEvent(kind: .progress), session: s1, app: app, at: 0)
        #expect(book.expire(at: 30 * Self.second, limit: .max).count == SessionBook.maximumPending)
        #expect(book.pendingCount == 0)
        _ = try book.record(WorkerEvent(), session: s1, app: app, at: 0)
    }
}
