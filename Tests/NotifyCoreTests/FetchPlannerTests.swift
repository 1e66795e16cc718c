import NotifyCore
import Testing

/// SPEC's scheduling rules, one by one, each with its `reason`.
@Suite struct FetchPlannerTests {
    static let second: Microseconds = 1_000_000
    static let minute: Microseconds = 60 * second
    static let hour: Microseconds = 60 * minute
    static let day: Microseconds = 24 * hour
    let app = try! AppID("org.example.Feeds")
    let planner = FetchPlanner()
    /// Monday 2026-11-23 00:00 UTC.
    let monday: Microseconds = 1_795_392_000 * 1_000_000

    /// A book in which the app set `interval` and its fetches came to `results`, the last starting at `lastRun`.
    func book(interval: UInt32, results: [FetchCompletion] = [], lastRun: Microseconds = 0) throws -> FetchBook {
        var book = FetchBook()
        _ = try book.setInterval(interval, for: app)
        for (index, result) in results.enumerated() {
            let start = lastRun - Int64(results.count - 1 - index) * Self.hour
            let fetch = try book.start(app, trigger: .scheduled, at: start)
            _ = try book.complete(fetch.id, with: result, at: start + Self.second)
        }
        return book
    }

    func plan(_ book: FetchBook, activations: [Microseconds] = [], conditions: FetchConditions = FetchConditions(), now: Microseconds) -> FetchPlan {
        planner.plan(app, in: book, activations: activations, conditions: conditions, now: now)
    }

    @Test func anAppThatNeverAskedIsNeverFetched() {
        let plan = plan(FetchBook(), now: monday)
        #expect(plan.next == nil)
        #expect(plan.reason == "no fetch is planned: the app's fetch interval is never (it has not asked for background fetch)")
    }

    @Test func theFirstFetchIsDueAtOnce() throws {
        let plan = plan(try book(interval: 3600), now: monday)
        #expect(plan.next == monday)
        #expect(plan.isDue(at: monday))
        #expect(plan.reason == "as soon as possible: the app asked for background fetch and none has run yet")
    }

    @Test func theIntervalCountsFromTheLastRun() throws {
        let plan = plan(try book(interval: 3600, results: [.newData], lastRun: monday + 9 * Self.hour), now: monday + 9 * Self.hour + Self.minute)
        #expect(plan.next == monday + 10 * Self.hour)
        #expect(plan.reason == "1 hour after the last fetch at 09:00: the app's interval of 1 hour")
    }

    @Test func anIntervalBelowTheFloorIsRaisedAndMinimumIsTheFloor() throws {
        let last = monday + 9 * Self.hour
        let raised = plan(try book(interval: 60, results: [.newData], lastRun: last), now: last)
        #expect(raised.next == last + 15 * Self.minute)
        #expect(raised.reason == "15 minutes after the last fetch at 09:00: the app asked for 1 minute, raised to the floor of 15 minutes")
        let minimum = plan(try book(interval: 1, results: [.newData], lastRun: last), now: last)
        #expect(minimum.next == last + 15 * Self.minute)
        #expect(minimum.reason.hasSuffix("the shortest interval, 15 minutes, which the app asked for"))
        let lowered = FetchPlanner(floor: 5 * Self.second).plan(
            app, in: try book(interval: 1, results: [.newData], lastRun: last), activations: [], conditions: FetchConditions(), now: last)
        #expect(lowered.next == last + 5 * Self.second, "--fetch-minimum lowers the floor")
    }

