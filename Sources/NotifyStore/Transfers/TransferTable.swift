/// The `transfers` table: a row per transfer not yet ended, and the last
/// ``endedKept`` ended (older ended rows are deleted as new ones end).
struct TransferTable {
    /// Ended transfers kept (as `TransferBook.endedKept`).
    static let endedKept = 100
    static let columns = """
        id, app_id, session_id, direction, url, path, state, reason, bytes_done, bytes_total, attempts, validator,
        retry_at_us, last_progress_us, created_us, ended_us, final_path, title, headers, method, sha256,
        allow_metered, discretionary, not_before_us, overwrite, notify, sound, badge, timeout
        """
    private let upsert: SQLiteStatement
    private let trimEnded: SQLiteStatement
    private let shiftTimes: SQLiteStatement

    init(database: SQLiteDatabase) throws {
        let placeholders = (1...29).map { "?\($0)" }.joined(separator: ", ")
        upsert = try database.prepare("INSERT OR REPLACE INTO transfers (\(Self.columns)) VALUES (\(placeholders))")
        trimEnded = try database.prepare("""
            DELETE FROM transfers WHERE ended_us IS NOT NULL AND id NOT IN
                (SELECT id FROM transfers WHERE ended_us IS NOT NULL ORDER BY ended_us DESC, id DESC LIMIT \(Self.endedKept))
            """)
        shiftTimes = try database.prepare("""
            UPDATE transfers SET last_progress_us = last_progress_us + ?1,
                retry_at_us = CASE WHEN retry_at_us IS NULL THEN NULL ELSE retry_at_us + ?1 END
            WHERE ended_us IS NULL
            """)
    }

    func write(_ transfer: StoredTransfer) throws {
        let statement = upsert
        statement.reset()
        defer { statement.reset() }
        let options = transfer.options
        let texts: [(String?, Int)] = [
            (transfer.app, 2), (transfer.session, 3), (transfer.direction, 4), (transfer.url, 5), (transfer.path, 6),
            (transfer.state, 7), (transfer.reason, 8), (transfer.validator, 12), (transfer.finalPath, 17),
            (options.title, 18), (options.headers.joined(separator: "\n"), 19), (options.method, 20),
            (options.sha256, 21), (options.sound, 27),
        ]
        for (text, index) in texts {
            if let text { try statement.bind(text, at: index) } else { try statement.bindNull(at: index) }
        }
        let numbers: [(Int64?, Int)] = [
            (Int64(bitPattern: transfer.id), 1), (Int64(bitPattern: transfer.bytesDone), 9),
            (Int64(bitPattern: transfer.bytesTotal), 10), (Int64(transfer.attempts), 11), (transfer.retryAt, 13),
            (transfer.lastProgress, 14), (transfer.created, 15), (transfer.ended, 16),
            (options.allowMetered ? 1 : 0, 22), (options.discretionary ? 1 : 0, 23), (options.notBefore, 24),
            (options.overwrite ? 1 : 0, 25), (options.notify ? 1 : 0, 26), (options.badge.map(Int64.init), 28),
            (options.timeout.map(Int64.init), 29),
        ]
        for (number, index) in numbers {
            if let number { try statement.bind(number, at: index) } else { try statement.bindNull(at: index) }
        }
        _ = try statement.step()
        if transfer.ended != nil {
            trimEnded.reset()
            defer { trimEnded.reset() }
            _ = try trimEnded.step()
        }
    }

    /// Moves the retry times and the last progress of every transfer not ended by `delta` µs.
    func shift(by delta: Int64) throws {
        shiftTimes.reset()
        defer { shiftTimes.reset() }
        try shiftTimes.bind(delta, at: 1)
        _ = try shiftTimes.step()
    }

    static func load(from database: SQLiteDatabase) throws -> [StoredTransfer] {
        let select = try database.prepare("SELECT \(columns) FROM transfers ORDER BY id")
        var rows: [StoredTransfer] = []
        func optional(_ column: Int) -> Int64? { select.isNull(at: column) ? nil : select.int64(at: column) }
        while try select.step() {
            guard let app = select.string(at: 1), let session = select.string(at: 2),
                let direction = select.string(at: 3), let url = select.string(at: 4), let path = select.string(at: 5),
                let state = select.string(at: 6), let reason = select.string(at: 7),
                let attempts = UInt32(exactly: select.int64(at: 10)), let method = select.string(at: 19)
            else { continue }
            let headers = select.string(at: 18).map { $0.split(separator: "\n").map(String.init) } ?? []
            let options = StoredTransfer.Options(
                title: select.string(at: 17), headers: headers, method: method, sha256: select.string(at: 20),
                allowMetered: select.int64(at: 21) != 0, discretionary: select.int64(at: 22) != 0,
                notBefore: optional(23), overwrite: select.int64(at: 24) != 0, notify: select.int64(at: 25) != 0,
                sound: select.string(at: 26), badge: optional(27).flatMap { Int32(exactly: $0) },
                timeout: optional(28).flatMap { UInt32(exactly: $0) })
            rows.append(
                StoredTransfer(
                    id: UInt64(bitPattern: select.int64(at: 0)), app: app, session: session, direction: direction,
                    url: url, path: path, state: state, reason: reason,
                    bytesDone: UInt64(bitPattern: select.int64(at: 8)), bytesTotal: UInt64(bitPattern: select.int64(at: 9)),
                    attempts: attempts, validator: select.string(at: 11), retryAt: optional(12),
                    lastProgress: select.int64(at: 13), created: select.int64(at: 14), ended: optional(15),
                    finalPath: select.string(at: 16), options: options))
        }
        return rows
    }
}

extension StateStore {
    /// Every stored transfer, by ID: those not yet ended and the last ended.
    public func loadTransfers() throws -> [StoredTransfer] {
        try TransferTable.load(from: database)
    }
}

extension StateWrites {
    /// Stages a transfer as it is now (a later one of the same ID replaces
    /// it); an ended one makes the oldest ended beyond 100 go. No I/O.
    public mutating func stageTransfer(_ transfer: StoredTransfer) {
        stage(.transfer(transfer))
    }
}
