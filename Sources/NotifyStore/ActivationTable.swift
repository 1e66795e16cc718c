/// One time an app became active, as stored.
public struct StoredActivation: Sendable, Hashable {
    /// The app ID.
    public var app: String
    /// When it became active, in Unix µs.
    public var at: Int64

    /// Creates an activation row.
    public init(app: String, at: Int64) {
        self.app = app
        self.at = at
    }
}

/// One app's stored activations, oldest first.
public struct StoredActivationHistory: Sendable, Hashable {
    /// The app ID.
    public var app: String
    /// When it became active, in Unix µs, oldest first.
    public var times: [Int64]

    /// Creates an app's history.
    public init(app: String, times: [Int64]) {
        self.app = app
        self.times = times
    }
}

/// The `activations` table: one row per time an app became active. Rows
/// are never updated; each app's history is trimmed to its newest rows.
/// Rows at the same time are told apart by their `id` (the order inserted).
struct ActivationTable {
    private let insert: SQLiteStatement
    private let trim: SQLiteStatement

    /// Prepares the statements that write the table.
    init(database: SQLiteDatabase) throws {
        insert = try database.prepare("INSERT INTO activations (app_id, at_us) VALUES (?1, ?2)")
        // The index on (app_id, at_us) holds the rowid too, so the newest
        // rows are read from the index in order.
        trim = try database.prepare("""
            DELETE FROM activations WHERE app_id = ?1 AND id NOT IN (
                SELECT id FROM activations WHERE app_id = ?1
                ORDER BY at_us DESC, id DESC LIMIT ?2)
            """)
    }

    /// Every app's activation times, oldest first (then the order
    /// inserted), each app once, apps in order: one string per app, not
    /// one per row. 10,000 apps of 1,000 activations are 80 MB of
    /// times this way, against about 1 GB as one row value each.
    static func loadByApp(from database: SQLiteDatabase) throws -> [StoredActivationHistory] {
        let select = try database.prepare("SELECT app_id, at_us FROM activations ORDER BY app_id, at_us, id")
        var histories: [StoredActivationHistory] = []
        var current = StoredActivationHistory(app: "", times: [])
        while try select.step() {
            guard let app = select.string(at: 0) else { continue }
            if app != current.app {
                if !current.times.isEmpty { histories.append(current) }
                current = StoredActivationHistory(app: app, times: [])
            }
            current.times.append(select.int64(at: 1))
        }
        if !current.times.isEmpty { histories.append(current) }
        return histories
    }

    /// Inserts `activation` as a new row.
    func write(_ activation: StoredActivation) throws {
        insert.reset()
        defer { insert.reset() }
        try insert.bind(activation.app, at: 1)
        try insert.bind(activation.at, at: 2)
        try insert.step()
    }

    /// Deletes all but the newest `keepNewest` activations of `app` (all of
    /// them for 0 or less).
    func trim(app: String, keepNewest: Int) throws {
        trim.reset()
        defer { trim.reset() }
        try trim.bind(app, at: 1)
        try trim.bind(Int64(max(0, keepNewest)), at: 2)
        try trim.step()
    }
}
