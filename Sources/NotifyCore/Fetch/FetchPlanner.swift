/// When an app's next scheduled fetch is due, and why: SPEC's scheduling
/// rules as one pure function of the app's schedule, its activation
/// history, the conditions and the time.
public struct FetchPlan: Sendable, Hashable {
    /// When the next fetch is due (wall clock, µs); nil when none is planned.
    public let next: Microseconds?
    /// One sentence saying why `next` is when it is, or why there is none.
    public let reason: String
    /// What holds the fetch though it is due ("a network connection"), if anything.
    public let heldFor: String?

    /// Whether the fetch should start at `now` (due and not held).
    public func isDue(at now: Microseconds) -> Bool { heldFor == nil && (next.map { $0 <= now } ?? false) }
}

/// Plans scheduled fetches: the interval and its floor, the results
/// (backoff after failures, growth after no data), the usage rule, the
/// conditions, and the coalescing of fetches due close together.
public struct FetchPlanner: Sendable {
    /// SPEC's floor: 15 minutes (`notifyd --fetch-minimum` lowers it).
    public static let standardFloor: Microseconds = 900_000_000
    /// Backoff after failures stops at a day (or the interval, if longer).
    public static let backoffCap: Microseconds = 86_400_000_000
    /// Growth after `no-data` stops at this many times the interval.
    public static let growthCap: Int64 = 4
    /// Fetches due within this of the first one due start with it.
    public static let coalescingWindow: Microseconds = 60_000_000

    /// The shortest interval between two scheduled fetches of an app.
    public let floor: Microseconds
    public let timeZone: LocalTimeZone

    public init(floor: Microseconds = FetchPlanner.standardFloor, timeZone: LocalTimeZone = .utc) {
        self.floor = max(1_000_000, floor)
        self.timeZone = timeZone
    }

    /// How long a fetch may wait for others due soon after it: a minute,
    /// or the floor when that is shorter.
    public var window: Microseconds { min(Self.coalescingWindow, floor) }

    /// The app's interval after the floor, nil for never.
    public func interval(of schedule: FetchSchedule) -> Microseconds? {
        guard schedule.wantsFetches else { return nil }
        return schedule.requestedInterval == 1 ? floor : max(floor, Int64(schedule.requestedInterval) * 1_000_000)
    }

    /// The interval after the results in a row, and the words for it.
    func grownInterval(_ base: Microseconds, _ schedule: FetchSchedule) -> (Microseconds, String) {
        let every = spokenDuration(base)
        if schedule.failuresInARow > 0 {
            let cap = max(base, Self.backoffCap)
            var value = base
            for _ in 0..<min(schedule.failuresInARow, 40) where value < cap { value = min(cap, value * 2) }
            let count = schedule.failuresInARow
            let which = count == 1 ? "the last fetch, which \(schedule.lastResult == .expired ? "expired" : "failed")"
                : "each of the last \(count) fetches that failed or expired"
            return (value, "the interval of \(every), doubled for \(which)\(value == cap ? ", up to its cap of \(spokenDuration(cap))" : "")")
        }
        if schedule.noDataInARow > 0 {
            let cap = base * Self.growthCap
            var value = base
            for _ in 0..<min(schedule.noDataInARow, 40) where value < cap { value = min(cap, value + value / 2) }
            let count = schedule.noDataInARow
            let which = count == 1 ? "the last fetch, which found no new data"
                : "each of the last \(count) fetches that found no new data"
            return (value, "the interval of \(every), grown by half for \(which)\(value == cap ? ", up to its cap of \(Self.growthCap) times" : "")")
        }
        let requested = schedule.requestedInterval
        if requested == 1 { return (base, "the shortest interval, \(every), which the app asked for") }
        if Int64(requested) * 1_000_000 < floor {
            return (base, "the app asked for \(spokenDuration(Int64(requested) * 1_000_000)), raised to the floor of \(every)")
        }
        return (base, "the app's interval of \(every)")
    }

    /// The plan of `app`'s next scheduled fetch.
    public func plan(
        _ app: AppID, in book: FetchBook, activations: [Microseconds], conditions: FetchConditions,
        now: Microseconds
    ) -> FetchPlan {
        let schedule = book.schedule(of: app)
        guard let base = interval(of: schedule) else {
            return FetchPlan(next: nil, reason: "no fetch is planned: the app's fetch interval is never (it has not asked for background fetch)", heldFor: nil)
        }
        guard schedule.enabled else {
            return FetchPlan(next: nil, reason: "no fetch is planned: background fetch is switched off for this app", heldFor: nil)
        }
        if let running = book.runningFetch(of: app) {
            return FetchPlan(
                next: nil,
                reason: "no fetch is planned while fetch \(running.id) runs; it ends by \(timeZone.clockTime(running.deadline)) at the latest",
                heldFor: nil)
        }
        var next: Microseconds
        var reason: String
        if let last = schedule.lastRun {
            let (grown, why) = grownInterval(base, schedule)
            next = last + grown
            reason = "\(spokenDuration(grown)) after the last fetch at \(timeZone.clockTime(last)): \(why)"
            let usage = UsagePattern(activations: activations, now: now, timeZone: timeZone)
            if let (early, habit) = usage.firstFetch(notBefore: last + base, timeZone: timeZone), early < next {
                next = early
                reason = "at \(timeZone.clockTime(early)), \(spokenDuration(UsagePattern.leadTime)) before \(habit.clockTime): the app was opened in the half hour from \(habit.clockTime) on \(habit.days) of the last \(UsagePattern.daysLooked) days (sooner than \(spokenDuration(grown)) after the last fetch, and at least \(spokenDuration(base)) after it)"
            }
        } else {
            next = now
            reason = "as soon as possible: the app asked for background fetch and none has run yet"
        }
        let hold = conditions.hold
        if next < now - window {
            reason += hold == nil ? "; overdue since \(timeZone.clockTime(next)) (the machine slept or notifyd was stopped), so it starts now" : ""
        }
        if let hold {
            reason += next <= now ? "; due, and waiting for \(hold)" : "; it will wait for \(hold)"
        }
        return FetchPlan(next: next, reason: reason, heldFor: hold)
    }

    /// What the scheduler does at `now`: the apps whose fetch starts now
    /// and when to look again (nil: nothing planned; conditions changing
    /// or any schedule changing makes the daemon look again).
    ///
    /// Coalescing: once the first fetch is due, the start waits for the
    /// others due within ``window`` of it (never starting one before it is
    /// due), so that they start together.
    public func due(
        in book: FetchBook, activations: (AppID) -> [Microseconds], conditions: FetchConditions, now: Microseconds
    ) -> (start: [AppID], wake: Microseconds?) {
        var dues: [(AppID, Microseconds)] = []
        for app in book.knownApps {
            let plan = self.plan(app, in: book, activations: activations(app), conditions: conditions, now: now)
            guard plan.heldFor == nil, let next = plan.next else { continue }
            dues.append((app, next))
        }
        guard let first = dues.map(\.1).min() else { return ([], nil) }
        let startAt = dues.map(\.1).filter { $0 <= first + window }.max() ?? first
        if startAt > now { return ([], startAt) }
        let start = dues.filter { $0.1 <= now }.map(\.0)
        let later = dues.filter { $0.1 > now }.map(\.1).min()
        return (start, later)
    }
}
