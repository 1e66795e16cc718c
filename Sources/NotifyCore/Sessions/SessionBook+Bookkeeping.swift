import HeapModule

/// The private bookkeeping of ``SessionBook``: its per-session storage, the
/// finished-session index and the lazy deadline heap.
extension SessionBook {
    mutating func removePendingCount(of app: AppID) {
        pendingTotal -= 1
        let left = (pendingByApp[app] ?? 1) - 1
        pendingByApp[app] = left > 0 ? left : nil
    }

    /// Keeps the first deadline a pending one, and rebuilds the heap when
    /// more than half of it is stale, or when it holds a quarter of the
    /// room it grew to: handlers completed in the order they were stored
    /// leave no stale entries (each is popped as the first), but popping
    /// keeps the heap's buffer, 4 MB after 100,000 handlers.
    mutating func dropStaleDeadlines() {
        if deadlines.count > 2 * pendingTotal + 1024 {
            rebuildDeadlines()
        }
        while let first = deadlines.min, entries[first.session]?.pending[first.id] == nil {
            _ = deadlines.popMin()
        }
        let capacity = deadlines.unordered.capacity
        if capacity >= sparseShrinkFloor, deadlines.count * 4 < capacity {
            rebuildDeadlines()
        }
    }

    /// The deadline heap anew, from the pending handlers, in a buffer of the size it needs.
    mutating func rebuildDeadlines() {
        var pending: [DeadlineEntry] = []
        pending.reserveCapacity(pendingTotal)
        for entry in entries.values { pending += entry.pending.values.map(DeadlineEntry.init) }
        deadlines = Heap(pending)
    }

    /// Brings the finished-session index up to date after `session` changed.
    mutating func updateFinished(_ session: SessionID) {
        guard let entry = entries[session] else { return }
        let isFinished = entry.pending.isEmpty && !entry.record.inProgress
        guard isFinished != (entry.finishedMark != nil) else { return }
        if isFinished {
            lastFinishedMark += 1
            entries[session]!.finishedMark = lastFinishedMark
            finishedByAge.insert(
                FinishedEntry(lastEvent: entry.record.lastEvent, session: session, mark: lastFinishedMark))
            finishedCount += 1
        } else {
            entries[session]!.finishedMark = nil
            finishedCount -= 1
        }
    }

    /// Gives back the room of the per-app tables once they have emptied
    /// (``Swift/Dictionary/shrinkIfSparse()``); the sessions' table does so
    /// shard by shard as sessions are forgotten
    /// (``ShardedDictionary/removeValue(forKey:)``): 100,000 sessions are
    /// about 20 MB of buckets, each holding a session inline.
    mutating func compactIfSparse() {
        pendingByApp.shrinkIfSparse()
        inProgressByApp.shrinkIfSparse()
    }

    /// Forgets the finished sessions with the oldest last event beyond
    /// ``finishedSessionsKept``; returns them, oldest first. Runs after an
    /// event, a completion and an expiry; the sessions `sparing` names (the
    /// ones that just finished) are kept this time, so that a session
    /// completed a moment ago still answers `WaitForSession` and shows in
    /// listings even when its last event is the oldest.
    mutating func forgetOldFinishedSessions(sparing: Set<SessionID> = []) -> [SessionID] {
        var forgotten: [SessionID] = []
        var spared: [FinishedEntry] = []
        while finishedCount > Self.finishedSessionsKept, let oldest = finishedByAge.popMin() {
            guard entries[oldest.session]?.finishedMark == oldest.mark else { continue }
            if sparing.contains(oldest.session) {
                spared.append(oldest)
                continue
            }
            entries.removeValue(forKey: oldest.session)
            finishedCount -= 1
            forgotten.append(oldest.session)
        }
        for entry in spared { finishedByAge.insert(entry) }
        compactIfSparse()
        if finishedByAge.count > 2 * finishedCount + 1024 { rebuildFinishedByAge() }
        return forgotten
    }

    /// The finished sessions' heap anew, from the sessions.
    mutating func rebuildFinishedByAge() {
        finishedByAge = Heap(
            entries.compactMap { id, entry in
                entry.finishedMark.map { FinishedEntry(lastEvent: entry.record.lastEvent, session: id, mark: $0) }
            })
    }
}

/// A session with its pending handlers.
struct SessionEntry: Sendable, Equatable {
    var record: SessionRecord
    /// Pending handlers by id; ids give the stored order.
    var pending: [UInt64: CompletionHandler] = [:]
    /// Set while the session is finished; tells a current entry of
    /// `finishedByAge` from a stale one.
    var finishedMark: UInt64?

    static func == (lhs: SessionEntry, rhs: SessionEntry) -> Bool {
        lhs.record == rhs.record && lhs.pending == rhs.pending
    }
}

/// A handler's place in the deadline heap, ordered by (deadline, id).
struct DeadlineEntry: Comparable, Sendable {
    let deadline: Microseconds
    let id: UInt64
    let session: SessionID

    init(_ handler: CompletionHandler) {
        deadline = handler.deadline
        id = handler.id
        session = handler.session
    }

    static func < (lhs: DeadlineEntry, rhs: DeadlineEntry) -> Bool {
        (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
    }
}

/// A finished session's place in the age heap, oldest last event first.
struct FinishedEntry: Comparable, Sendable {
    let lastEvent: Microseconds
    let session: SessionID
    let mark: UInt64

    static func < (lhs: FinishedEntry, rhs: FinishedEntry) -> Bool {
        (lhs.lastEvent, lhs.session, lhs.mark) < (rhs.lastEvent, rhs.session, rhs.mark)
    }
}

extension SessionBook {
    /// The book for reading only: the same sessions and handlers without
    /// the two heaps that only decisions use (deadlines, finished sessions
    /// by age). A copy kept beside the book being decided on then costs no
    /// copy of either heap when the next decision changes it;
    /// ``rebuildIndexes()`` makes it a book to decide on again.
    public var forReading: SessionBook {
        var reading = self
        reading.deadlines = Heap()
        reading.finishedByAge = Heap()
        return reading
    }

    /// Builds the heaps ``forReading`` left out, from the sessions.
    public mutating func rebuildIndexes() {
        rebuildDeadlines()
        rebuildFinishedByAge()
    }
}
