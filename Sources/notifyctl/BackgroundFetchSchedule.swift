import DBus
import NotifyCore

/// One app's fetch schedule as `GetFetchSchedule` describes it, for tables
/// and JSON.
struct FetchScheduleSummary {
    let app: String
    let interval: UInt32
    let requestedInterval: UInt32
    let enabled: Bool
    let next: Int64
    let reason: String
    let lastRun: Int64
    let lastResult: String
    let runs: UInt32
    let running: UInt64
    let waitingFor: String

    init(app: String, _ value: DBusValue) throws(NotifyctlError) {
        guard let fields = value.vardictEntries else {
            throw NotifyctlError(.daemon, "notifyd answered with no schedule for \(app)")
        }
        func uint32(_ key: String) -> UInt32 { if case .uint32(let v)? = fields[key] { v } else { 0 } }
        func int64(_ key: String) -> Int64 { if case .int64(let v)? = fields[key] { v } else { 0 } }
        func string(_ key: String) -> String { if case .string(let v)? = fields[key] { v } else { "" } }
        self.app = app
        interval = uint32("interval")
        requestedInterval = uint32("requested-interval")
        if case .boolean(let on)? = fields["enabled"] { enabled = on } else { enabled = true }
        next = int64("next")
        reason = string("reason")
        lastRun = int64("last-run")
        lastResult = string("last-result")
        runs = uint32("runs")
        if case .uint64(let id)? = fields["running"] { running = id } else { running = 0 }
        waitingFor = string("waiting-for")
    }

    /// "never", "15 min", "minimum (15 min)", "2 h"; "15 min (asked 1 min)"
    /// when notifyd raised what the app asked for to its floor.
    var intervalText: String {
        guard interval > 0 else { return "never" }
        let text = Self.duration(seconds: Int64(interval))
        switch requestedInterval {
        case 1: return "minimum (\(text))"
        case 0, interval: return text
        default: return "\(text) (asked \(Self.duration(seconds: Int64(requestedInterval))))"
        }
    }

    static func duration(seconds: Int64) -> String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400) d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    /// The table row: app, interval, switch, next, last result, reason.
    func row(time: (Int64) -> String) -> [String] {
        [
            app, intervalText, enabled ? "on" : "off",
            running != 0 ? "running (\(running))" : next == 0 ? "-" : time(next),
            lastResult.isEmpty ? "-" : lastResult, reason,
        ]
    }

    static let header = ["APP", "INTERVAL", "ENABLED", "NEXT", "LAST RESULT", "REASON"]

    var json: JSON {
        .object([
            ("app", .string(app)), ("interval", .uint(UInt64(interval))),
            ("requested_interval", .uint(UInt64(requestedInterval))), ("enabled", .bool(enabled)),
            ("next_us", .int(next)), ("next", next == 0 ? .null : .string(Timestamp.utc(unixMicroseconds: next))),
            ("reason", .string(reason)), ("last_run_us", .int(lastRun)),
            ("last_result", lastResult.isEmpty ? .null : .string(lastResult)), ("runs", .uint(UInt64(runs))),
            ("running", running == 0 ? .null : .uint(running)), ("waiting_for", waitingFor.isEmpty ? .null : .string(waitingFor)),
        ])
    }
}

/// One ended fetch of `GetFetchHistory` (`(tsxxs)`).
struct FetchHistoryEntry {
    let id: UInt64
    let trigger: String
    let started: Int64
    let ended: Int64
    let result: String

    init?(_ value: DBusValue) {
        guard case .structure(let fields) = value, fields.count == 5, case .uint64(let id) = fields[0],
            case .string(let trigger) = fields[1], case .int64(let started) = fields[2],
            case .int64(let ended) = fields[3], case .string(let result) = fields[4]
        else { return nil }
        (self.id, self.trigger, self.started, self.ended, self.result) = (id, trigger, started, ended, result)
    }

    func row(time: (Int64) -> String) -> [String] {
        [String(id), trigger, time(started), "\(Double((ended - started) / 1000) / 1000) s", result]
    }

    static let header = ["FETCH", "TRIGGER", "STARTED", "TOOK", "RESULT"]

    var json: JSON {
        .object([
            ("fetch_id", .uint(id)), ("trigger", .string(trigger)), ("started_us", .int(started)),
            ("ended_us", .int(ended)), ("result", .string(result)),
        ])
    }
}
