import DBus
import Logging
import NotifyCore

/// Answers one `ListSessions` call in pieces, so that a listing of
/// 100,000 sessions never holds the event loop for long.
///
/// The rows are taken from the committed state when the call arrives (one
/// pass, no sorting): nothing a crash could undo. Then, a piece per turn of
/// the loop (about ``turnBudget`` of work each, other callers served in
/// between), runs of ``runLength`` rows are sorted by session ID, and the
/// runs are merged straight into the reply with libdbus's iterators: no
/// ``DBusValue`` tree. The reply goes out once it is complete. After a
/// large reply has left the socket, the heap it used is given back to the
/// kernel (``MemoryTrim``).
final class SessionListing {
    /// Work per turn of the loop before the listing yields.
    static let turnBudget: UInt64 = 5_000_000
    /// Rows sorted as one run; the runs are merged as they are written.
    static let runLength = 4_096
    /// Rows written between two looks at the clock.
    static let rowsPerClockCheck = 64
    /// Listings of at least this many rows (about 1 MB of reply) give the
    /// heap back once their reply is written.
    static let trimRows = 8_192

    private let call: DBusMethodCall
    private let loop: EventLoop?
    private let logger: Logger
    private var rows: [SessionListingRow]
    /// The rows' indices, sorted in runs (moving indices, not rows: a row
    /// holds strings, whose copies cost retains and releases).
    private var order: [Int]
    private let rowCount: Int
    private var sortedUpTo = 0
    private var merger: SessionRunMerger?
    private var writer: DBusArrayWriter?
    private var reply: DBusMessage?
    private var finished = false

    /// Lists `rows` (unsorted) in answer to `call`.
    init(call: DBusMethodCall, rows: [SessionListingRow], logger: Logger) {
        self.call = call
        self.rows = rows
        order = Array(rows.indices)
        rowCount = rows.count
        self.logger = logger
        loop = call.connection.eventLoop
    }

    /// Starts the work.
    func start() {
        step()
    }

    // MARK: Building

    /// One piece of work; schedules the next, or sends when done.
    private func step() {
        guard !finished else { return }
        let deadline = EventLoop.now() &+ Self.turnBudget
        do {
            while reply == nil {
                if EventLoop.now() >= deadline, let loop {
                    loop.scheduleTimer(afterNanoseconds: 0) { [self] in step() }
                    return
                }
                try advance(until: deadline)
            }
        } catch {
            logger.error("cannot build the ListSessions reply: \(error)")
            end { $0.fail(error) }
            return
        }
        sendIfReady()
    }

    /// Sorts the next run, or writes rows until `deadline`, or finishes.
    private func advance(until deadline: UInt64) throws(DBusError) {
        let rows = self.rows
        if sortedUpTo < rows.count {
            let run = sortedUpTo..<min(sortedUpTo + Self.runLength, rows.count)
            order.withUnsafeMutableBufferPointer { buffer in
                var slice = UnsafeMutableBufferPointer(rebasing: buffer[run])
                slice.sort { rows[$0].record.id < rows[$1].record.id }
            }
            sortedUpTo = run.upperBound
            return
        }
        let order = self.order
        let precedes = { (a: Int, b: Int) in rows[order[a]].record.id < rows[order[b]].record.id }
        if writer == nil {
            let message = try call.message.methodReturn()
            writer = try DBusArrayWriter(appendingTo: message, element: SessionService.sessionRowType)
            merger = SessionRunMerger(count: order.count, runLength: Self.runLength, precedes: precedes)
        }
        guard let writer else { return }
        var written = 0
        while let position = merger?.next(precedes) {
            try Self.write(rows[order[position]], to: writer)
            written += 1
            if written % Self.rowsPerClockCheck == 0 && EventLoop.now() >= deadline { return }
        }
        reply = try writer.finish()
        self.writer = nil
        merger = nil
        self.rows = []
        self.order = []
    }

    /// One row: `(ssua{sv})`, the details' keys sorted as ``DBusValue/vardict(_:)`` sorts them.
    static func write(_ row: SessionListingRow, to writer: DBusArrayWriter) throws(DBusError) {
        let session = row.record
        try writer.append { (element) throws(DBusError) in
            try element.structure { (fields) throws(DBusError) in
                try fields.string(session.id.rawValue)
                try fields.string(session.app.rawValue)
                try fields.uint32(UInt32(clamping: row.pending))
                try fields.vardict { (details) throws(DBusError) in
                    if let expected = session.bytesExpected { try details.entry("bytes-expected", expected) }
                    if let written = session.bytesWritten { try details.entry("bytes-written", written) }
                    try details.entry("events", session.events)
                    try details.entry("in-progress", session.inProgress)
                    try details.entry("last-event", session.lastEvent)
                    if let result = session.lastResult { try details.entry("last-result", result.rawValue) }
                    if let progress = session.progress { try details.entry("progress", progress) }
                }
            }
        }
    }

    // MARK: Answering

    private func sendIfReady() {
        guard let reply, !finished else { return }
        end { $0.reply(with: reply) }
        if rowCount >= Self.trimRows, let loop { MemoryTrim.afterWriting(on: call.connection, loop: loop) }
    }

    /// Answers once and lets go of everything built.
    private func end(_ answer: (DBusMethodCall) -> Void) {
        guard !finished else { return }
        finished = true
        answer(call)
        rows = []
        merger = nil
        writer = nil
        reply = nil
    }
}
