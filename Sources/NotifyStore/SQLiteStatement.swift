import CSQLite

/// A compiled SQL statement of one ``SQLiteDatabase``; finalized when released.
///
/// Parameters are numbered from 1 (`?1`, `?2`, ...), result columns from 0,
/// as in the SQLite C API. To run a statement again, ``reset()`` it and bind
/// new values (bindings survive a reset).
public final class SQLiteStatement {
    /// The SQL text this statement was compiled from.
    public let sql: String
    private let database: SQLiteDatabase  // keeps the connection open while the statement lives
    private let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit {
        // sqlite3_finalize only repeats the error of the last step, which was
        // already reported by step().
        sqlite3_finalize(handle)
    }

    /// Binds an integer to parameter `index` (from 1).
    public func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value), "binding parameter \(index)")
    }

    /// Binds a floating-point number to parameter `index` (from 1).
    public func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value), "binding parameter \(index)")
    }

    /// Binds UTF-8 text to parameter `index` (from 1); SQLite copies it.
    public func bind(_ value: String, at index: Int) throws {
        // The explicit byte count keeps text after an embedded NUL.
        let resultCode = value.withCString { text in
            sqlite3_bind_text64(
                handle, Int32(index), text, UInt64(value.utf8.count),
                notifyd_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try check(resultCode, "binding parameter \(index)")
    }

    /// Binds SQL `NULL` to parameter `index` (from 1).
    /// Binds bytes as a BLOB (an empty array as an empty BLOB, not NULL).
    public func bind(bytes value: [UInt8], at index: Int) throws {
        let resultCode = value.withUnsafeBytes { buffer in
            sqlite3_bind_blob64(
                handle, Int32(index), buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                notifyd_sqlite_transient())
        }
        try check(resultCode, "binding parameter \(index)")
    }

    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)), "binding parameter \(index)")
    }

    /// Runs the statement to its next row: `true` when a row is ready to
    /// read, `false` when the statement has finished.
    @discardableResult
    public func step() throws -> Bool {
        try check(sqlite3_step(handle), "running \(SQLText.summary(sql))") == SQLITE_ROW
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() {
        // sqlite3_reset only repeats the error of the last step, which was
        // already reported by step().
        sqlite3_reset(handle)
    }

    /// The number of columns in a result row.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Whether column `column` (from 0) of the current row is `NULL`.
    public func isNull(at column: Int) -> Bool {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL
    }

    /// Column `column` (from 0) of the current row as an integer (`NULL` reads as 0).
    public func int64(at column: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(column))
    }

    /// Column `column` (from 0) of the current row as a floating-point number (`NULL` reads as 0).
    public func double(at column: Int) -> Double {
        sqlite3_column_double(handle, Int32(column))
    }

    /// Column `column` (from 0) of the current row as text, `nil` for `NULL`.
    /// A BLOB column's bytes; nil when NULL.
    public func bytes(at column: Int) -> [UInt8]? {
        guard !isNull(at: column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard count > 0, let blob = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    public func string(at column: Int) -> String? {
        guard !isNull(at: column), let text = sqlite3_column_text(handle, Int32(column)) else {
            return nil
        }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    @discardableResult
    private func check(_ resultCode: Int32, _ action: @autoclosure () -> String) throws -> Int32 {
        try database.check(resultCode, action())
    }
}

@available(*, unavailable, message: "a statement belongs to its connection's thread")
extension SQLiteStatement: Sendable {}

extension SQLiteStatement {
    /// Binds the bit pattern of `value` as an integer (values above
    /// `Int64.max` become negative in SQL), or `NULL` for `nil`.
    func bind(bitPattern value: UInt64?, at index: Int) throws {
        if let value { try bind(Int64(bitPattern: value), at: index) } else { try bindNull(at: index) }
    }

    /// Column `column` (from 0) read back as written by ``bind(bitPattern:at:)``; `nil` for `NULL`.
    func uint64(bitPatternAt column: Int) -> UInt64? {
        isNull(at: column) ? nil : UInt64(bitPattern: int64(at: column))
    }
}
