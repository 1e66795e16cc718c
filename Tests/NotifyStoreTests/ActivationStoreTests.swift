@testable import NotifyStore
import Testing

@Suite("StateStore activations")
struct ActivationStoreTests {
    @Test("a version-2 database is migrated to the latest version and keeps badges, sessions and handlers")
    func migratesFromVersion2() throws {
        let session = StoredSession(id: "s", app: "org.example.Fetch", events: 2, lastEvent: 5, inProgress: false)
        let handler = StoredHandler(id: 7, session: "s", app: "org.example.Fetch", storedAt: 5, deadline: 30)
        try withTemporaryDirectory { root in
            do {
                let database = try SQLiteDatabase(path: "\(root)/\(StateStore.databaseFileName)")
                try StateSchema.migrate(database, steps: Array(StateSchema.migrations.prefix(2)))
                try database.execute("""
                    INSERT INTO badges VALUES ('org.example.Mail', 3);
                    INSERT INTO sessions (id, app_id, events, last_event_us, in_progress)
                        VALUES ('s', 'org.example.Fetch', 2, 5, 0);
                    INSERT INTO handlers VALUES (7, 's', 'org.example.Fetch', 5, 30);
                    INSERT INTO counters VALUES ('last_handler_id', 9);
                    """)
                #expect(try database.userVersion == 2)
            }
            let store = try StateStore(directory: root)
            #expect(try store.database.userVersion == StateSchema.latestVersion)
            #expect(try store.loadBadges() == ["org.example.Mail": 3])
            #expect(try store.loadSessions() == [session])
            #expect(try store.loadHandlers() == [handler])
            #expect(try store.loadLastHandlerID() == 9)
            #expect(try store.loadActivations() == [])
            store.staged.stageActivation(StoredActivation(app: "org.example.Mail", at: 1))
            try store.commit()
            #expect(try store.loadActivations() == [StoredActivation(app: "org.example.Mail", at: 1)])
        }
    }

    @Test("activations survive closing and reopening, ordered by app then time; duplicates are rows")
    func roundTrip() throws {
        let staged = [
            StoredActivation(app: "org.gnome.Maps", at: 30),
            StoredActivation(app: "firefox", at: 1_700_000_000_000_000),
            StoredActivation(app: "org.gnome.Maps", at: 10),
            StoredActivation(app: "org.gnome.Maps", at: 30),
            StoredActivation(app: "firefox", at: -5),
        ]
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                for activation in staged { store.staged.stageActivation(activation) }
                #expect(store.stagedWriteCount == 5)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(
                try reopened.loadActivations() == [
                    StoredActivation(app: "firefox", at: -5),
                    StoredActivation(app: "firefox", at: 1_700_000_000_000_000),
                    StoredActivation(app: "org.gnome.Maps", at: 10),
                    StoredActivation(app: "org.gnome.Maps", at: 30),
                    StoredActivation(app: "org.gnome.Maps", at: 30),
                ])
            // What startup reads: the same rows, grouped by app, one string per app.
            #expect(
                try reopened.loadActivationHistories() == [
                    StoredActivationHistory(app: "firefox", times: [-5, 1_700_000_000_000_000]),
                    StoredActivationHistory(app: "org.gnome.Maps", times: [10, 30, 30]),
                ])
        }
    }

    @Test("an empty table has no histories")
    func noHistories() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            #expect(try store.loadActivationHistories() == [])
        }
    }

    @Test("a trim keeps the newest activations of that app alone")
    func trimKeepsTheNewest() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for time: Int64 in [5, 1, 4, 2, 3] { store.staged.stageActivation(StoredActivation(app: "a", at: time)) }
            for time: Int64 in [1, 2] { store.staged.stageActivation(StoredActivation(app: "b", at: time)) }
            try store.commit()

            store.staged.stageActivationTrim(app: "a", keepNewest: 3)
            store.staged.stageActivationTrim(app: "never-stored", keepNewest: 1)
            try store.commit()
            #expect(try store.loadActivations().map { "\($0.app)\($0.at)" } == ["a3", "a4", "a5", "b1", "b2"])

            store.staged.stageActivationTrim(app: "b", keepNewest: 0)
            try store.commit()
            #expect(try store.loadActivations().map(\.app) == ["a", "a", "a"])
            store.staged.stageActivationTrim(app: "a", keepNewest: -1)
            try store.commit()
            #expect(try store.loadActivations() == [])
        }
    }

    @Test("a trim staged after inserts applies to them; a later trim of the app replaces it")
    func trimInOneBatch() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageActivation(StoredActivation(app: "a", at: 1))
            store.staged.stageActivationTrim(app: "a", keepNewest: 2)
            store.staged.stageActivation(StoredActivation(app: "a", at: 2))
            store.staged.stageActivation(StoredActivation(app: "a", at: 3))
            store.staged.stageActivationTrim(app: "a", keepNewest: 2)
            #expect(store.stagedWriteCount == 4)
            try store.commit()
            #expect(try store.loadActivations().map(\.at) == [2, 3])
        }
    }

    @Test("of activations at the same time, the ones staged last are the newest")
    func tiesKeepTheLastStaged() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for _ in 0..<3 { store.staged.stageActivation(StoredActivation(app: "a", at: 7)) }
            try store.commit()
            let ids = try rowIDs(store)
            store.staged.stageActivationTrim(app: "a", keepNewest: 2)
            try store.commit()
            #expect(try rowIDs(store) == Array(ids.suffix(2)))
        }
    }

    @Test("a failed commit leaves no activation of its batch")
    func failedCommitRollsBack() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageActivation(StoredActivation(app: "a", at: 1))
            store.staged.stageHandler(StoredHandler(id: 1, session: "s", app: "a", storedAt: 0, deadline: 1))
            store.staged.stageHandler(StoredHandler(id: 1, session: "s", app: "a", storedAt: 0, deadline: 1))
            #expect(throws: StoreError.self) { try store.commit() }
            #expect(try store.loadActivations() == [])
            #expect(!store.hasStagedWrites)
        }
    }

    private func rowIDs(_ store: StateStore) throws -> [Int64] {
        let select = try store.database.prepare("SELECT id FROM activations ORDER BY id")
        var ids: [Int64] = []
        while try select.step() { ids.append(select.int64(at: 0)) }
        return ids
    }
}
