@testable import NotifyStore
import Testing

@Suite("StateStore sessions and handlers")
struct SessionStoreTests {
    static let aboveInt64 = UInt64(Int64.max) + 1

    @Test("a version-1 database with badges is migrated to the latest version and keeps them")
    func migratesFromVersion1() throws {
        try withTemporaryDirectory { root in
            do {
                let database = try SQLiteDatabase(path: "\(root)/\(StateStore.databaseFileName)")
                try StateSchema.migrate(database, steps: Array(StateSchema.migrations.prefix(1)))
                try database.execute("INSERT INTO badges VALUES ('org.example.Mail', 3), ('firefox', 12)")
                #expect(try database.userVersion == 1)
            }
            let store = try StateStore(directory: root)
            #expect(try store.database.userVersion == StateSchema.latestVersion)
            #expect(StateSchema.latestVersion >= 2)
            #expect(try store.loadBadges() == ["org.example.Mail": 3, "firefox": 12])
            #expect(try store.loadSessions() == [])
            #expect(try store.loadHandlers() == [])
            #expect(try store.loadLastHandlerID() == 0)
            store.staged.stageSession(session("s"))
            store.staged.stageHandler(handler(1, session: "s"))
            try store.commit()
            #expect(try store.loadSessions() == [session("s")])
        }
    }

