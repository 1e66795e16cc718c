import DBus
import NotifyCore

/// `org.notifyd.Notifyd1.Fetch`: background fetch (SPEC "Background
/// fetch"). Handlers decode and authorize, ask the core, and hand the
/// outcome to the committer; `PerformFetch`, the wake-up of the app and
/// `FetchCompleted` follow the commit (``EffectRunner``), and the
/// ``FetchScheduler`` plans again after every change.
final class FetchService {
    private let state: Committer
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    private let scheduler: FetchScheduler

    init(state: Committer, callers: CallerCheck?, clock: any DaemonClock, scheduler: FetchScheduler) {
        self.state = state
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
        state.carry(try state.mutate { (state) throws(NotifydError) in try state.setFetchInterval(seconds, for: app) })
        return state.respond(call, [])
    }

    /// The user's switch: a sandboxed app may not turn its own fetches on.
    func setFetchEnabled(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        let enabled: Bool = try call.argument(1)
        try callers?.authorizeForAllApps(call)
        state.carry(try state.mutate { (state) throws(NotifydError) in try state.setFetchEnabled(enabled, for: app) })
        return state.respond(call, [])
    }

    func getFetchSchedule(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        return state.respond(call, [scheduler.dictionary(of: app, in: state.current, now: clock.now())])
    }

    func listFetchSchedules(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let current = state.current
        let visibility = try callers?.visibility(for: call)
        let now = clock.now()
        let rows: [DBusValue] = current.fetches.knownApps.filter { visibility?.shows($0) ?? true }.map { app in
            .structure([.string(app.rawValue), scheduler.dictionary(of: app, in: current, now: now)])
        }
        return state.respond(call, [.array(element: Self.scheduleRow, rows)])
    }

    func getFetchHistory(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let rows: [DBusValue] = state.current.fetches.history(of: app).reversed().map { record in
            .structure([
                .uint64(record.id), .string(record.trigger.rawValue), .int64(record.started), .int64(record.ended),
                .string(record.result.rawValue),
            ])
        }
        return state.respond(call, [.array(element: Self.historyRow, rows)])
    }

    func fetchNow(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let now = clock.now()
        let started = try state.mutate { (state) throws(NotifydError) in
            try state.startFetch(app, trigger: .manual, at: now)
        }
        state.carry(started.outcome)
        return state.respond(call, [.uint64(started.fetch.id)])
    }

    func completeFetch(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        let result = try FetchCompletion(reported: try call.argument(1, as: String.self))
        let fetch = try state.current.fetches.runningFetch(id)
        try callers?.authorize(call, for: fetch.app)
        let now = clock.now()
        state.carry(try state.mutate { (state) throws(NotifydError) in try state.completeFetch(id, with: result, at: now) })
        return state.respond(call, [])
    }

    /// `(sa{sv})`: an app and its schedule.
    static var scheduleRow: DBusType { .structure([.string, .dictionary(key: .string, value: .variant)]) }
    /// `(tsxxs)`: fetch ID, trigger, start, end, result.
    static var historyRow: DBusType { .structure([.uint64, .string, .int64, .int64, .string]) }
}
