import NotifyCore
import Testing

/// Background fetch's operations: rows, effects, limits, expiry, the
/// scheduler's turns (coalescing, catch-up, the switch) and clock steps.
@Suite struct FetchStateTests {
    static let second: Microseconds = 1_000_000
    static let minute: Microseconds = 60 * second
    static let hour: Microseconds = 60 * minute
    let app = try! AppID("org.example.Feeds")
    let other = try! AppID("org.example.News")
    let planner = FetchPlanner()
    let clear = FetchConditions()

    @Test func settingAnIntervalStoresTheScheduleAndReplans() throws {
        var state = NotifydState()
        let outcome = try state.setFetchInterval(3600, for: app)
        #expect(outcome.writes == [.fetchSchedule(app, FetchSchedule(requestedInterval: 3600))])
        #expect(outcome.effects == [.fetchPlanChanged])
        #expect(try state.setFetchInterval(3600, for: app).isEmpty, "unchanged: a no-op")
        #expect(throws: NotifydError(.outOfRange, "a fetch interval of 604801 seconds is longer than a week (604800 seconds); use 0 for never")) {
            try state.setFetchInterval(604_801, for: app)
        }
        #expect(state.fetches.schedule(of: app).requestedInterval == 3600)
    }

    @Test func theSwitchIsKeptAcrossIntervalChanges() throws {
        var state = NotifydState()
        #expect(try state.setFetchEnabled(false, for: app).writes == [.fetchSchedule(app, FetchSchedule(enabled: false))])
        _ = try state.setFetchInterval(900, for: app)
        #expect(state.fetches.schedule(of: app) == FetchSchedule(requestedInterval: 900, enabled: false))
        #expect(try state.setFetchEnabled(false, for: app).isEmpty)
    }

    @Test func aFetchStartsCompletesOnceAndIsCounted() throws {
        var state = NotifydState()
        let started = try state.startFetch(app, trigger: .manual, at: 10 * Self.second)
        let fetch = started.value
        #expect(fetch == RunningFetch(id: 1, app: app, started: 10 * Self.second, deadline: 40 * Self.second, trigger: .manual))
        #expect(started.effects == [.fetchStarted(fetch), .fetchPlanChanged])
        #expect(throws: NotifydError.self, "one at a time per app") { try state.startFetch(app, trigger: .manual, at: 11 * Self.second) }
        #expect(try state.startFetch(other, trigger: .manual, at: 11 * Self.second).value.id == 2)

        let completed = try state.completeFetch(1, with: .newData, at: 12 * Self.second)
        let record = FetchRecord(id: 1, app: app, started: 10 * Self.second, ended: 12 * Self.second, result: .newData, trigger: .manual)
        #expect(completed.effects == [.fetchCompleted(record), .fetchPlanChanged])
        #expect(state.fetches.schedule(of: app) == FetchSchedule(lastRun: 10 * Self.second, lastResult: .newData, runs: 1))
        let again = #expect(throws: NotifydError.self) { try state.completeFetch(1, with: .noData, at: 13 * Self.second) }
        #expect(again?.code == .unknownFetch)
        #expect(state.fetches.history(of: app) == [record])
    }

    @Test func aFetchNotCompletedInThirtySecondsExpiresOnce() throws {
        var state = NotifydState()
        _ = try state.startFetch(app, trigger: .scheduled, at: 0)
        #expect(state.expireFetches(at: 29 * Self.second).isEmpty)
        #expect(state.fetches.earliestDeadline == 30 * Self.second)
        let expired = state.expireFetches(at: Self.hour)  // asleep past the deadline
        #expect(expired.effects.first == .fetchCompleted(FetchRecord(id: 1, app: app, started: 0, ended: Self.hour, result: .expired, trigger: .scheduled)))
        #expect(state.expireFetches(at: Self.hour + 1).isEmpty)
        #expect(state.fetches.schedule(of: app).failuresInARow == 1)
        #expect(state.fetches.earliestDeadline == nil, "nothing left to wake for")
    }

    @Test func fetchesLeftRunningAtAStopEndExpiredAtStartUp() throws {
        var state = NotifydState()
        let fetch = try state.startFetch(app, trigger: .scheduled, at: 0).value
        var restored = NotifydState(fetches: FetchBook(
            restoring: state.fetches.schedules, running: [fetch], history: [], lastFetchID: 1))
        let outcome = restored.expireFetchesLeftRunning(at: 5 * Self.second)
        #expect(outcome.effects.first == .fetchCompleted(FetchRecord(id: 1, app: app, started: 0, ended: 5 * Self.second, result: .expired, trigger: .scheduled)))
        #expect(try restored.startFetch(app, trigger: .manual, at: 6 * Self.second).value.id == 2, "IDs are never reused")
    }

    @Test func theHistoryKeepsTheNewestHundred() throws {
        var book = FetchBook()
        var trimmed = 0
        for index in 0..<105 {
            let fetch = try book.start(app, trigger: .manual, at: Int64(index))
            if try book.complete(fetch.id, with: .noData, at: Int64(index)).trimmedHistory { trimmed += 1 }
        }
        #expect(book.history(of: app).count == 100)
        #expect(book.history(of: app).first?.id == 6)
        #expect(trimmed == 5)
    }

    @Test func theSchedulerStartsWhatIsDueAndWakesForTheNext() throws {
        var state = NotifydState()
        _ = try state.setFetchInterval(3600, for: app)
        let first = turn(&state, conditions: clear, at: 0)
        #expect(first.started.map(\.app) == [app])
        #expect(first.wake == nil, "the only app is running")
        _ = try state.completeFetch(first.started[0].id, with: .newData, at: Self.second)
        let idle = turn(&state, conditions: clear, at: 2 * Self.second)
        #expect(idle.started.isEmpty)
        #expect(idle.wake == Self.hour, "one wake, when the next is due")
    }

    @Test func fetchesDueWithinAMinuteStartTogetherNeverEarly() throws {
        var state = NotifydState()
        for (app, start) in [(app, 0), (other, 40 * Self.second)] {
            _ = try state.setFetchInterval(3600, for: app)
            let fetch = try state.startFetch(app, trigger: .manual, at: start).value
            _ = try state.completeFetch(fetch.id, with: .newData, at: start)
        }
        let wait = turn(&state, conditions: clear, at: Self.hour)
        #expect(wait.started.isEmpty, "the first waits for the second, due 40 s later")
        #expect(wait.wake == Self.hour + 40 * Self.second)
        let both = turn(&state, conditions: clear, at: Self.hour + 40 * Self.second)
        #expect(Set(both.started.map(\.app)) == [app, other])
    }

    @Test func disabledAppsAndHeldConditionsStartNothing() throws {
        var state = NotifydState()
        _ = try state.setFetchInterval(3600, for: app)
        _ = try state.setFetchEnabled(false, for: app)
        let off = turn(&state, conditions: clear, at: 0)
        #expect(off.started.isEmpty && off.wake == nil, "switched off: no wake at all")
        _ = try state.setFetchEnabled(true, for: app)
        let offline = turn(&state, conditions: FetchConditions(networkAvailable: false), at: 0)
        #expect(offline.started.isEmpty && offline.wake == nil, "held: the daemon looks again when the network comes back")
        #expect(turn(&state, conditions: clear, at: 1).started.map(\.app) == [app])
        // FetchNow ignores both.
        var manual = NotifydState()
        _ = try manual.setFetchEnabled(false, for: app)
        #expect(try manual.startFetch(app, trigger: .manual, at: 0).value.app == app)
    }

    @Test func aClockStepMovesTheRunningDeadlineAndTheLastRun() throws {
        var state = NotifydState()
        _ = try state.setFetchInterval(3600, for: app)
        let done = try state.startFetch(app, trigger: .scheduled, at: 10 * Self.hour).value
        _ = try state.completeFetch(done.id, with: .newData, at: 10 * Self.hour)
        let shift = state.shiftDeadlines(by: -Self.hour)
        #expect(shift.outcome.writes == [.deadlineShift(-Self.hour)])
        #expect(shift.outcome.effects == [.fetchPlanChanged])
        // Set back an hour: the next fetch is still an hour of elapsed time after the last.
        let plan = state.fetchPlan(of: app, planner: planner, conditions: clear, now: 9 * Self.hour)
        #expect(plan.next == 10 * Self.hour)
        _ = try state.startFetch(other, trigger: .manual, at: 20 * Self.hour)
        _ = state.shiftDeadlines(by: Self.hour)
        #expect(state.expireFetches(at: 21 * Self.hour + 29 * Self.second).isEmpty, "set forward: not expired early")
        #expect(!state.expireFetches(at: 21 * Self.hour + 30 * Self.second).isEmpty)
    }
}

