/// Background fetch's operations (SPEC "Background fetch"): each changes
/// the fetch book and returns the rows to store and what follows.
extension NotifydState {
    /// SetFetchInterval: `OutOfRange` above a week; a no-op when unchanged.
    public mutating func setFetchInterval(_ seconds: UInt32, for app: AppID) throws(NotifydError) -> Decision<Void> {
        guard let schedule = try fetches.setInterval(seconds, for: app) else { return Decision(NotifydOutcome()) }
        return Decision(NotifydOutcome(writes: [.fetchSchedule(app, schedule)], effects: [.fetchPlanChanged]))
    }

    /// SetFetchEnabled: the user's switch; a no-op when unchanged.
    public mutating func setFetchEnabled(_ enabled: Bool, for app: AppID) throws(NotifydError) -> Decision<Void> {
        guard let schedule = try fetches.setEnabled(enabled, for: app) else { return Decision(NotifydOutcome()) }
        return Decision(NotifydOutcome(writes: [.fetchSchedule(app, schedule)], effects: [.fetchPlanChanged]))
    }

    /// Starts a fetch of `app` (FetchNow, or the scheduler); `LimitExceeded`
    /// while one runs. Follows: `PerformFetch` and the wake-up.
    public mutating func startFetch(
        _ app: AppID, trigger: FetchTrigger, at now: Microseconds
    ) throws(NotifydError) -> Decision<RunningFetch> {
        let fetch = try fetches.start(app, trigger: trigger, at: now)
        return Decision(
            fetch,
            NotifydOutcome(
                writes: [.fetchStarted(fetch, schedule: fetches.schedule(of: app))],
                effects: [.fetchStarted(fetch), .fetchPlanChanged])
        )
    }

    /// CompleteFetch: the app's result; `UnknownFetch` when the fetch is
    /// not running. Follows: `FetchCompleted`.
    public mutating func completeFetch(
        _ id: UInt64, with result: FetchCompletion, at now: Microseconds
    ) throws(NotifydError) -> Decision<Void> {
        Decision(ended([try fetches.complete(id, with: result, at: now)]))
    }

    /// Ends `expired` the fetches whose 30 seconds are up.
    public mutating func expireFetches(at now: Microseconds) -> Decision<Void> {
        // Two steps, as in expireHandlers: the expiry first, then its rows.
        let expired = fetches.expire(at: now)
        return Decision(ended(expired))
    }

    /// At start-up: the fetches stored as running ran when the daemon
    /// stopped; each ends `expired`.
    public mutating func expireFetchesLeftRunning(at now: Microseconds) -> Decision<Void> {
        let expired = fetches.expireAll(at: now)
        return Decision(ended(expired))
    }

    /// Rows and signals of ended fetches.
    private func ended(_ fetches: [EndedFetch]) -> NotifydOutcome {
        guard !fetches.isEmpty else { return NotifydOutcome() }
        return NotifydOutcome(
            writes: fetches.map { .fetchEnded($0) },
            effects: fetches.map { .fetchCompleted($0.record) } + [.fetchPlanChanged])
    }

    /// The plan of the app's next scheduled fetch (GetFetchSchedule's `next` and `reason`).
    public func fetchPlan(
        of app: AppID, planner: FetchPlanner, conditions: FetchConditions, now: Microseconds
    ) -> FetchPlan {
        planner.plan(
            app, in: fetches, activations: apps.activations(of: app).map(\.at), conditions: conditions, now: now)
    }

    /// The scheduler's turn at `now`: starts every scheduled fetch due (one
    /// outcome for all); its answer is the fetches started. When to look
    /// again is ``nextFetchWake(planner:conditions:at:)``'s to say.
    public mutating func runDueFetches(
        planner: FetchPlanner, conditions: FetchConditions, at now: Microseconds
    ) -> Decision<[RunningFetch]> {
        let apps = self.apps
        let due = planner.due(
            in: fetches, activations: { apps.activations(of: $0).map(\.at) }, conditions: conditions, now: now)
        var outcome = NotifydOutcome()
        var started: [RunningFetch] = []
        for app in due.start {
            guard let start = try? startFetch(app, trigger: .scheduled, at: now) else { continue }
            started.append(start.value)
            outcome.writes += start.outcome.writes
            outcome.effects += start.outcome.effects.filter { $0 != .fetchPlanChanged }
        }
        return Decision(started, outcome)
    }

    /// When the fetch scheduler must next look (Unix µs): now, when a
    /// scheduled fetch is due; nil when none is planned.
    public func nextFetchWake(planner: FetchPlanner, conditions: FetchConditions, at now: Microseconds) -> Microseconds? {
        let apps = self.apps
        let due = planner.due(
            in: fetches, activations: { apps.activations(of: $0).map(\.at) }, conditions: conditions, now: now)
        return due.start.isEmpty ? due.wake : now
    }
}