    @Test("sessions survive closing and reopening, optionals and large values included")
    func sessionsRoundTrip() throws {
        let full = StoredSession(
            id: "download 🛎 42", app: "org.example.Fetch", events: UInt32.max, lastEvent: 1_700_000_000_123_456,
            bytesWritten: Self.aboveInt64, bytesExpected: UInt64.max, progress: 0.25,
            inProgress: true, lastResult: "completed")
        let empty = StoredSession(
            id: "bare", app: "firefox", events: 0, lastEvent: -1, bytesWritten: nil, bytesExpected: nil,
            progress: nil, inProgress: false, lastResult: nil)
        let zeroes = StoredSession(
            id: "zeroes", app: "firefox", events: 1, lastEvent: 0, bytesWritten: 0, bytesExpected: 0,
            progress: 0, inProgress: false, lastResult: "expired")
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                for item in [full, empty, zeroes] { store.staged.stageSession(item) }
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(Set(try reopened.loadSessions()) == [full, empty, zeroes])
        }
    }

    @Test("handlers survive closing and reopening, ordered by ID as unsigned numbers")
    func handlersRoundTrip() throws {
        let ids: [UInt64] = [UInt64.max, 2, Self.aboveInt64, 1, UInt64(Int64.max), Self.aboveInt64 + 7]
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                for id in ids { store.staged.stageHandler(handler(id, session: "s\(id % 3)")) }
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            let loaded = try reopened.loadHandlers()
            #expect(loaded == ids.sorted().map { handler($0, session: "s\($0 % 3)") })
            #expect(try reopened.loadLastHandlerID() == UInt64.max)
        }
    }

    @Test("removals delete the rows; removing an unknown row does nothing")
    func removals() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for name in ["a", "b", "c"] { store.staged.stageSession(session(name)) }
            for id: UInt64 in [1, 2, 3, Self.aboveInt64] { store.staged.stageHandler(handler(id, session: "a")) }
            try store.commit()

            store.staged.stageSessionRemoval("b")
            store.staged.stageSessionRemoval("never-stored")
            store.staged.stageHandlerRemoval(2)
            store.staged.stageHandlerRemoval(Self.aboveInt64)
            store.staged.stageHandlerRemoval(99)
            try store.commit()
            #expect(Set(try store.loadSessions().map(\.id)) == ["a", "c"])
            #expect(try store.loadHandlers().map(\.id) == [1, 3])
        }
    }

    @Test("the last handler ID survives the removal of every handler and a reopen")
    func lastHandlerIDSurvives() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                for id: UInt64 in 1...3 { store.staged.stageHandler(handler(id, session: "s")) }
                try store.commit()
                for id: UInt64 in 1...3 { store.staged.stageHandlerRemoval(id) }
                try store.commit()
                #expect(try store.loadHandlers() == [])
                #expect(try store.loadLastHandlerID() == 3)
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadLastHandlerID() == 3)
        }
    }

    @Test("the last handler ID is the unsigned maximum and never goes down")
    func lastHandlerIDIsUnsignedMaximum() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageHandler(handler(Self.aboveInt64 + 5, session: "s"))
            try store.commit()
            store.staged.stageHandler(handler(7, session: "s"))  // a smaller ID (a caller bug) is stored ...
            try store.commit()
            #expect(try store.loadLastHandlerID() == Self.aboveInt64 + 5)  // ... but does not lower it
            store.staged.stageHandler(handler(UInt64.max, session: "s"))
            try store.commit()
            #expect(try store.loadLastHandlerID() == UInt64.max)

            // A hand-edited row above the counter still counts.
            try store.database.execute("DELETE FROM counters")
            #expect(try store.loadLastHandlerID() == UInt64.max)
            try store.database.execute("DELETE FROM handlers")
            #expect(try store.loadLastHandlerID() == 0)
        }
    }

    @Test("a handler staged and removed in one batch leaves no row but advances the last ID")
    func stagedThenRemovedHandlerCollapses() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageHandler(handler(10, session: "s"))
            store.staged.stageHandler(handler(11, session: "s"))
            store.staged.stageHandlerRemoval(10)
            store.staged.stageHandlerRemoval(11)
            #expect(store.stagedWriteCount == 5)  // in order, so that a reused ID would still fail
            try store.commit()
            #expect(try store.loadHandlers() == [])
            #expect(try store.loadLastHandlerID() == 11)
            #expect(try integer(store.database, "SELECT count(*) FROM handlers") == 0)
        }
    }

    @Test("staging collapses to the last write per session")
    func sessionLastWriteWins() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageSession(session("kept"))
            store.staged.stageSession(session("removed"))
            try store.commit()

            store.staged.stageSession(session("kept", events: 2))
            store.staged.stageSession(session("kept", events: 5))
            store.staged.stageSession(session("removed", events: 9))
            store.staged.stageSessionRemoval("removed")
            store.staged.stageSession(session("new", events: 1))
            store.staged.stageSessionRemoval("new")
            store.staged.stageSessionRemoval("again")
            store.staged.stageSession(session("again", events: 4))
            #expect(store.stagedWriteCount == 4)
            try store.commit()
            #expect(Set(try store.loadSessions()) == [session("kept", events: 5), session("again", events: 4)])
        }
    }

    @Test("a handler ID already stored fails the commit with .constraint and writes nothing")
    func duplicateHandlerIDIsRefused() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageSession(session("s"))
            store.staged.stageHandler(handler(1, session: "s"))
            try store.commit()

            store.staged.stageBadge("org.example.Mail", count: 2)
            store.staged.stageSession(session("s", events: 2))
            store.staged.stageSession(session("t"))
            store.staged.stageHandler(handler(2, session: "t"))
            store.staged.stageHandler(handler(1, session: "t"))
            store.staged.stageHandlerRemoval(1)  // must not cancel out the insert of a reused ID
            let error = #expect(throws: StoreError.self) { try store.commit() }
            #expect(error?.code == .constraint)
            #expect(error?.message.contains("handler 1 of session 't'") == true)
            #expect(error?.message.contains(store.databasePath) == true)
            #expect(!store.hasStagedWrites)
            #expect(!store.database.isInTransaction)
            #expect(try store.loadBadges() == [:])
            #expect(try store.loadSessions() == [session("s")])
            #expect(try store.loadHandlers() == [handler(1, session: "s")])
            #expect(try store.loadLastHandlerID() == 1)
        }
    }

    @Test("a handler ID staged twice in one batch, or 0, fails the commit with .constraint")
    func duplicateInOneBatchIsRefused() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for staging in [
                [handler(5, session: "a"), handler(5, session: "b")],
                [handler(5, session: "a"), handler(5, session: "b"), handler(5, session: "c")],
                [handler(0, session: "a")],
            ] {
                for item in staging { store.staged.stageHandler(item) }
                store.staged.stageHandlerRemoval(5)
                let error = #expect(throws: StoreError.self) { try store.commit() }
                #expect(error?.code == .constraint)
                #expect(try store.loadHandlers() == [])
                #expect(try store.loadLastHandlerID() == 0)
            }
        }
    }

    @Test("a failed commit leaves sessions, handlers and the last ID unchanged")
    func failedCommitChangesNothing() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                store.staged.stageSession(session("s"))
                store.staged.stageHandler(handler(1, session: "s"))
                store.staged.stageHandler(handler(2, session: "s"))
                try store.commit()

                try store.database.execute("PRAGMA query_only = ON")
                store.staged.stageSession(session("s", events: 7))
                store.staged.stageSession(session("t"))
                store.staged.stageSessionRemoval("s")
                store.staged.stageHandlerRemoval(1)
                store.staged.stageHandler(handler(3, session: "t"))
                let error = #expect(throws: StoreError.self) { try store.commit() }
                #expect(error?.code == .readOnly)
                #expect(!store.hasStagedWrites)
                #expect(try store.loadSessions() == [session("s")])
                #expect(try store.loadHandlers().map(\.id) == [1, 2])
                #expect(try store.loadLastHandlerID() == 2)

                try store.database.execute("PRAGMA query_only = OFF")
                store.staged.stageHandler(handler(4, session: "s"))
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadSessions() == [session("s")])
            #expect(try reopened.loadHandlers().map(\.id) == [1, 2, 4])
            #expect(try reopened.loadLastHandlerID() == 4)
        }
    }

    @Test("a batch of 10,000 handlers and 10,000 sessions commits in one transaction")
    func largeBatch() throws {
        let count = 10_000
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for index in 1...count {
                store.staged.stageSession(session("session-\(index)", events: UInt32(index)))
                store.staged.stageHandler(handler(UInt64(index), session: "session-\(index)"))
            }
            #expect(store.stagedWriteCount == 2 * count + 1)
            try store.commit()

            let sessions = try store.loadSessions()
            #expect(sessions.count == count)
            #expect(Set(sessions.map(\.events)) == Set((1...count).map { UInt32($0) }))
            let handlers = try store.loadHandlers()
            #expect(handlers.map(\.id) == (1...count).map { UInt64($0) })
            #expect(handlers.allSatisfy { $0 == handler($0.id, session: "session-\($0.id)") })
            #expect(try store.loadLastHandlerID() == UInt64(count))
        }
    }

    @Test("rows a build would never write are skipped on load")
    func invalidRowsAreSkipped() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            try store.database.execute("""
                PRAGMA ignore_check_constraints = ON;
                INSERT INTO sessions VALUES
                    ('ok', 'app', 1, 0, NULL, NULL, NULL, 0, NULL),
                    ('too-many', 'app', 4294967296, 0, NULL, NULL, NULL, 0, NULL),
                    ('negative', 'app', -1, 0, NULL, NULL, NULL, 0, NULL),
                    ('odd-flag', 'app', 1, 0, NULL, NULL, NULL, 2, NULL);
                PRAGMA ignore_check_constraints = OFF;
                """)
            #expect(try store.loadSessions().map(\.id) == ["ok"])
        }
    }

    @Test("the new tables refuse what the store never writes")
    func schemaConstraints() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            for sql in [
                "INSERT INTO sessions VALUES (NULL, 'app', 1, 0, NULL, NULL, NULL, 0, NULL)",
                "INSERT INTO sessions VALUES ('s', 'app', 4294967296, 0, NULL, NULL, NULL, 0, NULL)",
                "INSERT INTO sessions VALUES ('s', 'app', 1, 0, NULL, NULL, NULL, 2, NULL)",
                "INSERT INTO handlers VALUES (0, 's', 'app', 0, 0)",
                "INSERT INTO handlers VALUES (1, NULL, 'app', 0, 0)",
            ] {
                let error = #expect(throws: StoreError.self) { try store.database.execute(sql) }
                #expect(error?.code == .constraint)
            }
            #expect(
                try integer(store.database, "SELECT count(*) FROM sqlite_schema WHERE name = 'handlers_by_session'") == 1)
        }
    }
}

/// A session with the optionals set, differing only in `id` and `events`.
private func session(_ id: String, events: UInt32 = 1) -> StoredSession {
    StoredSession(
        id: id, app: "org.example.App", events: events, lastEvent: 1_000_000 + Int64(events),
        bytesWritten: 10, bytesExpected: 100, progress: 0.1, inProgress: true, lastResult: nil)
}

/// A handler of `session` whose times derive from its ID.
private func handler(_ id: UInt64, session: String) -> StoredHandler {
    StoredHandler(
        id: id, session: session, app: "org.example.App", storedAt: Int64(id % 1_000_000),
        deadline: Int64(id % 1_000_000) + 30_000_000)
}
