import CSQLite
import Glibc

/// A connection to one SQLite database file.
///
/// Not `Sendable`: a connection belongs to one thread (it is opened with
/// `SQLITE_OPEN_NOMUTEX`). Every sqlite3 call that returns a result code goes
/// through one funnel (`checkSQLite`), so every failure is a
/// ``StoreError`` that names the file.
///
/// At open the connection sets `journal_mode=WAL` (read-write only),
/// `synchronous=FULL` (a commit is on disk when it returns: one fsync of the
/// WAL per commit), `busy_timeout=2000` and `foreign_keys=ON`. A read-write
/// connection counts the WAL's frames and leaves checkpoints to its owner
/// (see `SQLiteDatabase+WAL.swift`).
public final class SQLiteDatabase {
    /// How to open the file.
    public enum OpenMode: Sendable {
        /// Read and write; creates missing parent directories (mode 0700)
        /// and the file (mode 0600).
        case readWrite
        /// Read only; creates nothing.
        case readOnly
    }

    /// The locking mode of `BEGIN`; see <https://sqlite.org/lang_transaction.html>.
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// The file this connection opened.
    public let path: String
    let connection: OpaquePointer
    /// Frames in the write-ahead log after the last commit on this
    /// connection (0 after a complete checkpoint); only read-write
    /// connections count them.
    public internal(set) var walFrameCount = 0

    /// Opens (and in `.readWrite` mode creates) the database at `path`.
    public init(path: String, mode: OpenMode = .readWrite) throws {
        var flags = SQLITE_OPEN_NOMUTEX
        switch mode {
        case .readWrite:
            try FileSystem.createDirectories(FileSystem.parentDirectory(of: path))
            try FileSystem.createFileIfMissing(path, mode: 0o600)
            flags |= SQLITE_OPEN_READWRITE
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
        }
        var handle: OpaquePointer?
        do {
            try checkSQLite(
                sqlite3_open_v2(path, &handle, flags, nil),
                connection: handle, path: path, action: "opening the database")
        } catch {
            sqlite3_close_v2(handle)  // sqlite3_open_v2 may allocate a handle even when it fails
            throw error
        }
        guard let handle else {
            throw StoreError(
                sqliteResultCode: SQLITE_NOMEM, detail: "no connection was allocated",
                path: path, action: "opening the database")
        }
        self.path = path
        self.connection = handle
        // From here on a throw runs deinit, which closes the connection.
        try check(sqlite3_extended_result_codes(handle, 1), "enabling extended result codes")
        if mode == .readWrite {
            try execute("PRAGMA journal_mode = WAL")
            installWALHook()
        }
        try execute("PRAGMA synchronous = FULL")
        try check(sqlite3_busy_timeout(handle, 2000), "setting the busy timeout")
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        // sqlite3_close_v2 defers the close until the last statement is
        // finalized; its result code has nobody to report to.
        sqlite3_close_v2(connection)
    }

    /// Frees the page cache's unused memory (`sqlite3_db_release_memory`).
    public func releaseMemory() {
        _ = sqlite3_db_release_memory(connection)
    }

    /// Runs one or more `;`-separated SQL statements, discarding any rows.
    public func execute(_ sql: String) throws {
        try check(sqlite3_exec(connection, sql, nil, nil, nil), "running \(SQLText.summary(sql))")
    }

    /// Compiles one SQL statement; bind its parameters and step it.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        try check(
            sqlite3_prepare_v2(connection, sql, -1, &statement, nil),
            "preparing \(SQLText.summary(sql))")
        guard let statement else {
            throw StoreError(
                code: .failed, path: path,
                message: "\(path): preparing \(SQLText.summary(sql)) failed: the text holds no SQL statement.")
        }
        return SQLiteStatement(database: self, handle: statement, sql: sql)
    }

    /// Runs `body` inside `BEGIN <kind>` ... `COMMIT`. If `body` or the
    /// commit throws, the transaction is rolled back and the error rethrown.
    @discardableResult
    public func transaction<Result>(
        _ kind: TransactionKind = .immediate, _ body: () throws -> Result
    ) throws -> Result {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // SQLite rolls back by itself after some errors (SQLITE_FULL,
            // SQLITE_IOERR, ...); only roll back what is still open. The
            // original error is the one worth reporting.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(connection) == 0 }

    /// The schema version kept in the file header (`PRAGMA user_version`).
    public var userVersion: Int {
        get throws {
            let statement = try prepare("PRAGMA user_version")
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// Sets `PRAGMA user_version`; transactional, like any other write.
    public func setUserVersion(_ version: Int) throws {
        try execute("PRAGMA user_version = \(version)")
    }

    /// Routes a result code of a call on this connection through the funnel.
    @discardableResult
    func check(_ resultCode: Int32, _ action: @autoclosure () -> String) throws -> Int32 {
        try checkSQLite(resultCode, connection: connection, path: path, action: action())
    }
}

@available(*, unavailable, message: "a connection belongs to one thread")
extension SQLiteDatabase: Sendable {}

/// The one funnel for sqlite3 result codes: passes `SQLITE_OK`, `SQLITE_ROW`
/// and `SQLITE_DONE` through and turns anything else into a ``StoreError``
/// carrying `sqlite3_errmsg` of `connection` (or `sqlite3_errstr` without one).
@discardableResult
func checkSQLite(
    _ resultCode: Int32, connection: OpaquePointer?, path: String,
    action: @autoclosure () -> String
) throws -> Int32 {
    switch resultCode {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
        return resultCode
    default:
        let text = connection.flatMap(sqlite3_errmsg) ?? sqlite3_errstr(resultCode)
        let detail = text.map { String(cString: $0) } ?? "unknown error"
        // An I/O error says little by itself; the operating system's error
        // (read-only file system, no space) says what to do.
        // SQLite's saved errno may have been overwritten by later calls, and a
        // file system turned read-only by an error need not say so in its
        // mount flags: ask the directory itself.
        let systemError = resultCode & 0xff == SQLITE_IOERR ? writeProbeError(nextTo: path) : 0
        if systemError != 0 {
            throw StoreError(
                errno: systemError, detail: "\(detail): \(String(cString: strerror(systemError)))", path: path,
                action: action(), fallback: .ioError)
        }
        throw StoreError(sqliteResultCode: resultCode, detail: detail, path: path, action: action())
    }
}

/// The errno of creating and syncing a small file next to `path` (0 when
/// that works): EROFS, ENOSPC or EIO say what an I/O error really was.
func writeProbeError(nextTo path: String) -> Int32 {
    let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    let probe = (directory.isEmpty ? "." : directory) + "/.notifyd-write-probe"
    let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return errno }
    defer {
        close(fd)
        unlink(probe)
    }
    var byte: UInt8 = 0
    guard write(fd, &byte, 1) == 1 else { return errno }
    guard fsync(fd) == 0 else { return errno }
    return 0
}

/// Short forms of SQL text for error messages.
enum SQLText {
    /// The first line of `sql`, cut at 60 characters, in backquotes.
    static func summary(_ sql: String) -> String {
        let firstLine = sql.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }
        let trimmed = (firstLine ?? "").drop(while: \.isWhitespace)
        return trimmed.count > 60 ? "`\(trimmed.prefix(60))...`" : "`\(trimmed)`"
    }
}
