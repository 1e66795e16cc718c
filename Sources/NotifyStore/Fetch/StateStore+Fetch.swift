extension StateStore {
    /// The fetch schedules as committed, by app ID.
    public func loadFetchSchedules() throws -> [StoredFetchSchedule] {
        try FetchTable.loadSchedules(from: database)
    }

    /// The fetches as committed, running and ended, by ID.
    public func loadFetches() throws -> [StoredFetch] {
        try FetchTable.loadFetches(from: database)
    }

    /// Hands the fetches as committed, by ID, to `body` one at a time
    /// (startup: no array of a million rows).
    public func forEachFetch(_ body: (StoredFetch) -> Void) throws {
        try FetchTable.forEachFetch(in: database, body)
    }

    /// Stages an app's schedule (a later one of the same app replaces it). No I/O.
    public func stageFetchSchedule(_ schedule: StoredFetchSchedule) {
        staged.stage(.fetchSchedule(schedule))
    }

    /// Stages the insert of a fetch that started. No I/O.
    public func stageFetchStart(_ fetch: StoredFetch) {
        staged.stage(.fetchStart(fetch))
    }

    /// Stages a fetch's end. No I/O.
    public func stageFetchEnd(id: UInt64, at ended: Int64, result: String) {
        staged.stage(.fetchEnd(id: id, at: ended, result: result))
    }

    /// Stages the deletion of all but the newest `keepNewest` ended fetches of `app`. No I/O.
    public func stageFetchHistoryTrim(app: String, keepNewest: Int) {
        staged.stage(.fetchHistoryTrim(appID: app, keepNewest: keepNewest))
    }

}
