import HeapModule

/// Reading a ``SessionBook``: sessions, pending handlers and progress.
extension SessionBook {
    /// The session's record, or `nil` when the book does not know it.
    public func session(_ id: SessionID) -> SessionRecord? {
        entries[id]?.record
    }

    /// Every session the book knows, sorted by session ID.
    public var allSessions: [SessionRecord] {
        entries.values.map(\.record).sorted { $0.id < $1.id }
    }

    /// The session's pending handlers in the order stored.
    public func pendingHandlers(of session: SessionID) -> [CompletionHandler] {
        (entries[session]?.pending.values).map { $0.sorted { $0.id < $1.id } } ?? []
    }

    /// Every pending handler in the order stored, e.g. for a snapshot.
    public var allPendingHandlers: [CompletionHandler] {
        entries.values.flatMap(\.pending.values).sorted { $0.id < $1.id }
    }

    /// Pending handlers of all apps together.
    public var pendingCount: Int { pendingTotal }

    /// How many sessions the book holds: with pending handlers, in
    /// progress, or finished (kept up to ``SessionBook/finishedSessionsKept``
    /// after the next event is recorded).
    public var sessionCount: Int { entries.count }

    /// Pending handlers whose deadline is at or before `now`: those
    /// ``expire(at:limit:)`` is due to invoke (e.g. at start-up, the
    /// handlers that expired while notifyd was down). O(pending handlers).
    public func dueCount(at now: Microseconds) -> Int {
        guard let first = deadlines.min, first.deadline <= now else { return 0 }
        return deadlines.unordered.reduce(0) { count, entry in
            entry.deadline <= now && entries[entry.session]?.pending[entry.id] != nil ? count + 1 : count
        }
    }

    /// Pending handlers of one app.
    public func pendingCount(of app: AppID) -> Int {
        pendingByApp[app] ?? 0
    }

    /// Pending handlers of one session; 0 for an unknown one.
    public func pendingCount(of session: SessionID) -> Int {
        entries[session]?.pending.count ?? 0
    }

    /// The app's progress for its LauncherEntry: over its sessions in
    /// progress, the bytes written over the bytes expected of those whose
    /// size is known (above 0), clamped to 0...1; 0 when no size is known,
    /// and `nil` when no session of the app is in progress.
    public func progress(of app: AppID) -> Double? {
        guard let sessions = inProgressByApp[app], !sessions.isEmpty else { return nil }
        var written = 0.0
        var expected = 0.0
        for id in sessions {
            guard let record = entries[id]?.record, let size = record.bytesExpected, size > 0 else { continue }
            written += Double(record.bytesWritten ?? 0)
            expected += Double(size)
        }
        return expected > 0 ? min(1, written / expected) : 0
    }
}

/// Two books are equal when they know the same sessions with the same
/// pending handlers and would give the next handler the same id; the
/// internal heaps do not count.
extension SessionBook: Hashable {
    public static func == (lhs: SessionBook, rhs: SessionBook) -> Bool {
        lhs.nextHandlerID == rhs.nextHandlerID && lhs.entries == rhs.entries
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nextHandlerID)
        hasher.combine(entries.count)
        hasher.combine(pendingTotal)
    }
}
