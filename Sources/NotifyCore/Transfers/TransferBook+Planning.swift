/// Which transfers start, which wait and why: planned again after every
/// change that can move it (a transfer added, ended, suspended or resumed,
/// the conditions, a retry's wait over).
extension TransferBook {
    /// What one planning changed.
    public struct Plan: Sendable, Hashable {
        /// Transfers whose state or reason changed (those started included).
        public var changed: [TransferRecord] = []
        /// Attempts to start now.
        public var started: [TransferRecord] = []
        /// Running attempts to stop, keeping what was transferred (a
        /// condition holds them now).
        public var held: [TransferRecord] = []

        public var isEmpty: Bool { changed.isEmpty && started.isEmpty && held.isEmpty }
    }

    /// Plans every transfer not ended under `conditions` at `now`: running
    /// ones that a condition now holds are stopped; then, in the order
    /// given, the free ones start while fewer than ``maximumRunning`` run.
    /// With `networkReturned`, retries waiting out a failure start at once.
    mutating func plan(conditions: TransferConditions, networkReturned: Bool = false, at now: Microseconds) -> Plan {
        var plan = Plan()
        var running = 0
        for id in live.keys.sorted() {
            guard var record = live[id] else { continue }
            let before = record
            switch record.state {
            case .suspended, .completed, .failed, .cancelled:
                continue
            case .running:
                if let hold = conditions.hold(for: record.options) {
                    record.state = .waiting
                    record.reason = "waiting for \(hold)"
                    awaitingEnd.insert(id)
                    plan.held.append(record)
                } else {
                    running += 1
                }
            case .queued, .waiting:
                if networkReturned, record.retryAt != nil { record.retryAt = nil }
                if let hold = conditions.hold(for: record.options) {
                    record.state = .waiting
                    // A retry's reason says more; it is kept while the wait runs.
                    if record.retryAt.map({ $0 <= now }) ?? true { record.reason = "waiting for \(hold)" }
                } else if let notBefore = record.options.notBefore, notBefore > now {
                    record.state = .waiting
                    record.reason = "waiting for its earliest start, in \(Self.describe(notBefore - now))"
                } else if let retryAt = record.retryAt, retryAt > now {
                    record.state = .waiting
                } else if running >= Self.maximumRunning || awaitingEnd.contains(id) {
                    record.state = .queued
                    record.reason = awaitingEnd.contains(id)
                        ? "queued: its last attempt is ending" : "queued behind the \(Self.maximumRunning) transfers running"
                } else {
                    record.state = .running
                    record.retryAt = nil
                    record.attempts += 1
                    record.attemptsSinceProgress += 1
                    record.reason = record.bytesDone > 0 ? "resuming from \(record.bytesDone) bytes" : "connecting"
                    running += 1
                    plan.started.append(record)
                }
            }
            if record != before {
                live[id] = record
                plan.changed.append(record)
            }
        }
        return plan
    }

    /// When planning must run again by itself: the earliest retry's end or
    /// start time of a waiting transfer; nil when none waits for a time.
    public var nextWake: Microseconds? {
        var earliest: Microseconds?
        for record in live.values where record.state == .waiting || record.state == .queued {
            for time in [record.retryAt, record.options.notBefore] {
                if let time, time < earliest ?? .max { earliest = time }
            }
        }
        return earliest
    }

    /// Every stored retry time moved by `step` (the wall clock was set):
    /// a wait is elapsed time. A start time (`not-before`) is a time of
    /// day and stays.
    mutating func shift(by step: Microseconds) -> [TransferRecord] {
        var shifted: [TransferRecord] = []
        for (id, var record) in live {
            record.lastProgress += step
            if let retryAt = record.retryAt { record.retryAt = retryAt + step }
            live[id] = record
            shifted.append(record)
        }
        return shifted.sorted { $0.id < $1.id }
    }

    /// The book as stored: transfers that were running when notifyd
    /// stopped are queued again (their attempt ended with notifyd), and
    /// the ended ones are listed. IDs go on after the largest stored.
    public static func restoring(_ records: [TransferRecord], lastID storedLastID: UInt64 = 0) -> TransferBook {
        var book = TransferBook()
        for record in records.sorted(by: { $0.id < $1.id }) {
            book.lastID = max(book.lastID, record.id)
            if record.state.hasEnded {
                book.ended.append(record)
            } else {
                var restored = record
                if restored.state == .running {
                    restored.state = .queued
                    restored.reason = "queued: notifyd stopped during the last attempt"
                }
                book.insertLive(restored)
            }
        }
        book.lastID = max(book.lastID, storedLastID)
        if book.ended.count > endedKept { book.ended.removeFirst(book.ended.count - endedKept) }
        return book
    }
}
