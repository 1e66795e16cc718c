import NotifyCore
import Testing

/// The docks' rule (SPEC "Badges"): a slot per shown app, at most a limit
/// of them, the apps changed most recently; the changes of a batch
/// published as one update per app.
@Suite struct DockBookTests {
    func app(_ index: Int) -> AppID { try! AppID("org.example.App\(index)") }

    @Test func aBadgeShowsTheAppOnceAndSendsItsChanges() {
        var docks = DockBook(slotLimit: 2)
        docks.setCount(1, for: app(1))
        docks.setCount(2, for: app(1))
        #expect(docks.publish() == [.show(app(1), DockEntry(count: 2))], "one update for the batch, the latest")
        docks.setProgress(0.5, for: app(1))
        #expect(docks.publish() == [.send(app(1), DockEntry(count: 2, progress: 0.5))])
        #expect(docks.publish().isEmpty)
    }

    @Test func anEntryThatEmptiesIsSentThenReleased() {
        var docks = DockBook(slotLimit: 2)
        docks.setCount(3, for: app(1))
        _ = docks.publish()
        docks.setCount(0, for: app(1))
        #expect(docks.publish() == [.send(app(1), DockEntry()), .release(app(1))])
        #expect(docks.shown.isEmpty && docks.entries.isEmpty)
    }

    @Test func aNewerAppTakesThePlaceOfTheOneChangedLeastRecently() {
        var docks = DockBook(slotLimit: 2)
        docks.setCount(1, for: app(1))
        docks.setCount(1, for: app(2))
        _ = docks.publish()
        docks.setCount(5, for: app(1))  // app 1 is now the newer of the two
        docks.setCount(1, for: app(3))
        #expect(docks.publish() == [.send(app(1), DockEntry(count: 5)), .retract(app(2)), .show(app(3), DockEntry(count: 1))])
        #expect(docks.shown == [app(1), app(3)])
    }

    @Test func newcomersOfOneBatchAreShownNewestFirstWhilePlacesLast() {
        var docks = DockBook(slotLimit: 2)
        for index in 1...4 { docks.setCount(1, for: app(index)) }
        #expect(docks.publish() == [.show(app(4), DockEntry(count: 1)), .show(app(3), DockEntry(count: 1))])
    }

    @Test func aSlotThatFailsIsTriedAgainWithABackoff() {
        var docks = DockBook(slotLimit: 2)
        docks.setCount(1, for: app(1))
        _ = docks.publish()
        let first = docks.slotFailed(app(1), at: 0)
        #expect(first, "the first failure is worth a log line")
        #expect(docks.retryAt == DockBook.firstRetryDelay)
        let early = docks.retryDue(at: DockBook.firstRetryDelay - 1)
        #expect(early.isEmpty)
        let due = docks.retryDue(at: DockBook.firstRetryDelay)
        #expect(due == [.show(app(1), DockEntry(count: 1))])
        let again = docks.slotFailed(app(1), at: 10)
        #expect(!again, "said once")
        #expect(docks.retryAt == 10 + 2 * DockBook.firstRetryDelay, "the wait doubles")
        let shownAgain = docks.retryDue(at: 10 + 2 * DockBook.firstRetryDelay)
        #expect(shownAgain == [.show(app(1), DockEntry(count: 1))])
        docks.slotOpened(app(1))
        _ = docks.slotFailed(app(1), at: 100)
        #expect(docks.retryAt == 100 + DockBook.firstRetryDelay, "an open slot resets the backoff")
    }
}
