/// A pending completion handler as stored.
public struct StoredHandler: Sendable, Hashable {
    /// The handler ID: greater than 0, strictly increasing, never reused.
    public var id: UInt64
    /// The session the handler belongs to.
    public var session: String
    /// The app of that session.
    public var app: String
    /// When the handler was stored, in Unix µs.
    public var storedAt: Int64
    /// When the handler expires, in Unix µs.
    public var deadline: Int64

    /// Creates a handler row.
    public init(id: UInt64, session: String, app: String, storedAt: Int64, deadline: Int64) {
        self.id = id
        self.session = session
        self.app = app
        self.storedAt = storedAt
        self.deadline = deadline
    }
}

/// The `handlers` table (one row per pending handler) and the
/// `last_handler_id` row of `counters` (the largest handler ID ever stored).
///
/// IDs are stored as their bit pattern, so SQL sees IDs above `Int64.max` as
/// negative: orders and maxima are taken unsigned here, never by SQL alone.
struct HandlerTable {
    /// The name of the row in `counters` that holds the largest handler ID.
    static let counterName = "last_handler_id"

    private let insert: SQLiteStatement
    private let delete: SQLiteStatement
    private let raiseCounter: SQLiteStatement
    private let shiftDeadlines: SQLiteStatement

    /// Prepares the statements that write the tables.
    init(database: SQLiteDatabase) throws {
        insert = try database.prepare("""
            INSERT INTO handlers (id, session_id, app_id, stored_at_us, deadline_us)
            VALUES (?1, ?2, ?3, ?4, ?5)
            """)
        delete = try database.prepare("DELETE FROM handlers WHERE id = ?1")
        shiftDeadlines = try database.prepare("UPDATE handlers SET deadline_us = deadline_us + ?1")
        // Unsigned max of two bit patterns: with equal signs the signed order
        // is the unsigned one; otherwise the negative one is the larger.
        raiseCounter = try database.prepare("""
            INSERT INTO counters (name, value) VALUES ('\(Self.counterName)', ?1)
            ON CONFLICT (name) DO UPDATE SET value = CASE
                WHEN (value < 0) = (excluded.value < 0) THEN max(value, excluded.value)
                WHEN value < 0 THEN value
                ELSE excluded.value
            END
            """)
    }

    /// Every pending handler, ordered by ID (unsigned). Rows with a `NULL`
    /// session or app (only a hand-edited file has them) are skipped.
    static func load(from database: SQLiteDatabase) throws -> [StoredHandler] {
        // `id < 0` last: those are the IDs above Int64.max.
        let select = try database.prepare("""
            SELECT id, session_id, app_id, stored_at_us, deadline_us
            FROM handlers ORDER BY id < 0, id
            """)
        var handlers: [StoredHandler] = []
        while try select.step() {
            guard let session = select.string(at: 1), let app = select.string(at: 2) else { continue }
            handlers.append(
                StoredHandler(
                    id: UInt64(bitPattern: select.int64(at: 0)), session: session, app: app,
                    storedAt: select.int64(at: 3), deadline: select.int64(at: 4)))
        }
        return handlers
    }

    /// The largest handler ID ever stored: the counter, or a pending
    /// handler's ID should a hand-edited file hold a larger one; 0 when none.
    static func loadLastID(from database: SQLiteDatabase) throws -> UInt64 {
        let counter = try database.prepare("SELECT value FROM counters WHERE name = ?1")
        try counter.bind(counterName, at: 1)
        let counted = try counter.step() ? UInt64(bitPattern: counter.int64(at: 0)) : 0
        // The largest unsigned ID is the largest negative bit pattern if any, else the largest.
        let largest = try database.prepare("""
            SELECT coalesce((SELECT max(id) FROM handlers WHERE id < 0), max(id), 0) FROM handlers
            """)
        let pending = try largest.step() ? UInt64(bitPattern: largest.int64(at: 0)) : 0
        return max(counted, pending)
    }

    /// Inserts `handler`. An ID already in the table, or 0, is a `.constraint` error.
    func write(_ handler: StoredHandler) throws {
        insert.reset()
        defer { insert.reset() }
        do {
            try insert.bind(bitPattern: handler.id, at: 1)
            try insert.bind(handler.session, at: 2)
            try insert.bind(handler.app, at: 3)
            try insert.bind(handler.storedAt, at: 4)
            try insert.bind(handler.deadline, at: 5)
            try insert.step()
        } catch let error as StoreError {
            throw StoreError(
                code: error.code, path: error.path,
                message: """
                    \(error.message) (While storing handler \(handler.id) of session \
                    '\(handler.session)'.)
                    """)
        }
    }

    /// Deletes the handler with ID `id`, if any.
    func remove(id: UInt64) throws {
        delete.reset()
        defer { delete.reset() }
        try delete.bind(bitPattern: id, at: 1)
        try delete.step()
    }

    /// Moves every stored deadline by `delta` microseconds (the wall clock
    /// was set: deadlines are elapsed time).
    func shiftDeadlines(by delta: Int64) throws {
        shiftDeadlines.reset()
        defer { shiftDeadlines.reset() }
        try shiftDeadlines.bind(delta, at: 1)
        try shiftDeadlines.step()
    }

    /// Raises the largest handler ID ever stored to `id` (never lowers it).
    func recordLastID(_ id: UInt64) throws {
        raiseCounter.reset()
        defer { raiseCounter.reset() }
        try raiseCounter.bind(bitPattern: id, at: 1)
        try raiseCounter.step()
    }
}
