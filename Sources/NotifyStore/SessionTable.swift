/// A background session as stored.
public struct StoredSession: Sendable, Hashable {
    /// The session ID.
    public var id: String
    /// The app the session belongs to.
    public var app: String
    /// How many events the session has had.
    public var events: UInt32
    /// When the last event arrived, in Unix µs.
    public var lastEvent: Int64
    /// Bytes written so far, when known.
    public var bytesWritten: UInt64?
    /// Bytes expected in all, when known.
    public var bytesExpected: UInt64?
    /// Progress from 0 to 1, when known. NaN is stored as unknown (`nil`).
    public var progress: Double?
    /// Whether the session is still transferring.
    public var inProgress: Bool
    /// How the last handler was invoked: `completed`, `cancelled`, `expired`, or `nil`.
    public var lastResult: String?

    /// Creates a session row.
    public init(
        id: String, app: String, events: UInt32, lastEvent: Int64,
        bytesWritten: UInt64? = nil, bytesExpected: UInt64? = nil, progress: Double? = nil,
        inProgress: Bool, lastResult: String? = nil
    ) {
        self.id = id
        self.app = app
        self.events = events
        self.lastEvent = lastEvent
        self.bytesWritten = bytesWritten
        self.bytesExpected = bytesExpected
        self.progress = progress
        self.inProgress = inProgress
        self.lastResult = lastResult
    }
}

/// The `sessions` table: one row per session. `UInt64` columns hold the
/// value's bit pattern (values above `Int64.max` read as negative in SQL).
struct SessionTable {
    private let upsert: SQLiteStatement
    private let delete: SQLiteStatement

    /// Prepares the statements that write the table.
    init(database: SQLiteDatabase) throws {
        upsert = try database.prepare("""
            INSERT INTO sessions (
                id, app_id, events, last_event_us, bytes_written, bytes_expected,
                progress, in_progress, last_result)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (id) DO UPDATE SET
                app_id = excluded.app_id, events = excluded.events,
                last_event_us = excluded.last_event_us, bytes_written = excluded.bytes_written,
                bytes_expected = excluded.bytes_expected, progress = excluded.progress,
                in_progress = excluded.in_progress, last_result = excluded.last_result
            """)
        delete = try database.prepare("DELETE FROM sessions WHERE id = ?1")
    }

    /// Every session in the table. Rows a build would never write (events
    /// outside `UInt32`, `in_progress` other than 0 or 1, a `NULL` ID) are skipped.
    static func load(from database: SQLiteDatabase) throws -> [StoredSession] {
        let select = try database.prepare("""
            SELECT id, app_id, events, last_event_us, bytes_written, bytes_expected,
                progress, in_progress, last_result
            FROM sessions
            """)
        var sessions: [StoredSession] = []
        while try select.step() {
            guard let id = select.string(at: 0), let app = select.string(at: 1),
                let events = UInt32(exactly: select.int64(at: 2)),
                case let inProgress = select.int64(at: 7), inProgress == 0 || inProgress == 1
            else { continue }
            sessions.append(
                StoredSession(
                    id: id, app: app, events: events, lastEvent: select.int64(at: 3),
                    bytesWritten: select.uint64(bitPatternAt: 4),
                    bytesExpected: select.uint64(bitPatternAt: 5),
                    progress: select.isNull(at: 6) ? nil : select.double(at: 6),
                    inProgress: inProgress == 1, lastResult: select.string(at: 8)))
        }
        return sessions
    }

    /// Inserts `session`, or replaces the row with its ID.
    func write(_ session: StoredSession) throws {
        upsert.reset()
        defer { upsert.reset() }
        try upsert.bind(session.id, at: 1)
        try upsert.bind(session.app, at: 2)
        try upsert.bind(Int64(session.events), at: 3)
        try upsert.bind(session.lastEvent, at: 4)
        try upsert.bind(bitPattern: session.bytesWritten, at: 5)
        try upsert.bind(bitPattern: session.bytesExpected, at: 6)
        if let progress = session.progress {
            try upsert.bind(progress, at: 7)
        } else {
            try upsert.bindNull(at: 7)
        }
        try upsert.bind(Int64(session.inProgress ? 1 : 0), at: 8)
        if let result = session.lastResult {
            try upsert.bind(result, at: 9)
        } else {
            try upsert.bindNull(at: 9)
        }
        try upsert.step()
    }

    /// Deletes the session with ID `id`, if any.
    func remove(id: String) throws {
        delete.reset()
        defer { delete.reset() }
        try delete.bind(id, at: 1)
        try delete.step()
    }
}
