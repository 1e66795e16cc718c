/// The `badges` table: one row per app whose badge count is not 0.
struct BadgeTable {
    private let upsert: SQLiteStatement
    private let delete: SQLiteStatement

    /// Prepares the statements that write the table.
    init(database: SQLiteDatabase) throws {
        upsert = try database.prepare("""
            INSERT INTO badges (app_id, count) VALUES (?1, ?2)
            ON CONFLICT (app_id) DO UPDATE SET count = excluded.count
            """)
        delete = try database.prepare("DELETE FROM badges WHERE app_id = ?1")
    }

    /// Every badge in the table. Rows whose count is not in 1...UInt32.max
    /// (only a hand-edited file has them) are skipped.
    static func load(from database: SQLiteDatabase) throws -> [String: UInt32] {
        let select = try database.prepare("SELECT app_id, count FROM badges")
        var badges: [String: UInt32] = [:]
        while try select.step() {
            guard let appID = select.string(at: 0),
                let count = UInt32(exactly: select.int64(at: 1)), count > 0
            else { continue }
            badges[appID] = count
        }
        return badges
    }

    /// Sets the badge of `appID`; a count of 0 deletes its row.
    func write(appID: String, count: UInt32) throws {
        let statement = count == 0 ? delete : upsert
        statement.reset()
        defer { statement.reset() }
        try statement.bind(appID, at: 1)
        if count > 0 { try statement.bind(Int64(count), at: 2) }
        try statement.step()
    }
}
