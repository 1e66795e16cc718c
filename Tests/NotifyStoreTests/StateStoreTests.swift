@testable import NotifyStore
import Testing

@Suite("StateStore")
struct StateStoreTests {
    @Test("names its directory and database file")
    func paths() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: "\(root)/state/")
            #expect(store.directory == "\(root)/state")
            #expect(store.databasePath == "\(root)/state/state.sqlite3")
            #expect(permissions(of: store.databasePath) == 0o600)
        }
    }

    @Test("badges survive closing and reopening the store")
    func roundTrip() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                #expect(try store.loadBadges() == [:])
                store.staged.stageBadge("org.example.Mail", count: 3)
                store.staged.stageBadge("org.example.Chat", count: UInt32.max)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(
                try reopened.loadBadges() == ["org.example.Mail": 3, "org.example.Chat": UInt32.max])
        }
    }

    @Test("staging collapses to the last write per app")
    func lastWriteWins() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageBadge("a", count: 1)
            store.staged.stageBadge("b", count: 7)
            store.staged.stageBadge("a", count: 2)
            store.staged.stageBadge("a", count: 5)
            #expect(store.stagedWriteCount == 2)
            try store.commit()
            #expect(try store.loadBadges() == ["a": 5, "b": 7])
        }
    }

    @Test("a count of 0 deletes the row")
    func zeroDeletes() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            store.staged.stageBadge("a", count: 4)
            store.staged.stageBadge("b", count: 1)
            try store.commit()
            store.staged.stageBadge("a", count: 0)
            store.staged.stageBadge("never-set", count: 0)
            try store.commit()
            #expect(try store.loadBadges() == ["b": 1])
            #expect(try integer(store.database, "SELECT count(*) FROM badges") == 1)
        }
    }

    @Test("nothing reaches the file before commit, and commit clears the stage")
    func nothingWrittenBeforeCommit() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            let peek = try SQLiteDatabase(path: store.databasePath, mode: .readOnly)
            store.staged.stageBadge("a", count: 1)
            #expect(store.hasStagedWrites)
            #expect(try integer(peek, "SELECT count(*) FROM badges") == 0)
            #expect(try store.loadBadges() == [:])
            try store.commit()
            #expect(!store.hasStagedWrites)
            #expect(store.stagedWriteCount == 0)
            #expect(try integer(peek, "SELECT count FROM badges WHERE app_id = 'a'") == 1)
        }
    }

    @Test("commit with nothing staged does no I/O")
    func emptyCommitDoesNothing() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            // Any write, even BEGIN IMMEDIATE, would now fail.
            try store.database.execute("PRAGMA query_only = ON")
            #expect(!store.hasStagedWrites)
            try store.commit()
        }
    }

    @Test("a failed commit throws .readOnly, rolls back and forgets the staged writes")
    func failedCommit() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root)
                store.staged.stageBadge("a", count: 1)
                try store.commit()

                try store.database.execute("PRAGMA query_only = ON")
                store.staged.stageBadge("a", count: 9)
                store.staged.stageBadge("b", count: 2)
                let error = #expect(throws: StoreError.self) { try store.commit() }
                #expect(error?.code == .readOnly)
                #expect(error?.message.contains(store.databasePath) == true)
                #expect(!store.hasStagedWrites)
                #expect(!store.database.isInTransaction)
                #expect(try store.loadBadges() == ["a": 1])

                // The store stays usable once writes are possible again.
                try store.database.execute("PRAGMA query_only = OFF")
                store.staged.stageBadge("c", count: 3)
                try store.commit()
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadBadges() == ["a": 1, "c": 3])
        }
    }

    @Test("a commit that fails half-way leaves none of its writes")
    func commitIsAtomic() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            // Make the second write fail: a trigger refuses app "bad".
            try store.database.execute("""
                CREATE TEMP TRIGGER refuse BEFORE INSERT ON badges WHEN NEW.app_id = 'bad'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
            store.staged.stageBadge("good", count: 1)
            store.staged.stageBadge("bad", count: 1)
            let error = #expect(throws: StoreError.self) { try store.commit() }
            #expect(error?.code == .constraint)
            #expect(try store.loadBadges() == [:])
        }
    }

    @Test("rows a build would never write are skipped on load")
    func invalidRowsAreSkipped() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            try store.database.execute("""
                INSERT INTO badges VALUES ('ok', 2), ('huge', 4294967296), ('text', 'many')
                """)
            #expect(try store.loadBadges() == ["ok": 2])
        }
    }
}
