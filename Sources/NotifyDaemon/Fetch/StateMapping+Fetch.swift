import Logging
import NotifyCore
import NotifyStore

/// Conversions between the fetch book and the store's rows.
extension StateMapping {
    static func row(_ app: AppID, _ schedule: FetchSchedule) -> StoredFetchSchedule {
        StoredFetchSchedule(
            app: app.rawValue, interval: schedule.requestedInterval, enabled: schedule.enabled,
            lastRun: schedule.lastRun, lastResult: schedule.lastResult?.rawValue, runs: schedule.runs,
            failuresInARow: schedule.failuresInARow, noDataInARow: schedule.noDataInARow)
    }

    static func row(_ fetch: RunningFetch) -> StoredFetch {
        StoredFetch(
            id: fetch.id, app: fetch.app.rawValue, trigger: fetch.trigger.rawValue, started: fetch.started,
            deadline: fetch.deadline)
    }

    /// The fetch book as stored; rows that no longer validate are skipped with a warning.
    static func fetchBook(from store: StateStore, logger: Logger) throws -> FetchBook {
        var schedules: [AppID: FetchSchedule] = [:]
        for row in try store.loadFetchSchedules() {
            guard let app = try? AppID(row.app), row.interval <= FetchSchedule.longestInterval else {
                logger.warning("skipping a stored fetch schedule of '\(row.app)' (invalid app ID or interval)")
                continue
            }
            schedules[app] = FetchSchedule(
                requestedInterval: row.interval, enabled: row.enabled, lastRun: row.lastRun,
                lastResult: row.lastResult.flatMap(FetchCompletion.init(rawValue:)), runs: row.runs,
                failuresInARow: row.failuresInARow, noDataInARow: row.noDataInARow)
        }
        var running: [RunningFetch] = []
        var history: [FetchRecord] = []
        var highest: UInt64 = 0
        // One app ID per app, not one per row: a full history is 1,000,000
        // rows of 10,000 apps, each row's string read anew from SQLite.
        var appIDs = Dictionary(uniqueKeysWithValues: schedules.keys.map { ($0.rawValue, $0) })
        func appID(_ name: String) -> AppID? {
            if let known = appIDs[name] { return known }
            guard let app = try? AppID(name) else { return nil }
            appIDs[name] = app
            return app
        }
        try store.forEachFetch { row in
            highest = max(highest, row.id)
            guard let app = appID(row.app), let trigger = FetchTrigger(rawValue: row.trigger) else {
                logger.warning("skipping stored fetch \(row.id) of '\(row.app)' (invalid app ID or trigger)")
                return
            }
            if let text = row.result {
                guard let result = FetchCompletion(rawValue: text) else { return }
                history.append(
                    FetchRecord(
                        id: row.id, app: app, started: row.started, ended: row.ended ?? row.started, result: result,
                        trigger: trigger))
            } else {
                running.append(
                    RunningFetch(id: row.id, app: app, started: row.started, deadline: row.deadline, trigger: trigger))
            }
        }
        return FetchBook(restoring: schedules, running: running, history: history, lastFetchID: highest)
    }
}
