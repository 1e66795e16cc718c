import DBus
import NotifyCore

/// `org.notifyd.Notifyd1.Fetch`: background fetch (SPEC "Background
/// fetch"). Handlers decode and authorize, ask the core, and hand the
/// outcome to the committer; `PerformFetch`, the wake-up of the app and
/// `FetchCompleted` follow the commit (``EffectRunner``), and the
/// ``FetchScheduler`` plans again after every change.
final class FetchService {
    private let committer: Committer
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    private let scheduler: FetchScheduler

    init(committer: Committer, callers: CallerCheck?, clock: any DaemonClock, scheduler: FetchScheduler) {
        self.committer = committer
        self.callers = callers
        self.clock = clock
        self.scheduler = scheduler
    }

    /// Decodes the app ID of argument 0 and checks the caller may act for it.
    private func app(of call: DBusMethodCall) throws -> AppID {
        let app = try AppID(call.argument(0))
        try callers?.authorize(call, for: app)
        return app
    }

    func setFetchInterval(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let seconds: UInt32 = try call.argument(1)
        try committer.apply { (state) throws(NotifydError) in try state.setFetchInterval(seconds, for: app) }
        return committer.respond(call, [])
    }

    /// The user's switch: a sandboxed app may not turn its own fetches on.
    func setFetchEnabled(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        let enabled: Bool = try call.argument(1)
        try callers?.authorizeForAllApps(call)
        try committer.apply { (state) throws(NotifydError) in try state.setFetchEnabled(enabled, for: app) }
        return committer.respond(call, [])
    }

    func getFetchSchedule(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        return committer.read(call) { [self] in .reply([scheduleDictionary(of: app, in: committer.committed, now: clock.now())]) }
    }

    func listFetchSchedules(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call)
        return committer.read(call) { [self] in
            let committed = committer.committed
            let now = clock.now()
            let rows: [DBusValue] = committed.fetches.knownApps.filter { visibility?.shows($0) ?? true }.map { app in
                .structure([.string(app.rawValue), scheduleDictionary(of: app, in: committed, now: now)])
            }
            return .reply([.array(element: Self.scheduleRow, rows)])
        }
    }

    func getFetchHistory(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        return committer.read(call) { [committer] in
            let rows: [DBusValue] = committer.committed.fetches.history(of: app).reversed().map { record in
                .structure([
                    .uint64(record.id), .string(record.trigger.rawValue), .int64(record.started), .int64(record.ended),
                    .string(record.result.rawValue),
                ])
            }
            return .reply([.array(element: Self.historyRow, rows)])
        }
    }

    func fetchNow(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let now = clock.now()
        let fetch = try committer.apply { (state) throws(NotifydError) in
            try state.startFetch(app, trigger: .manual, at: now)
        }
        return committer.respond(call, [.uint64(fetch.id)])
    }

    func completeFetch(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        let result = try FetchCompletion(reported: try call.argument(1, as: String.self))
        let fetch = try committer.current.fetches.runningFetch(id)
        try callers?.authorize(call, for: fetch.app)
        let now = clock.now()
        try committer.apply { (state) throws(NotifydError) in try state.completeFetch(id, with: result, at: now) }
        return committer.respond(call, [])
    }

    /// `(sa{sv})`: an app and its schedule.
    static var scheduleRow: DBusType { .structure([.string, .dictionary(key: .string, value: .variant)]) }
    /// `(tsxxs)`: fetch ID, trigger, start, end, result.
    static var historyRow: DBusType { .structure([.uint64, .string, .int64, .int64, .string]) }

    /// GetFetchSchedule's dictionary for `app`.
    func scheduleDictionary(of app: AppID, in current: NotifydState, now: Microseconds) -> DBusValue {
        let (planner, conditions) = (scheduler.planner, scheduler.conditions)
        let schedule = current.fetches.schedule(of: app)
        let plan = current.fetchPlan(of: app, planner: planner, conditions: conditions, now: now)
        return .vardict([
            "interval": .uint32(planner.interval(of: schedule).map { UInt32(clamping: $0 / 1_000_000) } ?? 0),
            "requested-interval": .uint32(schedule.requestedInterval),
            "enabled": .boolean(schedule.enabled),
            "next": .int64(plan.next ?? 0),
            "reason": .string(plan.reason),
            "last-run": .int64(schedule.lastRun ?? 0),
            "last-result": .string(schedule.lastResult?.rawValue ?? ""),
            "runs": .uint32(schedule.runs),
            "running": .uint64(current.fetches.runningFetch(of: app)?.id ?? 0),
            "waiting-for": .string(plan.heldFor ?? ""),
        ])
    }
}
