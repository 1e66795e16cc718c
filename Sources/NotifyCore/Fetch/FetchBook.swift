/// Background fetch as data: each app's schedule, the fetches running and
/// the recent history, without I/O or a clock. When each next fetch is
/// due is planned by ``FetchPlanner`` from this book.
///
/// At most one fetch per app runs at a time; each has
/// ``handlerTimeout`` to complete. Every mutation returns what it changed
/// (nil or empty for a no-op), so callers store exactly that.
public struct FetchBook: Sendable, Hashable {
    /// A fetch's completion handler has this long (SPEC: 30 seconds).
    public static let handlerTimeout: Microseconds = 30_000_000
    /// Ended fetches kept per app; recording one more drops the oldest.
    public static let historyKeptPerApp = 100
    /// Apps with a schedule at most: one more is `LimitExceeded` (any
    /// string of the right shape is an app ID; rows must stay bounded).
    public static let maximumApps = 10_000

    /// Apps that set an interval, a switch, or have a history.
    public private(set) var schedules: [AppID: FetchSchedule] = [:]
    /// Running fetches by ID.
    public private(set) var running: [UInt64: RunningFetch] = [:]
    /// The running fetch of each app.
    private var runningByApp: [AppID: UInt64] = [:]
    /// Ended fetches of each app, oldest first.
    private var history: [AppID: [FetchRecord]] = [:]
    /// The highest fetch ID handed out; IDs are never reused.
    public private(set) var lastFetchID: UInt64 = 0

    public init() {}

    /// A book with the stored rows. Running fetches are kept as running:
    /// the daemon ends them `expired` at start-up (``NotifydState/expireFetchesLeftRunning(at:)``).
    public init(
        restoring schedules: [AppID: FetchSchedule], running: [RunningFetch], history: [FetchRecord],
        lastFetchID: UInt64
    ) {
        self.schedules = schedules
        for fetch in running {
            self.running[fetch.id] = fetch
            runningByApp[fetch.app] = fetch.id
        }
        for record in history { self.history[record.app, default: []].append(record) }
        for (app, records) in self.history {
            self.history[app] = Array(records.sorted { $0.id < $1.id }.suffix(Self.historyKeptPerApp))
        }
        let highest = (running.map(\.id) + history.map(\.id)).max() ?? 0
        self.lastFetchID = max(lastFetchID, highest)
    }

    /// The app's schedule; the default (never, enabled) for an app never seen.
    public func schedule(of app: AppID) -> FetchSchedule { schedules[app] ?? FetchSchedule() }

    /// The app's running fetch, if any.
    public func runningFetch(of app: AppID) -> RunningFetch? { runningByApp[app].flatMap { running[$0] } }

    /// Running fetch `id`; `UnknownFetch` when it is not running (never
    /// was, completed, or expired).
    public func runningFetch(_ id: UInt64) throws(NotifydError) -> RunningFetch {
        guard let fetch = running[id] else {
            throw NotifydError(
                .unknownFetch,
                "fetch \(id) is not running: it was completed or expired (after \(spokenDuration(Self.handlerTimeout))), or never started"
            )
        }
        return fetch
    }

    /// The app's ended fetches, oldest first (at most ``historyKeptPerApp``).
    public func history(of app: AppID) -> [FetchRecord] { history[app] ?? [] }

    /// Apps with an interval, a switch, a history or a running fetch, sorted.
    public var knownApps: [AppID] {
        Set(schedules.keys).union(runningByApp.keys).union(history.keys).sorted()
    }

    /// The earliest handler deadline of the running fetches.
    public var earliestDeadline: Microseconds? { running.values.map(\.deadline).min() }

    /// Sets the app's interval (seconds as SPEC's `SetFetchInterval`: 0
    /// never, 1 minimum); `OutOfRange` above a week. Returns the new
    /// schedule, nil when nothing changed.
    public mutating func setInterval(_ seconds: UInt32, for app: AppID) throws(NotifydError) -> FetchSchedule? {
        guard seconds <= FetchSchedule.longestInterval else {
            throw NotifydError(
                .outOfRange,
                "a fetch interval of \(seconds) seconds is longer than a week (\(FetchSchedule.longestInterval) seconds); use 0 for never"
            )
        }
        var schedule = self.schedule(of: app)
        guard schedule.requestedInterval != seconds else { return nil }
        try checkRoom(for: app)
        schedule.requestedInterval = seconds
        schedules[app] = schedule
        return schedule
    }

