import HeapModule

extension SessionBook {
    /// The wall clock was set by `delta` (see ``ClockStepDetector``): every
    /// pending handler's deadline moves with it, so that each still comes
    /// the same elapsed time after its event, neither early (clock set
    /// forward) nor late (set back). Returns how many moved; the caller
    /// stores the same shift. O(n), on the rare step only.
    @discardableResult
    public mutating func shiftDeadlines(by delta: Microseconds) -> Int {
        guard delta != 0, pendingTotal > 0 else { return 0 }
        for (session, entry) in entries where !entry.pending.isEmpty {
            for (id, handler) in entry.pending {
                entries[session]!.pending[id] = CompletionHandler(
                    id: handler.id, session: handler.session, app: handler.app, storedAt: handler.storedAt,
                    deadline: handler.deadline &+ delta)
            }
        }
        deadlines = Heap(entries.values.flatMap { $0.pending.values.map(DeadlineEntry.init) })
        return pendingTotal
    }
}

/// Notices the wall clock being set, against elapsed time.
///
/// The wall clock and elapsed time (`CLOCK_BOOTTIME`, which counts time
/// asleep) advance together, so their difference changes only when the
/// clock is set (by hand, by NTP stepping it, by a wrong RTC corrected) or,
/// slowly, when NTP slews it. A change of at least ``tolerance`` is a step.
public struct ClockStepDetector: Sendable {
    /// Below this the difference is drift, not a step.
    public static let tolerance: Microseconds = 1_000_000

    /// Wall-clock time minus elapsed time, as of the last step found.
    public private(set) var offset: Microseconds

    /// Starts from one reading of both clocks.
    public init(wall: Microseconds, elapsed: Microseconds) {
        offset = wall &- elapsed
    }

    /// The step since the last step found, if this reading shows one (and
    /// then the new difference is the reference); nil for none.
    public mutating func step(wall: Microseconds, elapsed: Microseconds) -> Microseconds? {
        let current = wall &- elapsed
        let delta = current &- offset
        guard delta.magnitude >= Self.tolerance.magnitude else { return nil }
        offset = current
        return delta
    }
}
