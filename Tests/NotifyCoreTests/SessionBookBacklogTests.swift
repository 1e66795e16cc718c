import NotifyCore
import Testing

/// A backlog of handlers that expired while notifyd was down is invoked a
/// bounded number at a time, so that start-up answers calls in between.
@Suite struct SessionBookBacklogTests {
    static let second: Microseconds = 1_000_000

    /// `count` handlers in sessions of their own, over apps of 10,000 each,
    /// with deadlines 1 µs apart from `firstDeadline`.
    static func backlog(_ count: Int, firstDeadline: Microseconds = 30 * second) throws -> SessionBook {
        var handlers: [CompletionHandler] = []
        for index in 0..<count {
            handlers.append(
                CompletionHandler(
                    id: UInt64(index + 1), session: try SessionID("s-\(index)"),
                    app: try AppID("org.example.App\(index / 10_000)"), storedAt: 0,
                    deadline: firstDeadline + Microseconds(index)))
        }
        return SessionBook(restoring: [], handlers: handlers, lastHandlerID: UInt64(count))
    }

    @Test func aBacklogExpiresInBoundedStepsInDeadlineOrder() throws {
        let count = 2 * SessionBook.maximumExpiredAtOnce + 500
        var book = try Self.backlog(count)
        let now = 3_600 * Self.second
        #expect(book.dueCount(at: now) == count)
        var steps: [[InvokedHandler]] = []
        while let next = book.nextDeadline, next <= now {
            steps.append(book.expire(at: now))
            #expect(steps.count <= 10, "the backlog never ends")
            if steps.count > 10 { break }
        }
        #expect(steps.map(\.count) == [SessionBook.maximumExpiredAtOnce, SessionBook.maximumExpiredAtOnce, 500])
        let ids = steps.flatMap { $0.map(\.handler.id) }
        #expect(ids == (1...UInt64(count)).map { $0 })
        #expect(steps.joined().allSatisfy { $0.result == .expired })
        #expect(book.pendingCount == 0)
        #expect(book.dueCount(at: now) == 0)
        #expect(book.nextDeadline == nil)
        #expect(book.expire(at: now).isEmpty)
    }

    @Test func whileABacklogIsWorkedOffNewHandlersAndCompletionsWork() throws {
        var book = try Self.backlog(1_500)
        let now = 3_600 * Self.second
        let first = book.expire(at: now, limit: 1_000)
        #expect(first.count == 1_000)
        #expect(book.pendingCount == 500)
        #expect(book.dueCount(at: now) == 500)
        // A session still in the backlog is completed by its app in between.
        let late = try SessionID("s-1400")
        #expect(try book.complete(late, result: .completed, at: now).map(\.handler.id) == [1_401])
        // A new event gets a handler that is not due.
        let app = try AppID("org.example.New")
        let recorded = try book.record(WorkerEvent(), session: try SessionID("new"), app: app, at: now)
        #expect(recorded.handler?.id == 1_501)
        #expect(book.dueCount(at: now) == 499)
        let rest = book.expire(at: now)
        #expect(rest.count == 499)
        #expect(!rest.contains { $0.handler.id == 1_401 })
        #expect(book.pendingCount == 1)
        #expect(book.nextDeadline == now + Microseconds(SessionBook.defaultTimeout) * Self.second)
    }

    @Test func dueCountCountsOnlyPendingHandlersAtOrBeforeNow() throws {
        var book = try Self.backlog(10, firstDeadline: 100)
        #expect(book.dueCount(at: 99) == 0)
        #expect(book.dueCount(at: 100) == 1)
        #expect(book.dueCount(at: 104) == 5)
        _ = try book.complete(try SessionID("s-2"), result: .cancelled, at: 0)
        #expect(book.dueCount(at: 104) == 4)
        #expect(book.dueCount(at: .max) == 9)
    }

    /// The figure for 100,000: the core's share of start-up (restore, count,
    /// expire in steps) stays well under a second even in a debug build.
    @Test(.timeLimit(.minutes(1))) func aFullBacklogOf100000IsWorkedOff() throws {
        var book = try Self.backlog(SessionBook.maximumPending)
        let now = 3_600 * Self.second
        #expect(book.dueCount(at: now) == SessionBook.maximumPending)
        var steps = 0
        var invoked = 0
        while let next = book.nextDeadline, next <= now, steps <= 200 {
            invoked += book.expire(at: now).count
            steps += 1
        }
        #expect(invoked == SessionBook.maximumPending)
        #expect(steps == SessionBook.maximumPending / SessionBook.maximumExpiredAtOnce)
        #expect(book.pendingCount == 0)
    }
}