    /// The user's switch for the app. Returns the new schedule, nil when unchanged.
    public mutating func setEnabled(_ enabled: Bool, for app: AppID) throws(NotifydError) -> FetchSchedule? {
        var schedule = self.schedule(of: app)
        guard schedule.enabled != enabled else { return nil }
        try checkRoom(for: app)
        schedule.enabled = enabled
        schedules[app] = schedule
        return schedule
    }

    /// Starts a fetch of `app` at `now`; `LimitExceeded` while one runs.
    public mutating func start(_ app: AppID, trigger: FetchTrigger, at now: Microseconds) throws(NotifydError)
        -> RunningFetch
    {
        if let current = runningFetch(of: app) {
            throw NotifydError(
                .limitExceeded,
                "fetch \(current.id) of \(app) is still running; it ends when the app completes it or within \(spokenDuration(Self.handlerTimeout)) of its start"
            )
        }
        try checkRoom(for: app)
        lastFetchID &+= 1
        let fetch = RunningFetch(
            id: lastFetchID, app: app, started: now, deadline: now &+ Self.handlerTimeout, trigger: trigger)
        running[fetch.id] = fetch
        runningByApp[app] = fetch.id
        if schedules[app] == nil { schedules[app] = FetchSchedule() }
        return fetch
    }

    /// Ends running fetch `id` with `result` at `now`; `UnknownFetch` when
    /// it is not running (never was, completed, or expired).
    public mutating func complete(_ id: UInt64, with result: FetchCompletion, at now: Microseconds) throws(NotifydError)
        -> EndedFetch
    {
        end(try runningFetch(id), with: result, at: now)
    }

    /// Ends `expired` every running fetch whose deadline is at or before `now`, oldest ID first.
    public mutating func expire(at now: Microseconds) -> [EndedFetch] {
        running.values.filter { $0.deadline <= now }.sorted { $0.id < $1.id }.map { end($0, with: .expired, at: now) }
    }

    /// Ends `expired` every running fetch (at start-up: they ran when the daemon stopped).
    public mutating func expireAll(at now: Microseconds) -> [EndedFetch] {
        running.values.sorted { $0.id < $1.id }.map { end($0, with: .expired, at: now) }
    }

    /// The wall clock was set by `delta`: running deadlines and the last
    /// runs move with it, so every interval and handler keeps its elapsed
    /// length. Returns whether anything moved.
    @discardableResult
    public mutating func shift(by delta: Microseconds) -> Bool {
        guard delta != 0 else { return false }
        var moved = false
        for (id, fetch) in running {
            running[id] = fetch.shifted(by: delta)
            moved = true
        }
        for (app, schedule) in schedules where schedule.lastRun != nil {
            schedules[app]!.lastRun = schedule.lastRun! &+ delta
            moved = true
        }
        return moved
    }

    /// `LimitExceeded` when `app` would be one schedule too many.
    private func checkRoom(for app: AppID) throws(NotifydError) {
        guard schedules[app] == nil, schedules.count >= Self.maximumApps else { return }
        throw NotifydError(
            .limitExceeded,
            "notifyd keeps background-fetch schedules for at most \(Self.maximumApps) apps, and \(app) would be one more"
        )
    }

    private mutating func end(_ fetch: RunningFetch, with result: FetchCompletion, at now: Microseconds) -> EndedFetch {
        running[fetch.id] = nil
        runningByApp[fetch.app] = nil
        var schedule = self.schedule(of: fetch.app)
        schedule.learn(result, startedAt: fetch.started)
        schedules[fetch.app] = schedule
        let record = FetchRecord(
            id: fetch.id, app: fetch.app, started: fetch.started, ended: max(now, fetch.started), result: result,
            trigger: fetch.trigger)
        var records = history[fetch.app] ?? []
        records.append(record)
        let trimmed = records.count > Self.historyKeptPerApp
        if trimmed { records.removeFirst(records.count - Self.historyKeptPerApp) }
        history[fetch.app] = records
        return EndedFetch(record: record, schedule: schedule, trimmedHistory: trimmed)
    }
}
