/// The background transfers, without I/O or a clock: which may start (at
/// most ``maximumRunning``, in the order given), what holds the others,
/// how long a failed attempt waits, when one fails for good. The engine
/// that moves the bytes reports each attempt's answer, progress and end;
/// the book turns them into states and reasons.
///
/// Every attempt started ends with exactly one report of its end; a
/// transfer stopped (suspended, cancelled, held) is not started again
/// before that report came (``awaitingEnd``), so that an old attempt's end
/// is never taken for a new one's.
public struct TransferBook: Sendable, Hashable {
    public static let maximumRunning = 4
    /// Transfers not yet ended, per app and over all apps.
    public static let maximumPerApp = 1_000
    public static let maximum = 10_000
    /// Ended transfers listed (and kept in the database).
    public static let endedKept = 100
    public static let firstRetryWait: Microseconds = 1_000_000
    public static let longestRetryWait: Microseconds = 600_000_000
    /// A failing transfer with no byte moved for this long fails for good.
    public static let givingUpAfter: Microseconds = 86_400_000_000

    /// Transfers not yet ended, by ID.
    public internal(set) var live: [UInt64: TransferRecord] = [:]
    /// The last ended, oldest first (at most ``endedKept``).
    public internal(set) var ended: [TransferRecord] = []
    public internal(set) var lastID: UInt64 = 0
    /// Transfers whose attempt was stopped, until the engine reports its end (not stored).
    public internal(set) var awaitingEnd: Set<UInt64> = []
    private var liveCountByApp: [AppID: Int] = [:]

    public init() {}

    /// How an attempt ended, as the engine reports it.
    public enum AttemptEnd: Sendable, Hashable {
        /// In place at `path` (downloads: synced, verified).
        case completed(path: String, bytes: UInt64)
        /// Worth another attempt; `retryAfter` from the server (µs).
        case retry(reason: String, retryAfter: Microseconds?)
        case failed(reason: String)
        /// Stopped on the book's request.
        case stopped
    }

    /// Every transfer, not ended first by ID, then the ended ones, oldest first.
    public var all: [TransferRecord] { live.values.sorted { $0.id < $1.id } + ended }

    public var runningCount: Int { live.values.reduce(0) { $0 + ($1.state == .running ? 1 : 0) } }

    /// A transfer not yet ended, or `UnknownTransfer`.
    public func liveTransfer(_ id: UInt64) throws(NotifydError) -> TransferRecord {
        guard let record = live[id] else {
            throw NotifydError(.unknownTransfer, "transfer \(id) has ended (completed, failed or cancelled) or never existed")
        }
        return record
    }

    /// A transfer, ended or not (the last ``endedKept`` ended), or `UnknownTransfer`.
    public func transfer(_ id: UInt64) throws(NotifydError) -> TransferRecord {
        if let record = live[id] ?? ended.last(where: { $0.id == id }) { return record }
        throw NotifydError(.unknownTransfer, "no transfer \(id): it never existed, or ended long ago")
    }

    /// Adds a transfer, queued; `LimitExceeded` past the limits.
    mutating func add(
        _ direction: TransferRecord.Direction, app: AppID, session: SessionID, url: String, path: String,
        options: TransferOptions, at now: Microseconds
    ) throws(NotifydError) -> TransferRecord {
        let ofApp = liveCountByApp[app, default: 0]
        guard ofApp < Self.maximumPerApp else {
            throw NotifydError(
                .limitExceeded, "\(app) has \(ofApp) transfers not yet ended, the most an app may; wait or cancel one")
        }
        guard live.count < Self.maximum else {
            throw NotifydError(.limitExceeded, "notifyd holds at most \(Self.maximum) transfers not yet ended")
        }
        lastID += 1
        let record = TransferRecord(
            id: lastID, app: app, session: session, direction: direction, url: url, path: path, options: options,
            created: now)
        insertLive(record)
        return record
    }

    /// Holds a transfer; nil when it was suspended already (a no-op).
    mutating func suspend(_ id: UInt64) throws(NotifydError) -> (record: TransferRecord, wasRunning: Bool)? {
        var record = try liveTransfer(id)
        guard record.state != .suspended else { return nil }
        let wasRunning = record.state == .running
        if wasRunning { awaitingEnd.insert(id) }
        record.state = .suspended
        record.reason = "suspended; it goes on from \(record.bytesDone) bytes when resumed"
        live[id] = record
        return (record, wasRunning)
    }

    /// Lets a suspended transfer go on; nil when it was not suspended (a no-op).
    mutating func resume(_ id: UInt64) throws(NotifydError) -> TransferRecord? {
        var record = try liveTransfer(id)
        guard record.state == .suspended else { return nil }
        record.state = .queued
        record.reason = "queued"
        record.retryAt = nil
        live[id] = record
        return record
    }

