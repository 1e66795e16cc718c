import Testing

@testable import NotifyStore

/// The background-fetch tables: the migration from version 3, schedules
/// and fetches across a reopen, a fetch's end, the history trim, the one
/// running fetch per app, and clock steps.
@Suite struct FetchStoreTests {
    let schedule = StoredFetchSchedule(
        app: "org.example.Feeds", interval: 3600, enabled: false, lastRun: 10, lastResult: "no-data", runs: 4,
        failuresInARow: 0, noDataInARow: 2)

    @Test func aVersion3DatabaseGainsTheFetchTablesAndKeepsItsActivations() throws {
        try withTemporaryDirectory { root in
            do {
                let database = try SQLiteDatabase(path: "\(root)/\(StateStore.databaseFileName)")
                try StateSchema.migrate(database, steps: Array(StateSchema.migrations.prefix(3)))
                try database.execute("INSERT INTO activations (app_id, at_us) VALUES ('org.example.Mail', 5)")
            }
            let store = try StateStore(directory: root)
            #expect(try store.database.userVersion == StateSchema.latestVersion)
            #expect(try store.loadActivations() == [StoredActivation(app: "org.example.Mail", at: 5)])
            #expect(try store.loadFetchSchedules() == [])
            #expect(try store.loadFetches() == [])
        }
    }

    @Test func schedulesAndFetchesSurviveAReopen() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                store.staged.stageFetchSchedule(StoredFetchSchedule(
                    app: schedule.app, interval: 1, enabled: true, lastRun: nil, lastResult: nil, runs: 0,
                    failuresInARow: 0, noDataInARow: 0))
                store.staged.stageFetchSchedule(schedule)  // replaces the first in the batch
                store.staged.stageFetchStart(StoredFetch(id: 1, app: schedule.app, trigger: "manual", started: 10, deadline: 30))
                store.staged.stageFetchEnd(id: 1, at: 12, result: "no-data")
                store.staged.stageFetchStart(StoredFetch(id: 2, app: schedule.app, trigger: "scheduled", started: 40, deadline: 70))
                #expect(store.stagedWriteCount == 4)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadFetchSchedules() == [schedule])
            #expect(try reopened.loadFetches() == [
                StoredFetch(id: 1, app: schedule.app, trigger: "manual", started: 10, deadline: 30, ended: 12, result: "no-data"),
                StoredFetch(id: 2, app: schedule.app, trigger: "scheduled", started: 40, deadline: 70),
            ])
        }
    }

    @Test func anAppHasOneRunningFetchAtMostAndAFailedCommitStoresNothing() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageFetchStart(StoredFetch(id: 1, app: "a", trigger: "manual", started: 1, deadline: 2))
            store.staged.stageFetchStart(StoredFetch(id: 2, app: "a", trigger: "manual", started: 1, deadline: 2))
            #expect(throws: StoreError.self) { try store.commit() }
            #expect(try store.loadFetches() == [])
        }
    }

    @Test func theHistoryIsTrimmedToTheNewestEndedFetchesOfTheApp() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for id in UInt64(1)...5 {
                store.staged.stageFetchStart(StoredFetch(id: id, app: "a", trigger: "manual", started: Int64(id), deadline: 99))
                store.staged.stageFetchEnd(id: id, at: Int64(id), result: "new-data")
            }
            store.staged.stageFetchStart(StoredFetch(id: 6, app: "b", trigger: "manual", started: 1, deadline: 99))
            store.staged.stageFetchEnd(id: 6, at: 1, result: "failed")
            store.staged.stageFetchStart(StoredFetch(id: 7, app: "a", trigger: "manual", started: 9, deadline: 99))
            store.staged.stageFetchHistoryTrim(app: "a", keepNewest: 2)
            try store.commit()
            #expect(try store.loadFetches().map(\.id) == [4, 5, 6, 7], "the running fetch and other apps are kept")
        }
    }

    @Test func aClockStepMovesRunningFetchesAndLastRunsOnly() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageFetchSchedule(schedule)
            store.staged.stageFetchStart(StoredFetch(id: 1, app: "a", trigger: "manual", started: 100, deadline: 200))
            store.staged.stageFetchEnd(id: 1, at: 150, result: "new-data")
            store.staged.stageFetchStart(StoredFetch(id: 2, app: "a", trigger: "manual", started: 300, deadline: 400))
            store.staged.stageDeadlineShift(by: -50)
            try store.commit()
            #expect(try store.loadFetchSchedules().first?.lastRun == 10 - 50)
            #expect(try store.loadFetches() == [
                StoredFetch(id: 1, app: "a", trigger: "manual", started: 100, deadline: 200, ended: 150, result: "new-data"),
                StoredFetch(id: 2, app: "a", trigger: "manual", started: 250, deadline: 350),
            ])
        }
    }
}
