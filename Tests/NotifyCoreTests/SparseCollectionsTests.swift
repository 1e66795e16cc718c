import NotifyCore
import Testing

/// Tables that grew to a documented limit give their room back once
/// cleared (``Swift/Dictionary/shrinkIfSparse()``), keep every entry, and
/// are left alone while small or still well filled.
@Suite struct SparseCollectionsTests {
    static func table(_ count: Int) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, "value \($0)") })
    }

    @Test func aDictionaryEmptiedToAQuarterShrinksAndKeepsEveryEntry() {
        var table = Self.table(10_000)
        let grown = table.capacity
        for key in 100..<10_000 { table[key] = nil }
        #expect(table.capacity == grown, "removing alone keeps the buckets")
        table.shrinkIfSparse()
        #expect(table.capacity < sparseShrinkFloor)
        #expect(table == Self.table(100))
    }

    @Test func aDictionaryStillAQuarterFullOrSmallIsLeftAlone() {
        var half = Self.table(10_000)
        for key in 5_000..<10_000 { half[key] = nil }
        let halfCapacity = half.capacity
        half.shrinkIfSparse()
        #expect(half.capacity == halfCapacity)
        #expect(half.count == 5_000)

        var small = Self.table(2_000)
        for key in 1..<2_000 { small[key] = nil }
        let smallCapacity = small.capacity
        #expect(smallCapacity < sparseShrinkFloor)
        small.shrinkIfSparse()
        #expect(small.capacity == smallCapacity)
        #expect(small == [0: "value 0"])
    }

    @Test func aSetEmptiedToAQuarterShrinksAndKeepsEveryMember() {
        var members = Set(0..<20_000)
        for member in 10..<20_000 { members.remove(member) }
        members.shrinkIfSparse()
        #expect(members.capacity < sparseShrinkFloor)
        #expect(members == Set(0..<10))
    }

    @Test func clearingTenThousandBadgesLeavesABookThatStillCounts() throws {
        var book = BadgeBook()
        let apps = try (0..<BadgeBook.maximumApps).map { try AppID("org.example.App\($0)") }
        for app in apps { _ = try book.set(app, to: 3) }
        for app in apps.prefix(9_000) { _ = try book.set(app, to: 0) }
        #expect(book.nonZero.count == 1_000)
        #expect(book[apps[9_500]] == 3)
        #expect(book.clearAll().count == 1_000)
        #expect(book.nonZero.isEmpty)
        _ = try book.set(apps[0], to: 1)
        #expect(book.nonZero == [apps[0]: 1])
    }

    /// 20,000 handlers over two apps, session i's deadline before session i+1's.
    static func bookWithHandlers() throws -> (SessionBook, [SessionID]) {
        var book = SessionBook()
        let apps = try [AppID("org.example.One"), AppID("org.example.Two")]
        let sessions = try (0..<20_000).map { try SessionID("s\($0)") }
        for (index, session) in sessions.enumerated() {
            _ = try book.record(WorkerEvent(timeout: 60), session: session, app: apps[index % 2], at: Microseconds(index))
        }
        return (book, sessions)
    }

    @Test(arguments: [false, true])
    func completingEveryHandlerGivesTheDeadlinesRoomBack(newestFirst: Bool) throws {
        var (book, sessions) = try Self.bookWithHandlers()
        #expect(book.deadlineRoom >= 20_000)
        for session in newestFirst ? sessions.reversed() : sessions {
            _ = try book.complete(session, result: .completed, at: 30_000)
        }
        #expect(book.pendingCount == 0)
        #expect(book.nextDeadline == nil)
        #expect(book.deadlineRoom < sparseShrinkFloor)
    }

    @Test func expiringEveryHandlerGivesTheDeadlinesRoomBack() throws {
        var (book, _) = try Self.bookWithHandlers()
        var expired = 0
        while let deadline = book.nextDeadline { expired += book.expire(at: deadline).count }
        #expect(expired == 20_000)
        #expect(book.deadlineRoom < sparseShrinkFloor)
    }

    @Test func handlersLeftPendingKeepTheirDeadlinesInOrder() throws {
        var (book, sessions) = try Self.bookWithHandlers()
        // Complete all but every hundredth: the heap shrinks around the 200 left.
        for (index, session) in sessions.enumerated() where index % 100 != 0 {
            _ = try book.complete(session, result: .completed, at: 30_000)
        }
        #expect(book.pendingCount == 200)
        #expect(book.deadlineRoom < sparseShrinkFloor)
        var order: [SessionID] = []
        while let deadline = book.nextDeadline { order += book.expire(at: deadline).map(\.handler.session) }
        #expect(order == sessions.enumerated().filter { $0.offset % 100 == 0 }.map(\.element))
    }
}
