import NotifyCore
import Testing

/// The popup rules, decided by the core's PopupBook with the elapsed time
/// given by hand (a clock the test moves): what is posted, merged, held
/// back, queued for a server, retried, and announced.
@Suite struct PopupBookTests {
    static let ms: Microseconds = 1_000
    static let second: Microseconds = 1_000_000
    let app = try! AppID("org.example.Downloads")
    let other = try! AppID("org.example.Mail")
    static let dunst = NotificationServerProfile(
        name: "dunst", vendor: "knopwob", version: "1.9.0", capabilities: ["actions", "body", "body-markup"])
    static let withSound = NotificationServerProfile(
        name: "Test", vendor: "notifyd", version: "1", capabilities: ["actions", "body", "sound"])
    static let notifyOSD = NotificationServerProfile(
        name: "notify-osd", vendor: "Canonical Ltd", version: "1.0", capabilities: ["body"])
    static let plasma = NotificationServerProfile(
        name: "Plasma", vendor: "KDE", version: "2.0", capabilities: ["actions", "body", "body-markup"])

    /// A committed event of `app`, with handler `handler`.
    func recorded(
        _ event: WorkerEvent, session: String = "s", app: AppID? = nil, handler: UInt64 = 1, progress: Double? = nil
    ) -> RecordedWorkerEvent {
        RecordedWorkerEvent(
            event: event, session: try! SessionID(session), app: app ?? self.app, handlerID: handler,
            sessionProgress: progress, appProgress: nil)
    }

    /// A book with `server` on the bus.
    func book(_ server: NotificationServerProfile? = Self.dunst) -> PopupBook {
        var book = PopupBook()
        _ = book.serverChanged(to: server, at: 0)
        return book
    }

    static func posts(_ effects: [PopupEffect]) -> [PopupDraft] {
        effects.compactMap { if case .post(_, let draft, _, _) = $0 { draft } else { nil } }
    }

    static func tokens(_ effects: [PopupEffect]) -> [PopupToken] {
        effects.compactMap { if case .post(let token, _, _, _) = $0 { token } else { nil } }
    }

    @Test func aFinishedEventPostsItsPopupWithTheKindsDefaults() {
        var book = book()
        let effects = book.eventRecorded(recorded(WorkerEvent(title: "report.pdf", path: "/tmp/report.pdf"), handler: 7), at: 0)
        let draft = try! #require(Self.posts(effects).first)
        #expect(draft.key == PopupKey(app: app, slot: "handler:7"))
        #expect(draft.summary == "Download complete" && draft.body == "report.pdf")
        #expect(draft.category == "transfer.complete" && draft.withActions && draft.openPath == "/tmp/report.pdf")
        #expect(book.nextWake == nil, "nothing to wake for")
    }

    @Test func noPopupForNotifyFalseOrAFetchWithoutNewData() {
        var book = book()
        #expect(book.eventRecorded(recorded(WorkerEvent(notify: false)), at: 0).isEmpty)
        #expect(book.eventRecorded(recorded(WorkerEvent(kind: .fetch, result: .noData)), at: 0).isEmpty)
        #expect(book.inFlightCount == 0)
    }

    @Test func theFourthEventWithinTwoSecondsIsMergedIntoOneSummaryUpdatedInPlace() {
        var book = book()
        var posted: [PopupDraft] = []
        for index in 0..<4 {
            posted += Self.posts(book.eventRecorded(
                recorded(WorkerEvent(title: "f\(index)"), handler: UInt64(index + 1)), at: Microseconds(index) * 100 * Self.ms))
        }
        #expect(posted.count == 4)
        #expect(posted.prefix(3).map(\.key.slot) == ["handler:1", "handler:2", "handler:3"])
        let summary = posted[3]
        #expect(summary.key.slot == "burst:1" && summary.summary == "4 downloads complete" && summary.merged == 1)
        #expect(summary.sound == .silent, "one sound per burst")
        #expect(summary.openPath == nil)
    }

