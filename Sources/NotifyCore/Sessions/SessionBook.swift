import HeapModule

/// Background sessions and their pending completion handlers: the rules of
/// the Sessions interface, without I/O or a clock.
///
/// Every mutation returns what it did (handlers stored or invoked, sessions
/// forgotten), so callers store and announce exactly that; a mutation that
/// throws changes nothing.
///
/// Cost: recording and invoking a handler is O(log n) (amortised); a
/// pending handler takes about 250 bytes, or 700 with a session of its own. Deadlines live
/// in a heap from which invoked handlers are dropped lazily; the heap is
/// rebuilt when more than half of it is stale.
public struct SessionBook: Sendable {
    /// Pending handlers one app may have.
    public static let maximumPendingPerApp = 10_000
    /// Pending handlers all apps together may have.
    public static let maximumPending = 100_000
    /// A handler's deadline when the event has no `timeout`, in seconds.
    public static let defaultTimeout: UInt32 = 30
    /// Handlers ``expire(at:limit:)`` invokes at most in one call (one
    /// commit, one burst of `SessionCompleted` signals).
    public static let maximumExpiredAtOnce = 1_000
    /// Finished sessions (no pending handler, not in progress) kept for
    /// `ListSessions`; recording forgets the oldest beyond this.
    public static let finishedSessionsKept = 1_000

    /// The sessions, in shards: the committed state kept beside this one
    /// shares all but the shards a batch changes (``ShardedDictionary``).
    var entries: ShardedDictionary<SessionID, SessionEntry> = [:]
    var pendingByApp: [AppID: Int] = [:]
    var pendingTotal = 0
    /// Sessions in progress per app, for ``progress(of:)``.
    var inProgressByApp: [AppID: Set<SessionID>] = [:]
    /// Every pending handler's deadline, plus stale ones of invoked handlers;
    /// the first is always pending.
    var deadlines = Heap<DeadlineEntry>()
    /// Finished sessions by age, plus stale ones of sessions used again.
    var finishedByAge = Heap<FinishedEntry>()
    var finishedCount = 0
    var lastFinishedMark: UInt64 = 0
    /// The id the next stored handler gets.
    public private(set) var nextHandlerID: UInt64 = 1

    /// The largest handler id issued so far; 0 when none.
    public var lastHandlerID: UInt64 { nextHandlerID - 1 }

    /// An empty book.
    public init() {}

    /// A book as it was stored. Handlers of sessions without a record get a
    /// record of their own. The next handler id is above every given id and
    /// above `lastHandlerID`, the largest id ever issued (stored apart, so
    /// that ids are not reused when the handlers with the largest ids were
    /// invoked before the last save). Handlers whose deadline has passed stay
    /// pending until ``expire(at:)``.
    public init(restoring sessions: [SessionRecord], handlers: [CompletionHandler], lastHandlerID: UInt64 = 0) {
        for record in sessions { entries[record.id] = SessionEntry(record: record) }
        let given = Set(entries.keys)
        var byID: [UInt64: CompletionHandler] = [:]
        for handler in handlers { byID[handler.id] = handler }
        for handler in byID.values {
            if entries[handler.session] == nil {
                let record = SessionRecord(id: handler.session, app: handler.app, lastEvent: handler.storedAt)
                entries[handler.session] = SessionEntry(record: record)
            } else if !given.contains(handler.session) {
                let lastEvent = entries[handler.session]!.record.lastEvent
                entries[handler.session]!.record.lastEvent = max(lastEvent, handler.storedAt)
            }
            entries[handler.session]!.pending[handler.id] = handler
            pendingByApp[handler.app, default: 0] += 1
        }
        pendingTotal = byID.count
        deadlines = Heap(byID.values.map(DeadlineEntry.init))
        for (id, entry) in entries {
            if entry.record.inProgress { inProgressByApp[entry.record.app, default: []].insert(id) }
            updateFinished(id)
        }
        nextHandlerID = min(max(lastHandlerID, byID.keys.max() ?? 0), .max - 1) + 1
    }

