/// A write kept in memory until the batch it is in is committed.
///
/// To add a kind of write: add a case, give it a ``Key`` (writes with equal
/// keys replace each other) or `nil` (never replaced), and handle it in
/// `StateStore.apply(_:)`.
enum StagedWrite: Sendable {
    /// Set the badge of an app; 0 removes it.
    case badge(appID: String, count: UInt32)
    /// Insert or replace a session.
    case session(StoredSession)
    /// Remove a session.
    case sessionRemoval(id: String)
    /// Insert a handler (never replaces a row).
    case handler(StoredHandler)
    /// Remove an invoked handler.
    case handlerRemoval(id: UInt64)
    /// Move every stored handler's deadline (never replaced: each applies,
    /// in order, to the handlers stored by then).
    case deadlineShift(microseconds: Int64)
    /// Raise the largest handler ID ever stored.
    case lastHandlerID(UInt64)
    /// Insert an activation (never replaces a row).
    case activation(StoredActivation)
    /// Delete all but the newest activations of an app.
    case activationTrim(appID: String, keepNewest: Int)
    /// Insert or replace an app's fetch schedule.
    case fetchSchedule(StoredFetchSchedule)
    /// Insert a fetch that started (never replaces a row).
    case fetchStart(StoredFetch)
    /// Give a fetch its end and result.
    case fetchEnd(id: UInt64, at: Int64, result: String)
    /// Delete all but the newest ended fetches of an app.
    case fetchHistoryTrim(appID: String, keepNewest: Int)
    /// Insert or update a UnifiedPush registration.
    case pushRegistration(StoredPushRegistration)
    /// Delete a registration and its held messages. No key: applied where
    /// it was staged, after the rows it removes and before a registration
    /// made again with the same token.
    case pushRegistrationRemoval(token: String)
    /// Insert a held push message (never replaces a row).
    case pushMessage(StoredPushMessage)
    /// Delete a held push message (delivered, or dropped).
    case pushMessageRemoval(id: UInt64)
    /// Set the push server (nil: none).
    case pushServer(StoredPushServer?)
    /// Set the push server's cursor (the last ntfy message stored).
    case pushServerCursor(String)
    /// Insert or replace a background transfer.
    case transfer(StoredTransfer)

    /// What a write replaces: a later write with the same key wins.
    enum Key: Hashable {
        case badge(appID: String)
        case session(id: String)
        case handlerRemoval(id: UInt64)
        case lastHandlerID
        case activationTrim(appID: String)
        case fetchSchedule(appID: String)
        case fetchHistoryTrim(appID: String)
        case pushRegistration(token: String)
        case pushServer
        case pushServerCursor
        case transfer(id: UInt64)
    }

    /// `nil` for a handler insert: a second insert of an ID must reach the
    /// database and fail there, not replace the first; `nil` for an
    /// activation insert too: every one is a row of its own. A trim replaces
    /// an earlier trim of the same app, and so runs after every insert staged
    /// before it: with the same `keepNewest`, the rows left are the same.
    /// (`.lastHandlerID` is not kept in the list of writes: ``StagedWrites``
    /// keeps the maximum.)
    var key: Key? {
        switch self {
        case .badge(let appID, _): .badge(appID: appID)
        case .session(let session): .session(id: session.id)
        case .sessionRemoval(let id): .session(id: id)
        case .handler: nil
        case .handlerRemoval(let id): .handlerRemoval(id: id)
        case .deadlineShift: nil
        case .lastHandlerID: .lastHandlerID
        case .activation: nil
        case .activationTrim(let appID, _): .activationTrim(appID: appID)
        case .fetchSchedule(let schedule): .fetchSchedule(appID: schedule.app)
        case .fetchStart, .fetchEnd: nil
        case .fetchHistoryTrim(let appID, _): .fetchHistoryTrim(appID: appID)
        case .pushRegistration(let registration): .pushRegistration(token: registration.token)
        case .pushRegistrationRemoval, .pushMessage, .pushMessageRemoval: nil
        case .pushServer: .pushServer
        case .pushServerCursor: .pushServerCursor
        case .transfer(let transfer): .transfer(id: transfer.id)
        }
    }
}

/// A batch of writes, staged in memory with no I/O and committed in one
/// transaction by ``StateStore/commit(_:)``: one per key (the last one
/// staged), applied in the order in which they were last staged; writes
/// without a key are all kept. A value: the daemon fills one on its bus
/// thread and hands it to the thread that owns the store.
///
/// Handler inserts are never collapsed, not even with a removal of the same
/// ID in the same batch: the insert must reach the database, so that an ID
/// already stored (or staged twice) fails the commit with `.constraint`
/// instead of cancelling out silently. The largest handler ID staged is kept
/// as one ``StagedWrite/lastHandlerID(_:)`` write, applied last.
public struct StateWrites: Sendable {
    /// In the order staged; `nil` where a later write with the same key replaced it.
    private var writes: [StagedWrite?] = []
    /// Where the live write of each key is in `writes`.
    private var positions: [StagedWrite.Key: Int] = [:]
    /// The largest handler ID staged in this batch.
    private var lastHandlerID: UInt64?
    private var liveCount = 0

    /// An empty batch.
    public init() {}

    /// Whether the batch holds no write.
    public var isEmpty: Bool { count == 0 }
    /// How many writes the batch holds: one per row, the last handler ID
    /// counting as one row and an activation trim as one.
    public var count: Int { liveCount + (lastHandlerID == nil ? 0 : 1) }

    mutating func stage(_ write: StagedWrite) {
        switch write {
        case .handler(let handler):
            lastHandlerID = max(lastHandlerID ?? 0, handler.id)
        case .lastHandlerID(let id):
            lastHandlerID = max(lastHandlerID ?? 0, id)
            return
        default:
            break
        }
        if let key = write.key, let replaced = positions.updateValue(writes.count, forKey: key) {
            writes[replaced] = nil
            liveCount -= 1
        }
        writes.append(write)
        liveCount += 1
    }

    /// Returns the writes in order and forgets them.
    mutating func take() -> [StagedWrite] {
        var ordered = writes.compactMap { $0 }
        if let lastHandlerID { ordered.append(.lastHandlerID(lastHandlerID)) }
        self = StateWrites()
        return ordered
    }
}
