import CSQLite
import Glibc

/// Keeping the write-ahead log small.
///
/// SQLite's own policy (a PASSIVE checkpoint once the WAL holds 1,000
/// frames, and a WAL file that never shrinks) lets the file grow to about
/// 4 MB: at about six pages per commit of one event, a disk of 2 MB filled
/// with WAL after 80 events. A read-write connection therefore counts the
/// frames itself (``walFrameCount``, kept by a WAL hook, which also turns
/// SQLite's auto-checkpoint off) and its owner checkpoints when it chooses
/// (``checkpoint(_:)``); `PRAGMA journal_size_limit` (set by
/// ``limitWALFile(bytes:)``) cuts the file back when the WAL starts again
/// at its beginning.
extension SQLiteDatabase {
    /// The checkpoint modes of `sqlite3_wal_checkpoint_v2`.
    public enum CheckpointMode: String, Sendable {
        /// Copies what it can without waiting for other connections.
        case passive = "PASSIVE"
        /// Waits for writers, then copies every frame.
        case full = "FULL"
        /// As `.full`, then waits until the next writer can start the WAL again.
        case restart = "RESTART"
        /// As `.restart`, then truncates the WAL file to zero bytes.
        case truncate = "TRUNCATE"

        var code: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .full: SQLITE_CHECKPOINT_FULL
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// What a checkpoint did.
    public struct CheckpointResult: Sendable, Hashable {
        /// Frames in the WAL when the checkpoint ran.
        public let walFrames: Int
        /// Frames copied into the database file.
        public let checkpointedFrames: Int

        /// Whether every frame is in the database file: the next write
        /// starts the WAL again at its beginning.
        public var isComplete: Bool { checkpointedFrames >= walFrames }
    }

    /// The path of the WAL file, `<path>-wal`.
    public var walPath: String { path + "-wal" }

    /// The size of the WAL file in bytes (0 when there is none).
    public var walFileSize: Int {
        var info = stat()
        return stat(walPath, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The page size of the database (`PRAGMA page_size`).
    public var pageSize: Int {
        get throws {
            let statement = try prepare("PRAGMA page_size")
            return try statement.step() ? Int(statement.int64(at: 0)) : 4096
        }
    }

    /// Copies the WAL's frames into the database file; `.truncate` also
    /// empties the WAL file. Resets ``walFrameCount`` when every frame was
    /// copied.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode) throws -> CheckpointResult {
        var frames: Int32 = 0
        var copied: Int32 = 0
        try check(
            sqlite3_wal_checkpoint_v2(connection, nil, mode.code, &frames, &copied),
            "checkpointing the write-ahead log (\(mode.rawValue))")
        // -1 for both: the database is not in WAL mode.
        let result = CheckpointResult(walFrames: max(0, Int(frames)), checkpointedFrames: max(0, Int(copied)))
        if result.isComplete { walFrameCount = 0 }
        return result
    }

    /// Sets `PRAGMA journal_size_limit`: when the WAL starts again at its
    /// beginning, the file is cut back to `bytes`.
    public func limitWALFile(bytes: Int) throws {
        try execute("PRAGMA journal_size_limit = \(max(0, bytes))")
    }

    /// Past this many frames the WAL hook checkpoints by itself (PASSIVE),
    /// as SQLite's auto-checkpoint would, for owners that never call
    /// ``checkpoint(_:)``.
    public static let fallbackCheckpointFrames: Int32 = 1000

    /// Counts the frames of the WAL after every commit, in ``walFrameCount``
    /// (replacing SQLite's auto-checkpoint, kept only as a fallback).
    func installWALHook() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            connection,
            { context, connection, name, frames in
                guard let context else { return SQLITE_OK }
                let database = Unmanaged<SQLiteDatabase>.fromOpaque(context).takeUnretainedValue()
                database.walFrameCount = Int(frames)
                if frames >= SQLiteDatabase.fallbackCheckpointFrames {
                    var log: Int32 = 0
                    var copied: Int32 = 0
                    let code = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
                    if code == SQLITE_OK, copied >= log { database.walFrameCount = 0 }
                }
                return SQLITE_OK  // a failed checkpoint is not the commit's failure
            }, context)
    }
}
