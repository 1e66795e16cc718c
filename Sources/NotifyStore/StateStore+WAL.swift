/// How the store keeps its write-ahead log small.
///
/// Every commit appends the pages it changed to the WAL (about six pages
/// for one event); SQLite copies them into the database file at a
/// checkpoint and then starts the WAL again at its beginning. Left to
/// SQLite, the WAL grows to 1,000 pages (4 MB) before a checkpoint and the
/// file never shrinks. Here:
///
/// - after a commit, once its outcome is handed on, the owner calls
///   ``checkpointIfNeeded()``: a PASSIVE checkpoint once the WAL holds
///   ``walCheckpointFrames`` frames (notifyd is the only connection, so it
///   copies every frame);
/// - `journal_size_limit` cuts the WAL file back to that size when the WAL
///   starts again, so a large batch (thousands of handlers expired at
///   start-up) does not leave a large file behind; a WAL already larger
///   than that is checkpointed with TRUNCATE at once;
/// - a commit refused because the disk is full gets the WAL's space back
///   (TRUNCATE) and is tried once more (``commit()``).
///
/// A checkpoint writes the database file and syncs it: committed data is
/// in the WAL (synced by the commit) before, and in the database after.
extension StateStore {
    /// The default of ``walCheckpointFrames``: 64 pages, a WAL of about
    /// 260 KB; at about six pages per single-event commit, one checkpoint
    /// (one more fsync) every ten such commits.
    public static let defaultWALCheckpointFrames = 64

    /// Frames in the WAL since the last complete checkpoint.
    public var walFrameCount: Int { database.walFrameCount }

    /// The size of the WAL file in bytes.
    public var walFileSize: Int { database.walFileSize }

    /// Checkpoints when the WAL holds ``walCheckpointFrames`` frames or
    /// more: PASSIVE, or TRUNCATE when the WAL is over four times that
    /// (after a large batch). Returns what the checkpoint did, or `nil`
    /// when none was needed. A failed checkpoint loses nothing (the frames
    /// stay in the WAL, and the next call tries again).
    @discardableResult
    public func checkpointIfNeeded() throws -> SQLiteDatabase.CheckpointResult? {
        let frames = database.walFrameCount
        guard frames >= walCheckpointFrames else { return nil }
        return try database.checkpoint(frames > 4 * walCheckpointFrames ? .truncate : .passive)
    }

    /// Copies every frame into the database file and empties the WAL file
    /// (TRUNCATE), e.g. when idle or before shutting down.
    @discardableResult
    public func truncateWAL() throws -> SQLiteDatabase.CheckpointResult {
        try database.checkpoint(.truncate)
    }

    /// After a commit failed for a full disk: empties the WAL file to give
    /// its space back. Whether that freed anything worth a second try.
    func reclaimWALSpace() -> Bool {
        let size = database.walFileSize
        guard size > 0, (try? database.checkpoint(.truncate)) != nil else { return false }
        return database.walFileSize < size
    }

    /// The WAL file's size for `frames` frames of `pageSize` (a 32-byte
    /// header, then 24 bytes and a page per frame).
    public static func walBytes(frames: Int, pageSize: Int) -> Int {
        32 + frames * (24 + pageSize)
    }
}

extension StateStore {
    /// Frees what SQLite can of its page cache (`sqlite3_db_release_memory`;
    /// it fills again as rows are read): after a large clearing, with the
    /// daemon's heap trim, so that memory comes back down. A failure
    /// changes nothing stored and is not an error for anyone.
    public func releaseCacheMemory() {
        database.releaseMemory()
    }
}