    @Test func summaryUpdatesComeAtMostEveryHalfSecondTheLatestWinning() {
        var book = book()
        for index in 0..<4 {
            _ = book.eventRecorded(recorded(WorkerEvent(title: "f\(index)"), handler: UInt64(index + 1)), at: Microseconds(index) * Self.ms)
        }
        // The fifth and sixth within the half second: held, one timer.
        #expect(Self.posts(book.eventRecorded(recorded(WorkerEvent(title: "f4"), handler: 5), at: 10 * Self.ms)).isEmpty)
        #expect(Self.posts(book.eventRecorded(recorded(WorkerEvent(title: "f5"), handler: 6), at: 20 * Self.ms)).isEmpty)
        #expect(book.nextWake == 3 * Self.ms + PopupBook.summaryInterval)
        #expect(book.wake(at: 100 * Self.ms).isEmpty, "not due yet")
        let flushed = Self.posts(book.wake(at: book.nextWake!))
        #expect(flushed.map(\.summary) == ["6 downloads complete"], "the latest text")
        #expect(book.nextWake == nil)
    }

    @Test func aServerThatLosesQueuedReplacementsGetsTheSummaryOnceSettled() {
        var book = book(Self.notifyOSD)
        var posted: [PopupDraft] = []
        for index in 0..<6 {
            posted += Self.posts(book.eventRecorded(
                recorded(WorkerEvent(title: "f\(index)"), handler: UInt64(index + 1)), at: Microseconds(index) * 300 * Self.ms))
        }
        #expect(posted.count == 3, "the three singles; the summary waits")
        #expect(book.nextWake == 1_500 * Self.ms + FloodGate.window, "quiet for the flood window after the last")
        let settled = Self.posts(book.wake(at: 1_500 * Self.ms + FloodGate.window))
        #expect(settled.map(\.summary) == ["6 downloads complete"])
    }

    @Test func progressIsShownAtMostTwiceASecondAndClosedByTheEnd() {
        var book = book()
        let first = Self.posts(book.eventRecorded(recorded(WorkerEvent(kind: .progress, title: "big.iso"), progress: 0.1), at: 0))
        #expect(first.first?.progress == 10 && first.first?.transient == true)
        #expect(first.first?.key == PopupKey(app: app, slot: "progress:s"))
        #expect(book.eventRecorded(recorded(WorkerEvent(kind: .progress), progress: 0.2), at: 100 * Self.ms).isEmpty)
        #expect(book.eventRecorded(recorded(WorkerEvent(kind: .progress), progress: 0.3), at: 200 * Self.ms).isEmpty)
        #expect(book.nextWake == PopupBook.summaryInterval, "one held value, due half a second after the last shown")
        #expect(Self.posts(book.wake(at: 500 * Self.ms)).first?.progress == 30, "the latest value")
        let end = book.eventRecorded(recorded(WorkerEvent(title: "big.iso"), handler: 2), at: 600 * Self.ms)
        #expect(end.first == .close(PopupKey(app: app, slot: "progress:s")))
        #expect(Self.posts(end).map(\.summary) == ["Download complete"])
        #expect(book.nextWake == nil)
    }

    @Test func progressGoesNowhereOnAServerThatDrawsNoBar() {
        var book = book(Self.notifyOSD)
        #expect(book.eventRecorded(recorded(WorkerEvent(kind: .progress), progress: 0.5), at: 0).isEmpty)
    }

    @Test func onPlasmaProgressIsAJobThatEndsWithTheSession() {
        var book = book(Self.plasma)
        let effects = book.eventRecorded(recorded(WorkerEvent(kind: .progress, title: "a.bin", bytesWritten: 50, bytesExpected: 100), progress: 0.5), at: 0)
        #expect(effects == [.updateJob(JobProgress(session: try! SessionID("s"), app: app, title: "a.bin", percent: 50, bytesWritten: 50, bytesExpected: 100))])
        _ = book.eventRecorded(recorded(WorkerEvent(kind: .progress, title: "a.bin", bytesWritten: 90, bytesExpected: 100), progress: 0.9), at: 100 * Self.ms)
        let end = book.eventRecorded(recorded(WorkerEvent(kind: .failed, title: "a.bin", error: "Disk full"), handler: 2), at: 200 * Self.ms)
        guard end.count >= 2, case .desktop(.updateJob(let last)) = end[0] else {
            Issue.record("the held value first: \(end)")
            return
        }
        #expect(last.percent == 90)
        #expect(end[1] == .endJob(session: try! SessionID("s"), failed: true))
    }

