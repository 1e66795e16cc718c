/// The daemon's durable state in `<directory>/state.sqlite3`, written by
/// group commit: writes are staged in memory (a ``StateWrites`` batch), then
/// ``commit(_:)`` puts all of them on disk in one transaction (one fsync).
///
/// The WAL is kept small (see `StateStore+WAL.swift`): the owner calls
/// ``checkpointIfNeeded()`` after a commit, once its outcome is handed on
/// (notifyd's writer thread: the checkpoint delays the next commit, never a
/// reply); a commit refused for a full disk is tried once more after a
/// TRUNCATE checkpoint has given the WAL's space back.
///
/// The store holds an exclusive lock on `<directory>/state.lock` for its
/// lifetime, so a second store (in this or another process) on the same
/// directory is refused with a ``StoreError`` of code `.locked`.
/// Not `Sendable`: use a store from one thread at a time (notifyd reads the
/// state on its bus thread at start-up, then hands the store to its writer).
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
    private let push: PushTable
    private let transfers: TransferTable
    private let lock: StateDirectoryLock
    /// The writes staged for ``commit()``.
    public var staged = StateWrites()

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
        self.push = try PushTable(database: database)
        self.transfers = try TransferTable(database: database)
        self.database = database
        self.lock = lock
        self.directory = directory
    }

    /// The badges as committed to the database (staged writes not included).
    public func loadBadges() throws -> [String: UInt32] {
        try BadgeTable.load(from: database)
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

    // MARK: Commit

    /// Whether anything is waiting for ``commit()``.
    public var hasStagedWrites: Bool { !staged.isEmpty }

    /// How many writes are waiting for ``commit()``: one per row, the last
    /// handler ID counting as one row and an activation trim as one.
    public var stagedWriteCount: Int { staged.count }

    /// Writes everything staged in ``staged`` as one batch
    /// (``commit(_:)``) and forgets it, committed or not.
    public func commit() throws {
        var writes = StateWrites()
        swap(&writes, &staged)
        try commit(writes)
    }

    /// Writes `batch` in one `BEGIN IMMEDIATE` ... `COMMIT` (one fsync).
    /// An empty batch does nothing (no I/O).
    ///
    /// When the disk is full, the WAL's space is given back (a TRUNCATE
    /// checkpoint) and the transaction is tried once more.
    ///
    /// On failure the transaction is rolled back and the ``StoreError`` is
    /// thrown: the database then holds what it held before.
    public func commit(_ batch: StateWrites) throws {
        guard !batch.isEmpty else { return }
        var batch = batch
        let writes = batch.take()
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
            try push.shift(by: microseconds)
            try transfers.shift(by: microseconds)
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
        case .pushRegistration(let registration):
            try push.write(registration)
        case .pushRegistrationRemoval(let token):
            try push.remove(token: token)
        case .pushMessage(let message):
            try push.insert(message)
        case .pushMessageRemoval(let id):
            try push.removeMessage(id: id)
        case .pushServer(let server):
            try push.setServer(server)
        case .pushServerCursor(let cursor):
            try push.setCursor(cursor)
        case .transfer(let transfer):
            try transfers.write(transfer)
        }
    }
}

@available(*, unavailable, message: "a store belongs to one thread")
extension StateStore: Sendable {}