    @Test func failuresDoubleTheIntervalUpToADay() throws {
        let last = monday + 9 * Self.hour
        let once = plan(try book(interval: 3600, results: [.newData, .failed], lastRun: last), now: last)
        #expect(once.next == last + 2 * Self.hour)
        #expect(once.reason == "2 hours after the last fetch at 09:00: the interval of 1 hour, doubled for the last fetch, which failed")
        let thrice = plan(try book(interval: 3600, results: [.failed, .expired, .failed], lastRun: last), now: last)
        #expect(thrice.next == last + 8 * Self.hour)
        #expect(thrice.reason.contains("doubled for each of the last 3 fetches that failed or expired"))
        let many = plan(try book(interval: 3600, results: Array(repeating: .expired, count: 7), lastRun: last), now: last)
        #expect(many.next == last + Self.day)
        #expect(many.reason.hasSuffix("up to its cap of 24 hours"))
    }

    @Test func noDataGrowsTheIntervalByHalfUpToFourTimes() throws {
        let last = monday + 9 * Self.hour
        let twice = plan(try book(interval: 3600, results: [.noData, .noData], lastRun: last), now: last)
        #expect(twice.next == last + 2 * Self.hour + 15 * Self.minute)
        #expect(twice.reason.contains("grown by half for each of the last 2 fetches that found no new data"))
        let capped = plan(try book(interval: 3600, results: Array(repeating: .noData, count: 6), lastRun: last), now: last)
        #expect(capped.next == last + 4 * Self.hour)
        #expect(capped.reason.hasSuffix("up to its cap of 4 times"))
    }

    @Test func newDataResetsTheInterval() throws {
        let last = monday + 9 * Self.hour
        let plan = plan(try book(interval: 3600, results: [.failed, .noData, .failed, .newData], lastRun: last), now: last)
        #expect(plan.next == last + Self.hour)
        #expect(plan.reason == "1 hour after the last fetch at 09:00: the app's interval of 1 hour")
    }

    @Test func theUserSwitchAndARunningFetchPlanNothing() throws {
        var book = try book(interval: 3600)
        _ = try book.setEnabled(false, for: app)
        let off = plan(book, now: monday)
        #expect(off.next == nil && off.reason == "no fetch is planned: background fetch is switched off for this app")
        _ = try book.setEnabled(true, for: app)
        _ = try book.start(app, trigger: .manual, at: monday)
        let running = plan(book, now: monday)
        #expect(running.next == nil)
        #expect(running.reason == "no fetch is planned while fetch 1 runs; it ends by 00:00 at the latest")
    }

    @Test func conditionsHoldADueFetchAndSaySo() throws {
        let book = try book(interval: 3600)
        let offline = plan(book, conditions: FetchConditions(networkAvailable: false), now: monday)
        #expect(!offline.isDue(at: monday))
        #expect(offline.heldFor == "a network connection")
        #expect(offline.reason.hasSuffix("; due, and waiting for a network connection"))
        #expect(plan(book, conditions: FetchConditions(networkMetered: true), now: monday).heldFor == "a network that is not metered")
        #expect(plan(book, conditions: FetchConditions(powerSaver: true), now: monday).heldFor == "power-saver mode to end")
        let later = plan(try self.book(interval: 3600, results: [.newData], lastRun: monday), conditions: FetchConditions(powerSaver: true), now: monday)
        #expect(later.reason.hasSuffix("; it will wait for power-saver mode to end"))
    }

    @Test func anOverdueFetchStartsNowAndSaysWhy() throws {
        let last = monday + 9 * Self.hour
        let plan = plan(try book(interval: 3600, results: [.newData], lastRun: last), now: last + 5 * Self.hour)
        #expect(plan.isDue(at: last + 5 * Self.hour))
        #expect(plan.reason.hasSuffix("; overdue since 10:00 (the machine slept or notifyd was stopped), so it starts now"))
    }

    @Test func timesInReasonsAreLocal() throws {
        let last = monday + 9 * Self.hour
        let berlin = FetchPlanner(timeZone: .fixed(hours: 1))
        let plan = berlin.plan(app, in: try book(interval: 3600, results: [.newData], lastRun: last), activations: [], conditions: FetchConditions(), now: last)
        #expect(plan.reason.hasPrefix("1 hour after the last fetch at 10:00"))
    }
}
