import NotifyCore
import Testing

/// The usage rule (3 of the last 7 days in the same half hour: 10 minutes
/// before it), on its own and over a simulated week.
@Suite struct FetchUsageTests {
    static let minute: Microseconds = 60_000_000
    static let hour: Microseconds = 60 * minute
    static let day: Microseconds = 24 * hour
    let app = try! AppID("org.example.Mail")
    /// Monday 2026-11-23 00:00 UTC.
    let monday: Microseconds = 1_795_392_000 * 1_000_000

    @Test func threeDaysInTheSameHalfHourMakeAHabit() {
        let opened = [0, 1, 2].map { monday + $0 * Self.day + 9 * Self.hour + 5 * Self.minute }
        let pattern = UsagePattern(activations: opened, now: monday + 3 * Self.day, timeZone: .utc)
        #expect(pattern.habits.map(\.clockTime) == ["09:00"])
        #expect(pattern.habits.first?.days == 3)
        let two = UsagePattern(activations: Array(opened.prefix(2)), now: monday + 3 * Self.day, timeZone: .utc)
        #expect(two.habits.isEmpty, "two days are not a habit")
    }

    @Test func manyOpeningsOnOneDayCountOnce() {
        let opened = (0..<10).map { monday + 9 * Self.hour + Int64($0) * Self.minute }
        #expect(UsagePattern(activations: opened, now: monday + Self.day, timeZone: .utc).habits.isEmpty)
    }

    @Test func onlyTheLastSevenDaysCount() {
        let opened = [0, 1, 2].map { monday + $0 * Self.day + 9 * Self.hour }
        #expect(UsagePattern(activations: opened, now: monday + 7 * Self.day, timeZone: .utc).habits.count == 1)
        #expect(UsagePattern(activations: opened, now: monday + 8 * Self.day + Self.hour, timeZone: .utc).habits.isEmpty)
    }

    @Test func halfHoursFollowTheLocalClock() {
        // 08:05 UTC is 09:05 in UTC+1.
        let opened = [0, 1, 2].map { monday + $0 * Self.day + 8 * Self.hour + 5 * Self.minute }
        let pattern = UsagePattern(activations: opened, now: monday + 3 * Self.day, timeZone: .fixed(hours: 1))
        #expect(pattern.habits.map(\.clockTime) == ["09:00"])
        let first = pattern.firstFetch(notBefore: monday + 3 * Self.day, timeZone: .fixed(hours: 1))
        #expect(first?.0 == monday + 3 * Self.day + 7 * Self.hour + 50 * Self.minute, "08:50 local is 07:50 UTC")
    }

    @Test func aHabitJustAfterMidnightLeadsIntoTheDayBefore() {
        let opened = [0, 1, 2].map { monday + $0 * Self.day + 5 * Self.minute }
        let pattern = UsagePattern(activations: opened, now: monday + 2 * Self.day + Self.hour, timeZone: .utc)
        let first = pattern.firstFetch(notBefore: monday + 2 * Self.day + Self.hour, timeZone: .utc)
        #expect(first?.0 == monday + 3 * Self.day - 10 * Self.minute, "23:50 the evening before")
    }

    /// The usage rule brings the fetch forward only when that is sooner and
    /// at least the interval after the last run, and says so.
    @Test func theRuleBringsAFetchForwardBeforeTheHabitualHalfHour() throws {
        let planner = FetchPlanner()
        var book = FetchBook()
        _ = try book.setInterval(4 * 3600, for: app)
        let opened = [0, 1, 2].map { monday + $0 * Self.day + 9 * Self.hour + 10 * Self.minute }
        let last = monday + 3 * Self.day + 3 * Self.hour
        let fetch = try book.start(app, trigger: .scheduled, at: last)
        _ = try book.complete(fetch.id, with: .noData, at: last)
        let plan = planner.plan(app, in: book, activations: opened, conditions: FetchConditions(), now: last)
        // The interval alone says 03:00 + 6 h = 09:00; the habit says 08:50.
        #expect(plan.next == monday + 3 * Self.day + 8 * Self.hour + 50 * Self.minute)
        #expect(plan.reason == "at 08:50, 10 minutes before 09:00: the app was opened in the half hour from 09:00 on 3 of the last 7 days (sooner than 6 hours after the last fetch, and at least 4 hours after it)")
        // A last run at 06:00: 08:50 is less than the interval after it.
        var recent = FetchBook()
        _ = try recent.setInterval(4 * 3600, for: app)
        let early = try recent.start(app, trigger: .scheduled, at: monday + 3 * Self.day + 6 * Self.hour)
        _ = try recent.complete(early.id, with: .newData, at: monday + 3 * Self.day + 6 * Self.hour)
        let kept = planner.plan(app, in: recent, activations: opened, conditions: FetchConditions(), now: monday + 3 * Self.day + 6 * Self.hour)
        #expect(kept.next == monday + 3 * Self.day + 10 * Self.hour)
        #expect(kept.reason.hasPrefix("4 hours after the last fetch at 06:00"))
    }

    /// A week: the user reads mail at 09:05 every weekday; the app asks for
    /// a fetch every 6 hours and mostly gets no data. The scheduler is run
    /// at each wake it asks for, and each fetch completes a second later.
    /// Before the habit forms (three mornings) no fetch is placed at 08:50;
    /// from Thursday on, every morning has a fetch in the 6 hours up to
    /// 08:50 (at 08:50 itself unless an earlier one is too recent), through
    /// the weekend (still 3 of the last 7 days); no two fetches are ever
    /// less than the interval apart.
    @Test func aWeekOfUsage() throws {
        let planner = FetchPlanner()
        var state = NotifydState()
        _ = try state.setFetchInterval(6 * 3600, for: app)
        let end = monday + 7 * Self.day
        var readings = (0..<5).map { monday + Int64($0) * Self.day + 9 * Self.hour + 5 * Self.minute }[...]
        var now = monday
        var starts: [Microseconds] = []
        while now < end {
            let started = state.runDueFetches(planner: planner, conditions: FetchConditions(), at: now).value
            for fetch in started {
                starts.append(fetch.started)
                _ = try state.completeFetch(fetch.id, with: starts.count % 4 == 0 ? .newData : .noData, at: now + 1_000_000)
            }
            _ = state.runDueFetches(planner: planner, conditions: FetchConditions(), at: now + 1_000_000)
            let wake = state.nextFetchWake(planner: planner, conditions: FetchConditions(), at: now + 1_000_000) ?? end
            #expect(wake > now, "the scheduler asks to wake later, not now")
            if let reading = readings.first, reading <= wake {
                _ = try state.reportAppState(.active, for: app, by: ":1.1", at: reading)
                readings.removeFirst()
                now = max(reading, now + 1_000_000)
            } else {
                now = max(wake, now + 1_000_000)
            }
        }
        let gaps = zip(starts, starts.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 6 * Self.hour }, "\(gaps.map { $0 / Self.minute })")
        let usage = 8 * Self.hour + 50 * Self.minute
        let atUsage = starts.filter { floorModulo($0 - monday, Self.day) == usage }.map { ($0 - monday) / Self.day }
        #expect(atUsage.allSatisfy { $0 >= 3 }, "no habit before Thursday: \(atUsage)")
        #expect(atUsage.count >= 2, "\(atUsage)")
        for day in Int64(3)..<7 {
            let morning = monday + day * Self.day + usage
            #expect(starts.contains { $0 > morning - 6 * Self.hour && $0 <= morning }, "day \(day): \(starts)")
        }
    }
}

private func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { ((a % b) + b) % b }