    /// Ends a transfer `cancelled`.
    mutating func cancel(_ id: UInt64, at now: Microseconds) throws(NotifydError) -> (record: TransferRecord, wasRunning: Bool) {
        var record = try liveTransfer(id)
        let wasRunning = record.state == .running
        if wasRunning { awaitingEnd.insert(id) }
        record.state = .cancelled
        record.reason = "cancelled"
        return (end(record, at: now), wasRunning)
    }

    /// The server answered an attempt: the bytes kept and the size.
    mutating func responded(
        _ id: UInt64, resumedFrom: UInt64, total: UInt64?, validator: String?, at now: Microseconds
    ) -> TransferRecord? {
        guard var record = live[id], record.state == .running, !awaitingEnd.contains(id) else { return nil }
        record.bytesDone = resumedFrom
        record.bytesTotal = total ?? 0
        record.validator = validator
        record.reason = resumedFrom > 0 ? "resumed from \(resumedFrom) bytes" : "transferring"
        live[id] = record
        return record
    }

    /// Bytes moved; nil when nothing shown changed.
    mutating func progressed(_ id: UInt64, done: UInt64, total: UInt64?, at now: Microseconds) -> TransferRecord? {
        guard var record = live[id], record.state == .running, !awaitingEnd.contains(id) else { return nil }
        if done > record.bytesDone {
            record.lastProgress = now
            record.attemptsSinceProgress = 0
        }
        guard done != record.bytesDone || (total ?? 0) != record.bytesTotal else { return nil }
        record.bytesDone = done
        if let total { record.bytesTotal = total }
        if record.reason != "transferring" && !record.reason.hasPrefix("resumed") { record.reason = "transferring" }
        live[id] = record
        return record
    }

    /// An attempt ended; the transfer after it (nil when the report changes nothing).
    mutating func attemptEnded(_ id: UInt64, _ attemptEnd: AttemptEnd, at now: Microseconds) -> TransferRecord? {
        let wasAwaited = awaitingEnd.remove(id) != nil
        guard var record = live[id] else { return nil }
        switch attemptEnd {
        case .stopped:
            return nil
        case .completed(let path, let bytes):
            // A completion that crossed a stop still put the file in place.
            guard record.state == .running || wasAwaited else { return nil }
            record.state = .completed
            record.finalPath = path
            record.bytesDone = bytes
            record.bytesTotal = max(record.bytesTotal, bytes)
            record.reason = record.direction == .download ? "downloaded to \(path)" : "uploaded \(bytes) bytes"
            return end(record, at: now)
        case .failed(let reason):
            guard record.state == .running, !wasAwaited else { return nil }
            record.state = .failed
            record.reason = reason
            return end(record, at: now)
        case .retry(let reason, let retryAfter):
            guard record.state == .running, !wasAwaited else { return nil }
            if now - record.lastProgress >= Self.givingUpAfter {
                record.state = .failed
                record.reason = "no progress for 24 hours; the last attempt failed: \(reason)"
                return end(record, at: now)
            }
            let wait = retryAfter.map { min(max($0, Self.firstRetryWait), Self.givingUpAfter) }
                ?? Self.retryWait(afterFailures: record.failuresInARow(at: now))
            record.retryAt = now + wait
            record.state = .waiting
            record.reason = "retrying in \(Self.describe(wait)) after: \(reason)"
            live[id] = record
            return record
        }
    }

    /// The wait before the next attempt after `failures` failed in a row: 1 s doubling, at most 10 minutes.
    public static func retryWait(afterFailures failures: UInt32) -> Microseconds {
        let doublings = min(max(Int(failures) - 1, 0), 20)
        return min(firstRetryWait << doublings, longestRetryWait)
    }

    /// "40 s", "2 min", "1 h".
    static func describe(_ wait: Microseconds) -> String {
        let seconds = (wait + 999_999) / 1_000_000
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7_200 { return "\((seconds + 59) / 60) min" }
        return "\((seconds + 3_599) / 3_600) h"
    }

    mutating func end(_ record: TransferRecord, at now: Microseconds) -> TransferRecord {
        var record = record
        record.ended = now
        record.retryAt = nil
        removeLive(record.id)
        ended.append(record)
        if ended.count > Self.endedKept { ended.removeFirst(ended.count - Self.endedKept) }
        return record
    }

    mutating func insertLive(_ record: TransferRecord) {
        if live.updateValue(record, forKey: record.id) == nil { liveCountByApp[record.app, default: 0] += 1 }
    }

    private mutating func removeLive(_ id: UInt64) {
        guard let removed = live.removeValue(forKey: id) else { return }
        let left = liveCountByApp[removed.app, default: 1] - 1
        liveCountByApp[removed.app] = left > 0 ? left : nil
    }
}

extension TransferRecord {
    /// Failed attempts since the last byte moved, this one included (for the
    /// backoff): the attempts made since ``lastProgress``, at least 1.
    func failuresInARow(at now: Microseconds) -> UInt32 {
        max(attemptsSinceProgress, 1)
    }
}
