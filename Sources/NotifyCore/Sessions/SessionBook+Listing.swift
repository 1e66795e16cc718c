/// A row of `ListSessions`: a session's record and how many handlers it
/// has pending.
public struct SessionListingRow: Sendable, Hashable {
    /// The session's record.
    public let record: SessionRecord
    /// Its pending handlers.
    public let pending: Int

    /// A row (tests build them; the book makes them with ``SessionBook/listingRows(where:)``).
    public init(record: SessionRecord, pending: Int) {
        self.record = record
        self.pending = pending
    }

    /// Rows sort by session ID, as ``SessionBook/allSessions`` does.
    public static func precedes(_ lhs: SessionListingRow, _ rhs: SessionListingRow) -> Bool {
        lhs.record.id < rhs.record.id
    }
}

extension SessionBook {
    /// Every session whose app passes `include`, with its pending count,
    /// in no particular order: one pass over the book, no sorting, so that
    /// a caller with many sessions can sort and use the rows in pieces.
    /// (``allSessions`` sorts them all at once.)
    public func listingRows(where include: (AppID) -> Bool) -> [SessionListingRow] {
        var rows: [SessionListingRow] = []
        for entry in entries.values where include(entry.record.app) {
            rows.append(SessionListingRow(record: entry.record, pending: entry.pending.count))
        }
        return rows
    }
}
