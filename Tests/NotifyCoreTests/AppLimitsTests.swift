import NotifyCore
import Testing

/// The number of apps notifyd keeps something for is bounded, whatever
/// app IDs callers make up: badged apps (``BadgeBook/maximumApps``) and apps
/// with a state or an activation history (``AppBook/maximumApps``), as
/// fetch schedules are (``FetchBook/maximumApps``).
@Suite struct AppLimitsTests {
    static func app(_ index: Int) -> AppID { try! AppID("org.example.App\(index)") }
    let newcomer = try! AppID("org.example.Newcomer")

    /// A book with ``BadgeBook/maximumApps`` badged apps.
    static func fullBadges() -> BadgeBook {
        var counts: [AppID: UInt32] = [:]
        for index in 0..<BadgeBook.maximumApps { counts[app(index)] = 1 }
        return BadgeBook(counts)
    }

    @Test func oneBadgedAppTooManyIsLimitExceededAndChangesNothing() throws {
        var book = Self.fullBadges()
        let before = book
        var error: NotifydError?
        do { _ = try book.set(newcomer, to: 1) } catch let refused { error = refused }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("10000 apps have a badge") == true)
        error = nil
        do { _ = try book.increment(newcomer, by: 3) } catch let refused { error = refused }
        #expect(error?.code == .limitExceeded)
        #expect(book == before)

        // What adds no badged app is still done: 0 for an unknown app, a badged app changed.
        #expect(try book.set(newcomer, to: 0) == nil)
        #expect(try book.increment(newcomer, by: -2).count == 0)
        #expect(try book.set(Self.app(7), to: 9) == BadgeChange(app: Self.app(7), old: 1, new: 9))

        // Clearing a badge makes room.
        _ = try book.set(Self.app(0), to: 0)
        #expect(try book.set(newcomer, to: 2) == BadgeChange(app: newcomer, old: 0, new: 2))
        #expect(book.nonZero.count == BadgeBook.maximumApps)
    }

    @Test func anEventThatWouldBadgeOneAppTooManyIsRefusedAndStoresNothing() throws {
        var state = NotifydState(badges: Self.fullBadges())
        let before = state
        let session = try SessionID("s")
        var error: NotifydError?
        do { _ = try state.recordEvent(WorkerEvent(), session: session, app: newcomer, at: 0) } catch let refused {
            error = refused
        }
        #expect(error?.code == .limitExceeded)
        #expect(state == before)
        #expect(state.sessions.pendingCount == 0)

        // Without a badge delta it is stored, and an app with a badge still counts up.
        let silent = try state.recordEvent(WorkerEvent(badge: 0), session: session, app: newcomer, at: 0)
        #expect(silent.recorded.handler != nil)
        #expect(silent.badge == nil)
        let counted = try state.recordEvent(WorkerEvent(), session: try SessionID("t"), app: Self.app(3), at: 0)
        #expect(counted.badge == BadgeChange(app: Self.app(3), old: 1, new: 2))
    }

    /// A book whose ``AppBook/maximumApps`` apps each have one activation
    /// (app `i` at time `i + 1`), none of them running.
    static func fullHistories() throws -> AppBook {
        AppBook(restoring: (0..<AppBook.maximumApps).map { Activation(app: app($0), at: Microseconds($0 + 1)) })
    }

    @Test func aNewAppForgetsTheHistoryOfTheAppUsedLongestAgo() throws {
        var book = try Self.fullHistories()
        #expect(book.knownAppCount == AppBook.maximumApps)
        // App 0 is the one used longest ago, but it is running now: app 1 goes instead.
        _ = try book.report(.background, for: Self.app(0), by: ":1.5", at: 50_000)
        let report = try book.report(.active, for: newcomer, by: ":1.6", at: 60_000)
        #expect(report.forgotten == Self.app(1))
        #expect(report.activation == Activation(app: newcomer, at: 60_000))
        #expect(book.activations(of: Self.app(1)).isEmpty)
        #expect(book.activations(of: Self.app(0)).count == 1)
        #expect(book.knownAppCount == AppBook.maximumApps)
        // A known app forgets nobody.
        #expect(try book.report(.active, for: Self.app(2), by: ":1.6", at: 60_001).forgotten == nil)
        #expect(book.knownAppCount == AppBook.maximumApps)
    }

    @Test func theStateForgetsTheRowsOfTheAppItForgets() throws {
        var state = NotifydState(apps: try Self.fullHistories())
        let result = try state.reportAppState(.active, for: newcomer, by: ":1.6", at: 60_000)
        #expect(
            result.outcome.writes == [
                .activationsForgotten(Self.app(0)), .activation(Activation(app: newcomer, at: 60_000), trimming: false),
            ])
        #expect(state.knownApps.contains(newcomer) && !state.knownApps.contains(Self.app(0)))
    }

    @Test func whenEveryAppKnownHasAStateOneMoreIsLimitExceeded() throws {
        var book = AppBook()
        for index in 0..<AppBook.maximumApps {
            _ = try book.report(index.isMultiple(of: 2) ? .active : .background, for: Self.app(index), by: ":1.5", at: 0)
        }
        #expect(book.knownAppCount == AppBook.maximumApps)
        let before = book
        for state in [AppState.active, .inactive, .background] {
            var error: NotifydError?
            do { _ = try book.report(state, for: newcomer, by: ":1.6", at: 1) } catch let refused { error = refused }
            #expect(error?.code == .limitExceeded)
        }
        #expect(book == before)
        // not-running for an unknown app changes nothing and is no error; known apps go on.
        #expect(try book.report(.notRunning, for: newcomer, by: ":1.6", at: 1).change == nil)
        #expect(try book.report(.active, for: Self.app(1), by: ":1.6", at: 2).activation != nil)

        // Once their connection left, apps without a history are forgotten, and those with one can make room.
        _ = book.ownerLeft(":1.5")
        #expect(book.knownAppCount == AppBook.maximumApps / 2 + 1)
        #expect(try book.report(.active, for: newcomer, by: ":1.6", at: 3).forgotten == nil)
    }

    @Test func theStateRefusesOneAppTooManyWithoutTouchingItsBadge() throws {
        var apps = AppBook()
        for index in 0..<AppBook.maximumApps { _ = try apps.report(.active, for: Self.app(index), by: ":1.5", at: 0) }
        var state = NotifydState(badges: BadgeBook([newcomer: 4]), apps: apps)
        let before = state
        var error: NotifydError?
        do { _ = try state.reportAppState(.active, for: newcomer, by: ":1.5", at: 1) } catch let refused { error = refused }
        #expect(error?.code == .limitExceeded)
        #expect(state == before)
        #expect(state.badges[newcomer] == 4)
    }

    @Test func restoringMoreAppsThanTheBoundKeepsThoseUsedMostRecently() {
        let stored = (0..<(AppBook.maximumApps + 3)).map { Activation(app: Self.app($0), at: Microseconds($0)) }
        let book = AppBook(restoring: stored)
        #expect(book.knownAppCount == AppBook.maximumApps)
        #expect(book.activations(of: Self.app(2)).isEmpty)
        #expect(book.activations(of: Self.app(3)).count == 1)
    }
}
