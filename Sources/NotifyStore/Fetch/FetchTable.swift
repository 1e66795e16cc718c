/// An app's fetch schedule, as stored (SPEC "Background fetch").
public struct StoredFetchSchedule: Sendable, Hashable {
    public var app: String
    /// Seconds as the app set them (0 never, 1 minimum).
    public var interval: UInt32
    public var enabled: Bool
    /// Unix µs of the last fetch's start.
    public var lastRun: Int64?
    public var lastResult: String?
    public var runs: UInt32
    public var failuresInARow: UInt32
    public var noDataInARow: UInt32

    public init(
        app: String, interval: UInt32, enabled: Bool, lastRun: Int64?, lastResult: String?, runs: UInt32,
        failuresInARow: UInt32, noDataInARow: UInt32
    ) {
        self.app = app
        self.interval = interval
        self.enabled = enabled
        self.lastRun = lastRun
        self.lastResult = lastResult
        self.runs = runs
        self.failuresInARow = failuresInARow
        self.noDataInARow = noDataInARow
    }
}

/// A fetch, as stored: running while `result` is nil, else history.
public struct StoredFetch: Sendable, Hashable {
    public var id: UInt64
    public var app: String
    /// `scheduled` or `manual`.
    public var trigger: String
    public var started: Int64
    public var deadline: Int64
    public var ended: Int64?
    public var result: String?

    public init(
        id: UInt64, app: String, trigger: String, started: Int64, deadline: Int64, ended: Int64? = nil,
        result: String? = nil
    ) {
        self.id = id
        self.app = app
        self.trigger = trigger
        self.started = started
        self.deadline = deadline
        self.ended = ended
        self.result = result
    }
}

/// The `fetch_schedules` and `fetches` tables. A fetch's row is inserted
/// when it starts and gets its end and result when it ends; each app keeps
/// its newest ended rows only.
struct FetchTable {
    private let upsertSchedule: SQLiteStatement
    private let insertFetch: SQLiteStatement
    private let endFetch: SQLiteStatement
    private let trimHistory: SQLiteStatement
    private let shiftRunning: SQLiteStatement
    private let shiftLastRuns: SQLiteStatement

    init(database: SQLiteDatabase) throws {
        upsertSchedule = try database.prepare("""
            INSERT INTO fetch_schedules (app_id, interval_s, enabled, last_run_us, last_result, runs,
                failures_in_a_row, no_data_in_a_row) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT (app_id) DO UPDATE SET interval_s = excluded.interval_s, enabled = excluded.enabled,
                last_run_us = excluded.last_run_us, last_result = excluded.last_result, runs = excluded.runs,
                failures_in_a_row = excluded.failures_in_a_row, no_data_in_a_row = excluded.no_data_in_a_row
            """)
        insertFetch = try database.prepare(
            "INSERT INTO fetches (id, app_id, trigger, started_us, deadline_us) VALUES (?1, ?2, ?3, ?4, ?5)")
        endFetch = try database.prepare("UPDATE fetches SET ended_us = ?2, result = ?3 WHERE id = ?1")
        trimHistory = try database.prepare("""
            DELETE FROM fetches WHERE app_id = ?1 AND result IS NOT NULL AND id NOT IN (
                SELECT id FROM fetches WHERE app_id = ?1 AND result IS NOT NULL ORDER BY id DESC LIMIT ?2)
            """)
        shiftRunning = try database.prepare(
            "UPDATE fetches SET started_us = started_us + ?1, deadline_us = deadline_us + ?1 WHERE result IS NULL")
        shiftLastRuns = try database.prepare(
            "UPDATE fetch_schedules SET last_run_us = last_run_us + ?1 WHERE last_run_us IS NOT NULL")
    }

