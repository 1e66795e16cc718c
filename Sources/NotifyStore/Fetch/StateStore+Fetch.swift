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
}
