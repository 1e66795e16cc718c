import NotifyStore
import Testing

@Suite("StateSchema")
struct StateSchemaTests {
    @Test("a new database is migrated to the latest version, and again is a no-op")
    func migratesOnceAndIsIdempotent() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            #expect(try database.userVersion == 0)
            try StateSchema.migrate(database)
            #expect(try database.userVersion == StateSchema.latestVersion)
            #expect(StateSchema.latestVersion >= 1)
            try StateSchema.migrate(database)
            #expect(try database.userVersion == StateSchema.latestVersion)
            #expect(try integer(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'badges'") == 1)
        }
    }

    @Test("the badges table refuses a count of 0 and a missing app ID")
    func badgesTableConstraints() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try StateSchema.migrate(database)
            for sql in [
                "INSERT INTO badges VALUES ('a', 0)",
                "INSERT INTO badges VALUES (NULL, 1)",
            ] {
                let error = #expect(throws: StoreError.self) { try database.execute(sql) }
                #expect(error?.code == .constraint)
            }
        }
    }

    @Test("an appended step is applied alone to a database at the previous version")
    func appliesOnlyNewSteps() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try StateSchema.migrate(database)
            try database.execute("INSERT INTO badges VALUES ('kept', 3)")
            let next = StateSchema.migrations + [
                SchemaMigration("extra", sql: "CREATE TABLE extra (x INTEGER)")
            ]
            try StateSchema.migrate(database, steps: next)
            #expect(try database.userVersion == next.count)
            #expect(try integer(database, "SELECT count FROM badges WHERE app_id = 'kept'") == 3)
            #expect(try integer(database, "SELECT count(*) FROM extra") == 0)
        }
    }

    @Test("a failing step is rolled back with its version, and names itself")
    func failingStepRollsBack() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            let steps = [
                SchemaMigration("good", sql: "CREATE TABLE good (x INTEGER)"),
                SchemaMigration(
                    "half-broken",
                    sql: "CREATE TABLE half (x INTEGER); CREATE TABLE good (x INTEGER)"),
            ]
            let error = #expect(throws: StoreError.self) {
                try StateSchema.migrate(database, steps: steps)
            }
            #expect(error?.message.contains("schema step 2, half-broken") == true)
            #expect(try database.userVersion == 1)
            #expect(try integer(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'half'") == 0)
            #expect(!database.isInTransaction)
        }
    }

    @Test("a database from a newer build is refused with both versions in the message")
    func newerSchemaIsRefused() throws {
        try withTemporaryDirectory { root in
            let path = "\(root)/db.sqlite3"
            let database = try SQLiteDatabase(path: path)
            try database.setUserVersion(StateSchema.latestVersion + 5)
            let error = #expect(throws: StoreError.self) { try StateSchema.migrate(database) }
            #expect(error?.code == .newerSchema)
            #expect(error?.message.contains(path) == true)
            #expect(
                error?.message.contains(
                    "state database was written by a newer notifyd (schema \(StateSchema.latestVersion + 5), this build knows \(StateSchema.latestVersion))"
                ) == true)
            #expect(try database.userVersion == StateSchema.latestVersion + 5)
        }
    }
}
