/// The daemon's durable state in `<directory>/state.sqlite3`, written by
/// group commit: writes are staged in memory, then ``commit()`` puts all of
/// them on disk in one transaction (one fsync).
///
/// The WAL is kept small (see `StateStore+WAL.swift`): the owner calls
/// ``checkpointIfNeeded()`` after a commit, once its replies are out; a
/// commit refused for a full disk is tried once more after a TRUNCATE
/// checkpoint has given the WAL's space back.
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
    /// After a commit, ``checkpointIfNeeded()`` checkpoints once the WAL
    /// holds this many frames (pages); the WAL file is cut back to that size.
    public let walCheckpointFrames: Int

    let database: SQLiteDatabase
    private let badges: BadgeTable
    private let sessions: SessionTable
    private let handlers: HandlerTable
    private let activations: ActivationTable
    let fetches: FetchTable
    private let lock: StateDirectoryLock
    /// Staged until the next commit (the extensions stage through it).
    var staged = StagedWrites()

    /// Opens the store in `directory`, creating the directory (mode 0700) and
    /// the database (mode 0600) if missing, and bringing the schema up to date.
    public init(directory: String, walCheckpointFrames: Int = StateStore.defaultWALCheckpointFrames) throws {
        let directory = directory.isEmpty ? "." : FileSystem.trimmingTrailingSlashes(directory)
        try FileSystem.createDirectories(directory)
        let lock = try StateDirectoryLock(directory: directory)
        let database = try SQLiteDatabase(
            path: FileSystem.join(directory, Self.databaseFileName))
        try StateSchema.migrate(database)
        let walCheckpointFrames = max(1, walCheckpointFrames)
        try database.limitWALFile(bytes: Self.walBytes(frames: walCheckpointFrames, pageSize: try database.pageSize))
        self.walCheckpointFrames = walCheckpointFrames
        self.badges = try BadgeTable(database: database)
        self.sessions = try SessionTable(database: database)
        self.handlers = try HandlerTable(database: database)
        self.activations = try ActivationTable(database: database)
        self.fetches = try FetchTable(database: database)
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

    // MARK: Sessions and completion handlers

    /// The sessions as committed to the database (staged writes not included).
    public func loadSessions() throws -> [StoredSession] {
        try SessionTable.load(from: database)
    }

    /// The pending handlers as committed, ordered by ID.
    public func loadHandlers() throws -> [StoredHandler] {
        try HandlerTable.load(from: database)
    }

    /// The largest handler ID ever stored (also of handlers since invoked),
    /// so that IDs are never reused after a restart; 0 when none.
    public func loadLastHandlerID() throws -> UInt64 {
        try HandlerTable.loadLastID(from: database)
    }

    /// Stages `session` for the next commit, inserting or replacing the row
    /// with its ID. No I/O; a later write for the same session replaces this one.
    public func stageSession(_ session: StoredSession) {
        staged.stage(.session(session))
    }

    /// Stages the removal of session `id`. No I/O; a later write for the same
    /// session replaces this one.
    public func stageSessionRemoval(_ id: String) {
        staged.stage(.sessionRemoval(id: id))
    }

    /// Stages the insert of `handler` and raises the last handler ID to its
    /// ID. No I/O. An ID already stored, or staged twice, makes the commit
    /// fail with `.constraint`.
    public func stageHandler(_ handler: StoredHandler) {
        staged.stage(.handler(handler))
    }

    /// Stages the removal of handler `id` (it was invoked). No I/O. A
    /// handler staged in the same batch is inserted and deleted in order,
    /// so that a reused ID still fails the commit; no row is left, and the
    /// last handler ID counts it.
    public func stageHandlerRemoval(_ id: UInt64) {
        staged.stage(.handlerRemoval(id: id))
    }

    /// Stages moving every handler's deadline, every running fetch's times
    /// and every app's last fetch by `microseconds`, those staged before it
    /// included. No I/O.
    public func stageDeadlineShift(by microseconds: Int64) {
        staged.stage(.deadlineShift(microseconds: microseconds))
    }

    // MARK: Activations

    /// The activations as committed, ordered by app, then time, then the
    /// order staged.
    public func loadActivations() throws -> [StoredActivation] {
        try loadActivationHistories().flatMap { history in
            history.times.map { StoredActivation(app: history.app, at: $0) }
        }
    }

    /// The activations as committed, grouped by app (each app once, its
    /// times oldest first): what startup reads, without a row value per
    /// activation.
    public func loadActivationHistories() throws -> [StoredActivationHistory] {
        try ActivationTable.loadByApp(from: database)
    }

    /// Stages the insert of `activation` as a row of its own (the same app
    /// and time twice are two rows). No I/O.
    public func stageActivation(_ activation: StoredActivation) {
        staged.stage(.activation(activation))
    }

    /// Stages the deletion of all but the newest `keepNewest` activations of
    /// `app` (of all of them for 0 or less), applied after the activations
    /// staged before it. No I/O; a later trim of the same app replaces this one.
    public func stageActivationTrim(app: String, keepNewest: Int) {
        staged.stage(.activationTrim(appID: app, keepNewest: keepNewest))
    }

    // MARK: Commit

    /// Whether anything is waiting for ``commit()``.
    public var hasStagedWrites: Bool { !staged.isEmpty }

    /// How many writes are waiting for ``commit()``: one per row, the last
    /// handler ID counting as one row and an activation trim as one.
    public var stagedWriteCount: Int { staged.count }

    /// Writes everything staged in one `BEGIN IMMEDIATE` ... `COMMIT` and
    /// forgets it. With nothing staged it does nothing (no I/O).
    ///
    /// When the disk is full, the WAL's space is given back (a TRUNCATE
    /// checkpoint) and the transaction is tried once more.
    ///
    /// On failure the transaction is rolled back, the staged writes are
    /// forgotten all the same, and the ``StoreError`` is thrown: the database
    /// then holds what it held before, which the caller should reload.
    public func commit() throws {
        guard !staged.isEmpty else { return }
        let writes = staged.take()
        do {
            try write(writes)
        } catch let error as StoreError where error.code == .diskFull {
            guard reclaimWALSpace() else { throw error }
            try write(writes)
        }
    }

    private func write(_ writes: [StagedWrite]) throws {
        try database.transaction(.immediate) {
            for write in writes { try apply(write) }
        }
    }

    private func apply(_ write: StagedWrite) throws {
        switch write {
        case .badge(let appID, let count):
            try badges.write(appID: appID, count: count)
        case .session(let session):
            try sessions.write(session)
        case .sessionRemoval(let id):
            try sessions.remove(id: id)
        case .handler(let handler):
            try handlers.write(handler)
        case .handlerRemoval(let id):
            try handlers.remove(id: id)
        case .deadlineShift(let microseconds):
            try handlers.shiftDeadlines(by: microseconds)
            try fetches.shift(by: microseconds)
        case .lastHandlerID(let id):
            try handlers.recordLastID(id)
        case .activation(let activation):
            try activations.write(activation)
        case .activationTrim(let appID, let keepNewest):
            try activations.trim(app: appID, keepNewest: keepNewest)
        case .fetchSchedule(let schedule):
            try fetches.write(schedule)
        case .fetchStart(let fetch):
            try fetches.insert(fetch)
        case .fetchEnd(let id, let ended, let result):
            try fetches.end(id: id, at: ended, result: result)
        case .fetchHistoryTrim(let appID, let keepNewest):
            try fetches.trim(app: appID, keepNewest: keepNewest)
        }
    }
}

@available(*, unavailable, message: "a store belongs to one thread")
extension StateStore: Sendable {}