extension FetchStateTests {
    /// An activation feeds the usage rule: the plan of an app with fetches
    /// is looked at again; an app without fetches costs nothing more.
    @Test func anActivationReplansOnlyAnAppWithFetches() throws {
        var state = NotifydState()
        #expect(try !state.reportAppState(.active, for: app, by: ":1.1", at: 0).outcome.effects.contains(.fetchPlanChanged))
        _ = try state.setFetchInterval(3600, for: app)
        #expect(try state.reportAppState(.active, for: app, by: ":1.1", at: 1).outcome.effects.last == .fetchPlanChanged)
        #expect(try !state.reportAppState(.inactive, for: app, by: ":1.1", at: 2).outcome.effects.contains(.fetchPlanChanged))
    }
}

extension FetchStateTests {
    /// Any well-formed string is an app ID: schedules stay bounded.
    @Test func schedulesAreBoundedPerDaemon() throws {
        var book = FetchBook()
        for index in 0..<FetchBook.maximumApps { _ = try book.setInterval(900, for: try AppID("org.example.A\(index)")) }
        let refused = #expect(throws: NotifydError.self) { try book.setInterval(900, for: try AppID("org.example.More")) }
        #expect(refused?.code == .limitExceeded)
        #expect(throws: NotifydError.self) { try book.start(try AppID("org.example.More"), trigger: .manual, at: 0) }
        #expect(try book.setInterval(60, for: try AppID("org.example.A1")) != nil, "apps already known still change")
        #expect(book.schedules.count == FetchBook.maximumApps)
    }

    /// A turn of the scheduler at `now`: the fetches it started, then when it
    /// must look again.
    func turn(
        _ state: inout NotifydState, conditions: FetchConditions, at now: Microseconds
    ) -> (started: [RunningFetch], wake: Microseconds?) {
        let started = state.runDueFetches(planner: planner, conditions: conditions, at: now).value
        return (started, state.nextFetchWake(planner: planner, conditions: conditions, at: now))
    }
}
