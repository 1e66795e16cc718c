/// When to show a session's new progress value.
public enum ProgressUpdateTiming: Sendable, Hashable {
    /// Show it now.
    case now
    /// Keep it as the pending value and show it at this time; the caller
    /// schedules one timer and calls ``ProgressThrottle/flushed(session:at:)``
    /// when it has shown the value.
    case later(at: Microseconds)
    /// A timer is already scheduled; just replace the pending value.
    case alreadyScheduled
}

/// Limits the updates of each session's progress notification to two a
/// second (one per ``interval``), so that the latest value is always shown
/// in the end and the notification server is not flooded.
///
/// State is kept for sessions shown within the last ``interval`` or with an
/// update pending; ``end(session:)`` forgets a session at once.
public struct ProgressThrottle: Sendable, Hashable {
    /// The least time between two updates of one session's notification.
    public static let interval: Microseconds = 500_000

    private var sessions: [SessionID: Shown] = [:]
    private var sessionsBeforePruning = 64

    /// A throttle that has shown nothing yet.
    public init() {}

    /// Offers a new progress value of `session` at `now`.
    public mutating func offer(session: SessionID, at now: Microseconds) -> ProgressUpdateTiming {
        if sessions.count >= sessionsBeforePruning {
            prune(at: now)
            sessionsBeforePruning = max(64, sessions.count * 2)
        }
        guard var shown = sessions[session] else {
            sessions[session] = Shown(at: now)
            return .now
        }
        if shown.scheduled != nil { return .alreadyScheduled }
        let elapsed = now - shown.at
        // A clock that went back counts as enough time gone by.
        if elapsed >= Self.interval || elapsed < 0 {
            sessions[session] = Shown(at: now)
            return .now
        }
        let at = shown.at + Self.interval
        shown.scheduled = at
        sessions[session] = shown
        return .later(at: at)
    }

    /// The caller showed the pending value of `session` at `now`.
    public mutating func flushed(session: SessionID, at now: Microseconds) {
        sessions[session] = Shown(at: now)
    }

    /// The session's progress ended (`finished` or `failed`): forgets it, so
    /// a pending timer for it should be cancelled or ignored.
    public mutating func end(session: SessionID) {
        sessions[session] = nil
    }

    /// The time the pending value of `session` is due, if one is pending.
    public func scheduled(session: SessionID) -> Microseconds? {
        sessions[session]?.scheduled
    }

    /// Forgets sessions with nothing pending that were last shown at least
    /// ``interval`` ago; their next value is shown at once anyway.
    public mutating func prune(at now: Microseconds) {
        sessions = sessions.filter { $0.value.scheduled != nil || now - $0.value.at < Self.interval }
    }

    /// How many sessions the throttle keeps state for.
    public var trackedSessionCount: Int { sessions.count }
}

private struct Shown: Hashable {
    /// When the notification was last updated.
    var at: Microseconds
    /// When the pending value is due, if one is pending.
    var scheduled: Microseconds?
}
