@testable import NotifyStore
import Testing

/// The write-ahead log stays small: SQLite alone lets it grow to 4 MB
/// (1,000 pages) and never shrinks the file, which filled a 2 MB disk after
/// 80 single-event commits.
@Suite("StateStore WAL size")
struct WALSizeTests {
    /// What one event stages, as the daemon does: session, handler, badge.
    static func stageEvent(_ index: Int, in store: StateStore, app: String = "org.example.App") {
        let session = "session-\(index)"
        store.staged.stageSession(StoredSession(id: session, app: app, events: 1, lastEvent: Int64(index), inProgress: false))
        store.staged.stageHandler(
            StoredHandler(id: UInt64(index + 1), session: session, app: app, storedAt: Int64(index), deadline: .max))
        store.staged.stageBadge(app, count: UInt32(index + 1))
    }

    /// The bound: the WAL at its checkpoint size, plus one commit.
    static func bound(_ store: StateStore) -> Int {
        StateStore.walBytes(frames: store.walCheckpointFrames + 16, pageSize: 4096)
    }

    @Test("2,000 single-event commits leave a WAL of at most its checkpoint size")
    func walStaysSmallOverManyCommits() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            var largest = 0
            for index in 0..<2_000 {
                Self.stageEvent(index, in: store)
                try store.commit()
                try store.checkpointIfNeeded()
                largest = max(largest, store.walFileSize)
            }
            #expect(largest <= Self.bound(store), "the WAL file reached \(largest) bytes")
            #expect(largest > 0)
            #expect(try store.loadHandlers().count == 2_000)
            let limit = StateStore.walBytes(frames: store.walCheckpointFrames, pageSize: 4096)
            #expect(try integer(store.database, "PRAGMA journal_size_limit") == Int64(limit))
        }
    }

    @Test("an owner that never checkpoints still gets SQLite's fallback at 1,000 frames")
    func fallbackCheckpointWithoutTheOwner() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root)
            var largest = 0
            for index in 0..<400 {
                Self.stageEvent(index, in: store)
                try store.commit()
                #expect(store.walFrameCount < Int(SQLiteDatabase.fallbackCheckpointFrames) + 16)
                largest = max(largest, store.walFileSize)
            }
            #expect(largest <= StateStore.walBytes(frames: 1_016, pageSize: 4096))
        }
    }

    @Test("a large batch is checkpointed with TRUNCATE, leaving an empty WAL file")
    func largeBatchTruncates() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: root, walCheckpointFrames: 16)
            for index in 0..<3_000 { Self.stageEvent(index, in: store, app: "org.example.App\(index % 50)") }
            try store.commit()
            #expect(store.walFrameCount > 4 * 16)
            let result = try store.checkpointIfNeeded()
            #expect(result?.isComplete == true)
            #expect(store.walFileSize == 0)
            #expect(store.walFrameCount == 0)
            // Nothing is lost by the checkpoint.
            #expect(try store.loadHandlers().count == 3_000)
        }
    }

    @Test("checkpoints leave every committed row readable after reopening")
    func checkpointedDataSurvivesReopening() throws {
        try withTemporaryDirectory { root in
            do {
                let store = try StateStore(directory: root, walCheckpointFrames: 8)
                for index in 0..<300 {
                    Self.stageEvent(index, in: store)
                    try store.commit()
                    try store.checkpointIfNeeded()
                }
                try store.truncateWAL()
                #expect(store.walFileSize == 0)
            }
            let reopened = try StateStore(directory: root)
            #expect(try reopened.loadHandlers().map(\.id) == (1...300).map(UInt64.init))
            #expect(try reopened.loadBadges() == ["org.example.App": 300])
        }
    }
}
