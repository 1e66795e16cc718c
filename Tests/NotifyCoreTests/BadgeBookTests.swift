import NotifyCore
import Testing

@Suite struct BadgeBookTests {
    let app = try! AppID("org.example.App")

    @Test func unknownAppIsZero() {
        #expect(BadgeBook()[app] == 0)
    }

    @Test func setReportsRealChangesOnly() throws {
        var book = BadgeBook()
        #expect(try book.set(app, to: 3) == BadgeChange(app: app, old: 0, new: 3))
        #expect(try book.set(app, to: 3) == nil)
        #expect(try book.set(app, to: 0) == BadgeChange(app: app, old: 3, new: 0))
        #expect(book.nonZero.isEmpty)
    }

    @Test func setAboveMaximumIsOutOfRangeAndChangesNothing() throws {
        var book = BadgeBook([app: 5])
        let error = #expect(throws: NotifydError.self) { try book.set(app, to: BadgeBook.maximum + 1) }
        #expect(error?.code == .outOfRange)
        #expect(book[app] == 5)
        #expect(try book.set(app, to: BadgeBook.maximum)?.new == BadgeBook.maximum)
    }

    @Test func incrementClampsAtZero() throws {
        var book = BadgeBook([app: 2])
        let result = try book.increment(app, by: -5)
        #expect(result.count == 0)
        #expect(result.change == BadgeChange(app: app, old: 2, new: 0))
        #expect(try book.increment(app, by: -1).change == nil)
        #expect(try book.increment(app, by: 0).change == nil)
    }

    @Test func incrementPastMaximumIsOutOfRange() throws {
        var book = BadgeBook([app: BadgeBook.maximum - 1])
        #expect(try book.increment(app, by: 1).count == BadgeBook.maximum)
        let error = #expect(throws: NotifydError.self) { try book.increment(app, by: 1) }
        #expect(error?.code == .outOfRange)
        #expect(book[app] == BadgeBook.maximum)
        #expect(try book.increment(app, by: Int32.min).count == 0)
    }

    @Test func clearAllReportsEachClearedApp() throws {
        let other = try AppID("other")
        var book = BadgeBook([app: 1, other: 4])
        let changes = book.clearAll()
        #expect(Set(changes.map(\.app)) == [app, other])
        #expect(book.clearAll().isEmpty)
    }

    @Test func zeroCountsAreNotKept() {
        #expect(BadgeBook([app: 0]).nonZero.isEmpty)
    }
}