    /// Records an event of `session` reported for `app` at `now`: stores a
    /// handler for `finished`, `failed` and `fetch`, updates the session's
    /// counters and progress, and forgets the oldest finished sessions past
    /// ``finishedSessionsKept``.
    ///
    /// Throws `InvalidArgs` when the session belongs to another app and
    /// `LimitExceeded` when the app or notifyd has too many pending handlers.
    public mutating func record(
        _ event: WorkerEvent, session: SessionID, app: AppID, at now: Microseconds
    ) throws(NotifydError) -> RecordedEvent {
        if let owner = entries[session]?.record.app, owner != app {
            throw NotifydError(
                .invalidArgs,
                "session '\(AppID.printable(session.rawValue))' belongs to app \(owner), not \(app); "
                    + "use a session ID of your own")
        }
        if event.storesHandler {
            let appPending = pendingByApp[app] ?? 0
            guard appPending < Self.maximumPendingPerApp else {
                throw NotifydError(
                    .limitExceeded,
                    "app \(app) has \(appPending) pending completion handlers, the limit; "
                        + "complete or cancel some first")
            }
            guard pendingTotal < Self.maximumPending else {
                throw NotifydError(
                    .limitExceeded,
                    "notifyd has \(pendingTotal) pending completion handlers in all, the limit; "
                        + "complete or cancel some first")
            }
        }

        if entries[session] == nil {
            entries[session] = SessionEntry(record: SessionRecord(id: session, app: app, lastEvent: now))
        }
        let wasInProgress = entries[session]!.record.inProgress
        entries[session]!.record.apply(event, at: now)
        let isInProgress = entries[session]!.record.inProgress
        if isInProgress != wasInProgress {
            if isInProgress {
                inProgressByApp[app, default: []].insert(session)
            } else {
                inProgressByApp[app]?.remove(session)
                if inProgressByApp[app]?.isEmpty == true { inProgressByApp[app] = nil }
            }
        }

        var handler: CompletionHandler?
        if event.storesHandler {
            let seconds = Int64(event.timeout ?? Self.defaultTimeout)
            let (deadline, overflow) = now.addingReportingOverflow(seconds * 1_000_000)
            let stored = CompletionHandler(
                id: nextHandlerID, session: session, app: app, storedAt: now,
                deadline: overflow ? .max : deadline)
            nextHandlerID += 1
            entries[session]!.pending[stored.id] = stored
            pendingByApp[app, default: 0] += 1
            pendingTotal += 1
            deadlines.insert(DeadlineEntry(stored))
            handler = stored
        }
        updateFinished(session)
        let forgotten = forgetOldFinishedSessions()
        return RecordedEvent(handler: handler, session: entries[session]!.record, forgotten: forgotten)
    }

    /// Invokes every pending handler of `session`, in the order stored, with
    /// `result` (`completed` or `cancelled`); none when nothing is pending.
    /// Throws `UnknownSession` for a session the book does not know.
    public mutating func complete(
        _ session: SessionID, result: HandlerResult, at now: Microseconds
    ) throws(NotifydError) -> [InvokedHandler] {
        guard let pending = entries[session]?.pending else {
            throw NotifydError(
                .unknownSession,
                "notifyd knows no session '\(AppID.printable(session.rawValue))': no worker reported an event "
                    + "for it, or it finished long ago and was forgotten")
        }
        guard !pending.isEmpty else { return [] }
        let handlers = pending.values.sorted { $0.id < $1.id }
        entries[session]!.pending = [:]
        entries[session]!.record.lastResult = result
        for handler in handlers { removePendingCount(of: handler.app) }
        updateFinished(session)
        dropStaleDeadlines()
        return handlers.map { InvokedHandler(handler: $0, result: result) }
    }

    /// Invokes `expired` the pending handlers whose deadline is at or
    /// before `now`, in the order of (deadline, id): at most `limit` of
    /// them, so that a backlog (100,000 handlers that expired while notifyd
    /// was down) is worked off over several turns of the event loop, with
    /// calls answered in between. While some are left, ``nextDeadline`` is
    /// still at or before `now`: the caller's deadline timer comes straight
    /// back for the next ones.
    public mutating func expire(
        at now: Microseconds, limit: Int = SessionBook.maximumExpiredAtOnce
    ) -> [InvokedHandler] {
        var invoked: [InvokedHandler] = []
        while invoked.count < limit, let next = deadlines.min, next.deadline <= now {
            _ = deadlines.popMin()
            guard let handler = entries[next.session]?.pending.removeValue(forKey: next.id) else { continue }
            entries[next.session]!.record.lastResult = .expired
            removePendingCount(of: handler.app)
            updateFinished(next.session)
            invoked.append(InvokedHandler(handler: handler, result: .expired))
        }
        dropStaleDeadlines()
        return invoked
    }

    /// The earliest deadline of a pending handler: when to call
    /// ``expire(at:)`` next.
    public var nextDeadline: Microseconds? { deadlines.min?.deadline }

    /// How many deadlines the book holds room for: what a cleared book
    /// gives back is tested by it (about 32 bytes each).
    public var deadlineRoom: Int { deadlines.unordered.capacity }
}
