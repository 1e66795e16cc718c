import Glibc
import NotifyStore
import Testing

@Suite("SQLiteDatabase")
struct SQLiteDatabaseTests {
    @Test("creates missing parent directories 0700 and the file 0600")
    func createsDirectoriesAndFile() throws {
        try withTemporaryDirectory { root in
            let path = "\(root)/a/b/db.sqlite3"
            let database = try SQLiteDatabase(path: path)
            #expect(database.path == path)
            #expect(permissions(of: "\(root)/a") == 0o700)
            #expect(permissions(of: "\(root)/a/b") == 0o700)
            #expect(permissions(of: path) == 0o600)
        }
    }

    @Test("sets WAL, synchronous FULL, busy timeout and foreign keys at open")
    func pragmas() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            #expect(try text(database, "PRAGMA journal_mode") == "wal")
            #expect(try integer(database, "PRAGMA synchronous") == 2)  // FULL
            #expect(try integer(database, "PRAGMA busy_timeout") == 2000)
            #expect(try integer(database, "PRAGMA foreign_keys") == 1)
        }
    }

    @Test("binds and reads integers, text, doubles and NULL")
    func bindAndRead() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try database.execute("CREATE TABLE t (i INTEGER, s TEXT, d REAL, n TEXT)")
            let insert = try database.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
            let text = "héllo\u{0}wörld 🛎"
            try insert.bind(Int64.min, at: 1)
            try insert.bind(text, at: 2)
            try insert.bind(2.5, at: 3)
            try insert.bindNull(at: 4)
            #expect(try insert.step() == false)

            let select = try database.prepare("SELECT i, s, d, n FROM t")
            #expect(try select.step())
            #expect(select.columnCount == 4)
            #expect(select.int64(at: 0) == Int64.min)
            #expect(select.string(at: 1) == text)
            #expect(select.double(at: 2) == 2.5)
            #expect(select.isNull(at: 3))
            #expect(select.string(at: 3) == nil)
            #expect(try select.step() == false)

            select.reset()
            #expect(try select.step())  // a reset statement runs again
        }
    }

    @Test("a transaction commits, and rolls back when its body throws")
    func transaction() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try database.execute("CREATE TABLE t (x INTEGER)")
            try database.transaction { try database.execute("INSERT INTO t VALUES (1)") }
            #expect(throws: TestSetupError.self) {
                try database.transaction {
                    try database.execute("INSERT INTO t VALUES (2)")
                    throw TestSetupError(description: "body failed")
                }
            }
            #expect(!database.isInTransaction)
            #expect(try integer(database, "SELECT count(*) FROM t") == 1)
        }
    }

    @Test("a file that is not a database is .corrupt, and the message names it")
    func corrupt() throws {
        try withTemporaryDirectory { root in
            let path = "\(root)/db.sqlite3"
            try writeFile(path, Array(repeating: 0x5a, count: 4096))
            let error = #expect(throws: StoreError.self) { try SQLiteDatabase(path: path) }
            #expect(error?.code == .corrupt)
            #expect(error?.path == path)
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("not a database") == true)
        }
    }

    @Test("a path that cannot be a database file is .cannotOpen")
    func cannotOpen() throws {
        try withTemporaryDirectory { root in
            let onFile = #expect(throws: StoreError.self) {
                try writeFile("\(root)/file", [])
                _ = try SQLiteDatabase(path: "\(root)/file/db.sqlite3")
            }
            #expect(onFile?.code == .cannotOpen)
            #expect(onFile?.message.contains("\(root)/file") == true)

            let missing = #expect(throws: StoreError.self) {
                _ = try SQLiteDatabase(path: "\(root)/missing.sqlite3", mode: .readOnly)
            }
            #expect(missing?.code == .cannotOpen)
            #expect(missing?.message.contains("\(root)/missing.sqlite3") == true)
        }
    }

    @Test("a write on a query-only connection is .readOnly")
    func readOnly() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try database.execute("CREATE TABLE t (x INTEGER); PRAGMA query_only = ON")
            let error = #expect(throws: StoreError.self) {
                try database.execute("INSERT INTO t VALUES (1)")
            }
            #expect(error?.code == .readOnly)
            #expect(error?.message.contains("\(root)/db.sqlite3") == true)
        }
    }

    @Test("a write lock held by another connection is .busy")
    func busy() throws {
        try withTemporaryDirectory { root in
            let holder = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            let waiter = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try waiter.execute("PRAGMA busy_timeout = 0")
            try holder.execute("BEGIN IMMEDIATE")
            let error = #expect(throws: StoreError.self) { try waiter.execute("BEGIN IMMEDIATE") }
            #expect(error?.code == .busy)
            try holder.execute("ROLLBACK")
        }
    }

    @Test("growing past the size limit is .diskFull")
    func diskFull() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try database.execute("CREATE TABLE t (x TEXT)")
            let pages = try integer(database, "PRAGMA page_count")
            try database.execute("PRAGMA max_page_count = \(pages)")
            let error = #expect(throws: StoreError.self) {
                try database.transaction {
                    let insert = try database.prepare("INSERT INTO t VALUES (?1)")
                    try insert.bind(String(repeating: "x", count: 100_000), at: 1)
                    try insert.step()
                }
            }
            #expect(error?.code == .diskFull)
            #expect(error?.message.contains("disk space") == true)
            #expect(!database.isInTransaction)
        }
    }

    @Test("a broken CHECK constraint is .constraint")
    func constraint() throws {
        try withTemporaryDirectory { root in
            let database = try SQLiteDatabase(path: "\(root)/db.sqlite3")
            try database.execute("CREATE TABLE t (x INTEGER CHECK (x > 0))")
            let error = #expect(throws: StoreError.self) {
                try database.execute("INSERT INTO t VALUES (0)")
            }
            #expect(error?.code == .constraint)
        }
    }
}

/// The first column of the first row of `sql`, as an integer.
func integer(_ database: SQLiteDatabase, _ sql: String) throws -> Int64 {
    let statement = try database.prepare(sql)
    guard try statement.step() else { throw TestSetupError(description: "no row from \(sql)") }
    return statement.int64(at: 0)
}

/// The first column of the first row of `sql`, as text.
func text(_ database: SQLiteDatabase, _ sql: String) throws -> String? {
    let statement = try database.prepare(sql)
    guard try statement.step() else { throw TestSetupError(description: "no row from \(sql)") }
    return statement.string(at: 0)
}