    @Test func withoutAServerPopupsWaitTheNewestHundredPerAppAndAServerIsStarted() {
        var book = PopupBook()
        var effects: [PopupEffect] = []
        for index in 0..<120 {
            effects = book.eventRecorded(recorded(WorkerEvent(title: "f\(index)", sound: ""), handler: UInt64(index + 1)), at: Microseconds(index) * 3 * Self.second)
        }
        _ = book.eventRecorded(recorded(WorkerEvent(title: "mail", sound: ""), app: other), at: 0)
        #expect(effects == [.startServer])
        #expect(book.waitingCount(of: app) == PopupBook.queuedPerApp && book.waitingCount(of: other) == 1)
        let posted = Self.posts(book.serverChanged(to: Self.dunst, at: 400 * Self.second))
        #expect(posted.count == 101)
        #expect(posted.filter { $0.app == app }.first?.body == "f20", "the oldest kept")
        #expect(book.waitingCount(of: app) == 0)
    }

    @Test func aPostRefusedForWantOfAServerWaitsAndIsRetriedAnyOtherIsDropped() {
        var book = book()
        let effects = book.eventRecorded(recorded(WorkerEvent(title: "a", sound: "")), at: 0)
        let key = Self.posts(effects)[0].key
        #expect(book.postFailed(key, message: "org.freedesktop.DBus.Error.ServiceUnknown: gone", at: 0).isEmpty)
        #expect(book.waitingCount(of: app) == 1)
        #expect(book.nextWake == PopupBook.retryDelay, "notifyd still sees the server: try again in a second")
        #expect(Self.posts(book.wake(at: PopupBook.retryDelay)).map(\.key) == [key])
        let dropped = book.postFailed(key, message: "org.freedesktop.DBus.Error.InvalidArgs: no", at: 2 * Self.second)
        guard case .dropped(let draft, let reason)? = dropped.first else {
            Issue.record("\(dropped)")
            return
        }
        #expect(draft.key == key && reason.contains("InvalidArgs"))
        #expect(book.inFlightCount == 0)
    }

    @Test func notificationPostedWaitsForTheServersIDAndTheSoundsOutcome() {
        var book = book()
        let effects = book.eventRecorded(recorded(WorkerEvent(title: "a")), at: 0)
        let token = Self.tokens(effects)[0]
        #expect(effects.first == .playSound(token, .named("complete-download")), "dunst lists no sound: notifyd plays it")
        let key = Self.posts(effects)[0].key
        #expect(book.posted(key, id: 42, appName: "Downloads").isEmpty, "the sound is not known yet")
        let announced = book.soundFinished(token, played: false)
        guard case .announce(let posted)? = announced.first else {
            Issue.record("\(announced)")
            return
        }
        #expect(posted.notificationID == 42 && posted.appName == "Downloads" && posted.soundBackend == "failed")
        #expect(book.inFlightCount == 0)
    }

    @Test func aServerThatPlaysSoundsGetsTheHintAndNotifydPlaysNothing() {
        var book = book(Self.withSound)
        let effects = book.eventRecorded(recorded(WorkerEvent(title: "a")), at: 0)
        #expect(!effects.contains { if case .desktop(.playSound) = $0 { true } else { false } })
        guard case .post(_, let draft, let route, _)? = effects.first else {
            Issue.record("\(effects)")
            return
        }
        #expect(route.hint == .named("complete-download") && route.playedByNotifyd == nil)
        guard case .announce(let posted)? = book.posted(draft.key, id: 1, appName: "x").first else {
            Issue.record("announced at once: the server plays the sound")
            return
        }
        #expect(posted.soundBackend == "server")
    }

    @Test func aPopupHeldAcrossAServerRestartIsNotHeardTwice() {
        var book = book()
        let effects = book.eventRecorded(recorded(WorkerEvent(title: "a")), at: 0)
        let key = Self.posts(effects)[0].key
        _ = book.serverChanged(to: nil, at: 1)
        #expect(book.postFailed(key, message: "NameHasNoOwner", at: 1) == [.startServer])
        let again = book.serverChanged(to: Self.dunst, at: 2)
        #expect(Self.posts(again).map(\.key) == [key])
        #expect(!again.contains { if case .desktop(.playSound) = $0 { true } else { false } }, "its sound was played the first time")
    }
}