    /// Every schedule; rows out of range (a hand-edited file) are skipped.
    static func loadSchedules(from database: SQLiteDatabase) throws -> [StoredFetchSchedule] {
        let select = try database.prepare("""
            SELECT app_id, interval_s, enabled, last_run_us, last_result, runs, failures_in_a_row, no_data_in_a_row
            FROM fetch_schedules ORDER BY app_id
            """)
        var rows: [StoredFetchSchedule] = []
        while try select.step() {
            guard let app = select.string(at: 0), let interval = UInt32(exactly: select.int64(at: 1)),
                let runs = UInt32(exactly: select.int64(at: 5)), let failures = UInt32(exactly: select.int64(at: 6)),
                let noData = UInt32(exactly: select.int64(at: 7))
            else { continue }
            rows.append(
                StoredFetchSchedule(
                    app: app, interval: interval, enabled: select.int64(at: 2) != 0,
                    lastRun: select.isNull(at: 3) ? nil : select.int64(at: 3), lastResult: select.string(at: 4),
                    runs: runs, failuresInARow: failures, noDataInARow: noData))
        }
        return rows
    }

    /// Every fetch, running and ended, by ID.
    static func loadFetches(from database: SQLiteDatabase) throws -> [StoredFetch] {
        var rows: [StoredFetch] = []
        try forEachFetch(in: database) { rows.append($0) }
        return rows
    }

    /// Hands every fetch, running and ended, by ID, to `body`, one row at
    /// a time: a full history is 1,000,000 rows, about 200 MB as one array.
    static func forEachFetch(in database: SQLiteDatabase, _ body: (StoredFetch) -> Void) throws {
        let select = try database.prepare(
            "SELECT id, app_id, trigger, started_us, deadline_us, ended_us, result FROM fetches ORDER BY id")
        while try select.step() {
            guard let id = select.uint64(bitPatternAt: 0), id > 0, let app = select.string(at: 1),
                let trigger = select.string(at: 2)
            else { continue }
            body(
                StoredFetch(
                    id: id, app: app, trigger: trigger, started: select.int64(at: 3), deadline: select.int64(at: 4),
                    ended: select.isNull(at: 5) ? nil : select.int64(at: 5), result: select.string(at: 6)))
        }
    }

    func write(_ schedule: StoredFetchSchedule) throws {
        let statement = upsertSchedule
        statement.reset()
        defer { statement.reset() }
        try statement.bind(schedule.app, at: 1)
        try statement.bind(Int64(schedule.interval), at: 2)
        try statement.bind(Int64(schedule.enabled ? 1 : 0), at: 3)
        if let lastRun = schedule.lastRun { try statement.bind(lastRun, at: 4) } else { try statement.bindNull(at: 4) }
        if let result = schedule.lastResult { try statement.bind(result, at: 5) } else { try statement.bindNull(at: 5) }
        try statement.bind(Int64(schedule.runs), at: 6)
        try statement.bind(Int64(schedule.failuresInARow), at: 7)
        try statement.bind(Int64(schedule.noDataInARow), at: 8)
        _ = try statement.step()
    }

    func insert(_ fetch: StoredFetch) throws {
        insertFetch.reset()
        defer { insertFetch.reset() }
        try insertFetch.bind(bitPattern: fetch.id, at: 1)
        try insertFetch.bind(fetch.app, at: 2)
        try insertFetch.bind(fetch.trigger, at: 3)
        try insertFetch.bind(fetch.started, at: 4)
        try insertFetch.bind(fetch.deadline, at: 5)
        _ = try insertFetch.step()
    }

    func end(id: UInt64, at ended: Int64, result: String) throws {
        endFetch.reset()
        defer { endFetch.reset() }
        try endFetch.bind(bitPattern: id, at: 1)
        try endFetch.bind(ended, at: 2)
        try endFetch.bind(result, at: 3)
        _ = try endFetch.step()
    }

    func trim(app: String, keepNewest: Int) throws {
        trimHistory.reset()
        defer { trimHistory.reset() }
        try trimHistory.bind(app, at: 1)
        try trimHistory.bind(Int64(max(0, keepNewest)), at: 2)
        _ = try trimHistory.step()
    }

    /// Moves running fetches' times and every last run by `delta` µs.
    func shift(by delta: Int64) throws {
        for statement in [shiftRunning, shiftLastRuns] {
            statement.reset()
            defer { statement.reset() }
            try statement.bind(delta, at: 1)
            _ = try statement.step()
        }
    }
}
