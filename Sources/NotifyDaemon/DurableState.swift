import DBus
import Logging
import NotifyCore
import NotifyStore

/// The daemon's state in memory and on disk, with group commit.
///
/// Handlers mutate ``current`` and stage the rows to write; replies and
/// signals wait in order until the loop is about to sleep, when one
/// transaction commits the whole batch (one fsync for any number of calls).
/// Only then do replies go out, then signals: a caller never hears of a
/// change that a `kill -9` could still undo. If the commit fails, memory is
/// rolled back by reloading the state from the database (which holds
/// exactly what was committed), every waiting call gets the error, and no
/// signal is sent. (Rolling back by reload costs nothing on the common
/// path; a snapshot per batch cost a copy of every session per commit.)
///
/// A failed commit is logged with what it refused (``BatchSummary``): a
/// worker signal has no caller to tell. After a successful commit, once
/// replies and signals are out, the store checkpoints its WAL if it has
/// grown (which keeps it small on a small disk).
final class DurableState {
    private(set) var current: NotifydState
    private let store: StateStore
    private let logger: Logger
    private var batchOpen = false
    private var replies: [(success: () -> Void, failure: (any Error) -> Void)] = []
    private var signals: [() -> Void] = []
    private var batch = BatchSummary()
    private var checkpointFailing = false

    init(store: StateStore, logger: Logger) throws {
        self.store = store
        self.logger = logger
        current = try StateMapping.load(from: store, logger: logger)
    }

    /// The state directory.
    var directory: String { store.directory }

    /// Whether a batch is waiting for its commit.
    var hasPendingBatch: Bool { batchOpen }

    /// Mutates the state, opening a batch: replies wait for its commit.
    func mutate<T, Failure: Error>(_ body: (inout NotifydState) throws(Failure) -> T) throws(Failure) -> T {
        batchOpen = true
        return try body(&current)
    }

    /// Stages a badge row for the batch's commit.
    func stage(_ change: BadgeChange) {
        batchOpen = true
        batch.badge(change.app.rawValue)
        store.stageBadge(change.app.rawValue, count: change.new)
    }

    /// Stages what recording an event changed.
    func stage(_ recorded: RecordedEvent) {
        batchOpen = true
        batch.report(session: recorded.session.id.rawValue, app: recorded.session.app.rawValue)
        store.stageSession(StateMapping.row(recorded.session))
        if let handler = recorded.handler { store.stageHandler(StateMapping.row(handler)) }
        for session in recorded.forgotten { store.stageSessionRemoval(session.rawValue) }
    }

    /// Stages an activation for the history (and the trim that bounds it).
    func stage(_ activation: Activation, trimming: Bool) {
        batchOpen = true
        batch.activations += 1
        store.stageActivation(StoredActivation(app: activation.app.rawValue, at: activation.at))
        if trimming {
            store.stageActivationTrim(app: activation.app.rawValue, keepNewest: AppBook.activationsKeptPerApp)
        }
    }

    /// Stages the removal of invoked handlers and their sessions' new state.
    func stage(_ invoked: [InvokedHandler]) {
        guard !invoked.isEmpty else { return }
        batchOpen = true
        batch.invoked += invoked.count
        var sessions: Set<SessionID> = []
        for item in invoked {
            store.stageHandlerRemoval(item.handler.id)
            sessions.insert(item.handler.session)
        }
        for id in sessions {
            if let session = current.sessions.session(id) { store.stageSession(StateMapping.row(session)) }
        }
    }

    /// Stages moving every stored deadline by `microseconds` (the wall
    /// clock was set; memory has moved already).
    func stageDeadlineShift(by microseconds: Microseconds) {
        batchOpen = true
        store.stageDeadlineShift(by: microseconds)
    }

    /// Runs `signal` after the batch is committed (dropped if it fails).
    func afterCommit(_ signal: @escaping () -> Void) {
        if hasPendingBatch { signals.append(signal) } else { signal() }
    }

    /// Answers `call` once everything it may have seen is on disk: at once
    /// when no batch is pending, else after the commit.
    func respond(_ call: DBusMethodCall, _ values: [DBusValue]) -> DBusMethodResult {
        guard hasPendingBatch else { return .reply(values) }
        replies.append(({ call.reply(values) }, { call.fail($0) }))
        return .deferred
    }

    /// Puts memory back to what the database holds.
    private func rollBack() {
        do {
            current = try StateMapping.load(from: store, logger: logger)
        } catch {
            logger.critical("cannot reload the state after a failed commit; memory may be ahead of disk: \(error)")
        }
    }

    /// Commits the pending batch, then sends its replies and signals.
    func commit() {
        guard batchOpen else { return }
        batchOpen = false
        let replies = self.replies
        let signals = self.signals
        let batch = self.batch
        self.replies.removeAll()
        self.signals.removeAll()
        self.batch = BatchSummary()
        do {
            try store.commit()
        } catch {
            logger.error("cannot save state, rolling back \(replies.count) call(s)\(batch.refusal): \(error)")
            rollBack()
            let failure = NotifydError.storage(error)
            for reply in replies { reply.failure(failure) }
            return
        }
        for reply in replies { reply.success() }
        for signal in signals { signal() }
        checkpoint()
    }

    /// Keeps the WAL small; a failure is logged once, until it works again.
    private func checkpoint() {
        do {
            try store.checkpointIfNeeded()
            if checkpointFailing { logger.notice("the write-ahead log is checkpointed again") }
            checkpointFailing = false
        } catch {
            if !checkpointFailing {
                logger.warning("cannot checkpoint the write-ahead log; it grows until this works: \(error)")
            }
            checkpointFailing = true
        }
    }
}

/// What a batch changes, for the log line of a failed commit: a worker
/// signal refused by a full disk has nobody to tell but the log. Names
/// the first ``named`` sessions and apps (each cut at 64 characters) and
/// counts the rest, so the line stays short whatever the batch.
struct BatchSummary {
    /// How many sessions (and apps of badges) the summary names.
    static let named = 5
    private var reports = Names()
    private var badges = Names()
    var invoked = 0
    var activations = 0

    /// An event report (method call or worker signal) of `session` of `app`.
    mutating func report(session: String, app: String) {
        reports.add("session '\(AppID.printable(session))' of \(AppID.printable(app))")
    }

    /// A badge change of `app`.
    mutating func badge(_ app: String) {
        badges.add(AppID.printable(app))
    }

    /// `"; refused 2 event report(s) (session 'a' of org.x, ...), ..."`, or
    /// `""` for an empty batch.
    var refusal: String {
        var parts: [String] = []
        if reports.count > 0 { parts.append("\(reports.count) event report(s) (\(reports))") }
        if badges.count > 0 { parts.append("\(badges.count) badge change(s) (\(badges))") }
        if invoked > 0 { parts.append("\(invoked) invoked handler(s)") }
        if activations > 0 { parts.append("\(activations) activation(s)") }
        return parts.isEmpty ? "" : "; refused " + parts.joined(separator: ", ")
    }

    /// The first ``named`` distinct names, and whether there were others.
    private struct Names: CustomStringConvertible {
        private(set) var count = 0
        private var names: [String] = []
        private var more = false

        mutating func add(_ name: String) {
            count += 1
            guard !names.contains(name) else { return }
            if names.count < BatchSummary.named { names.append(name) } else { more = true }
        }

        var description: String { names.joined(separator: ", ") + (more ? ", …" : "") }
    }
}
