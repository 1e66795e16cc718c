/// The daemon's durable state in `<directory>/state.sqlite3`, written by
/// group commit: writes are staged in memory, then ``commit()`` puts all of
/// them on disk in one transaction (one fsync).
///
/// The store holds an exclusive lock on `<directory>/state.lock` for its
/// lifetime, so a second store (in this or another process) on the same
/// directory is refused with a ``StoreError`` of code `.locked`.
/// Not `Sendable`: use a store from one thread.
public final class StateStore {
    /// The name of the database file inside the state directory.
    public static let databaseFileName = "state.sqlite3"
    /// The name of the lock file inside the state directory.
    public static let lockFileName = "state.lock"

    /// The state directory.
    public let directory: String
    /// The database file, `<directory>/state.sqlite3`.
    public var databasePath: String { database.path }

    let database: SQLiteDatabase
    private let badges: BadgeTable
    private let lock: StateDirectoryLock
    private var staged = StagedWrites()

    /// Opens the store in `directory`, creating the directory (mode 0700) and
    /// the database (mode 0600) if missing, and bringing the schema up to date.
    public init(directory: String) throws {
        let directory = directory.isEmpty ? "." : FileSystem.trimmingTrailingSlashes(directory)
        try FileSystem.createDirectories(directory)
        let lock = try StateDirectoryLock(directory: directory)
        let database = try SQLiteDatabase(
            path: FileSystem.join(directory, Self.databaseFileName))
        try StateSchema.migrate(database)
        self.badges = try BadgeTable(database: database)
        self.database = database
        self.lock = lock
        self.directory = directory
    }

    /// The badges as committed to the database (staged writes not included).
    public func loadBadges() throws -> [String: UInt32] {
        try BadgeTable.load(from: database)
    }

    /// Stages the badge of `appID` for the next commit; 0 removes it. No I/O;
    /// a later call for the same app replaces this one.
    public func stageBadge(_ appID: String, count: UInt32) {
        staged.stage(.badge(appID: appID, count: count))
    }

    /// Whether anything is waiting for ``commit()``.
    public var hasStagedWrites: Bool { !staged.isEmpty }

    /// How many writes are waiting for ``commit()`` (one per row).
    public var stagedWriteCount: Int { staged.count }

    /// Writes everything staged in one `BEGIN IMMEDIATE` ... `COMMIT` and
    /// forgets it. With nothing staged it does nothing (no I/O).
    ///
    /// On failure the transaction is rolled back, the staged writes are
    /// forgotten all the same, and the ``StoreError`` is thrown: the database
    /// then holds what it held before, which the caller should reload.
    public func commit() throws {
        guard !staged.isEmpty else { return }
        let writes = staged.take()
        try database.transaction(.immediate) {
            for write in writes { try apply(write) }
        }
    }

    private func apply(_ write: StagedWrite) throws {
        switch write {
        case .badge(let appID, let count):
            try badges.write(appID: appID, count: count)
        }
    }
}

@available(*, unavailable, message: "a store belongs to one thread")
extension StateStore: Sendable {}

/// A write the ``StateStore`` keeps in memory until the next commit.
///
/// To add a kind of write: add a case, give it a ``Key`` (writes with equal
/// keys replace each other), and handle it in `StateStore.apply(_:)`.
enum StagedWrite {
    /// Set the badge of an app; 0 removes it.
    case badge(appID: String, count: UInt32)

    /// What a write replaces: a later write with the same key wins.
    enum Key: Hashable {
        case badge(appID: String)
    }

    var key: Key {
        switch self {
        case .badge(let appID, _): .badge(appID: appID)
        }
    }
}

/// The staged writes: one per key (the last one staged), applied in the
/// order in which they were last staged.
struct StagedWrites {
    private var writes: [StagedWrite.Key: (order: Int, write: StagedWrite)] = [:]
    private var nextOrder = 0

    var isEmpty: Bool { writes.isEmpty }
    var count: Int { writes.count }

    mutating func stage(_ write: StagedWrite) {
        writes[write.key] = (nextOrder, write)
        nextOrder += 1
    }

    /// Returns the writes in order and forgets them.
    mutating func take() -> [StagedWrite] {
        let ordered = writes.values.sorted { $0.order < $1.order }.map(\.write)
        self = StagedWrites()
        return ordered
    }
}
