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
/// rolled back to the snapshot taken before the batch, every waiting call
/// gets the error, and no signal is sent.
final class DurableState {
    private(set) var current: NotifydState
    private let store: StateStore
    private let logger: Logger
    private var snapshot: NotifydState?
    private var replies: [(success: () -> Void, failure: (any Error) -> Void)] = []
    private var signals: [() -> Void] = []

    init(store: StateStore, logger: Logger) throws {
        self.store = store
        self.logger = logger
        var badges: [AppID: UInt32] = [:]
        for (name, count) in try store.loadBadges() {
            guard let app = try? AppID(name) else {
                logger.warning("ignoring a stored badge of an invalid app ID '\(name)'")
                continue
            }
            badges[app] = min(count, BadgeBook.maximum)
        }
        current = NotifydState(badges: BadgeBook(badges))
    }

    /// The state directory.
    var directory: String { store.directory }

    /// Whether a batch is waiting for its commit.
    var hasPendingBatch: Bool { snapshot != nil }

    /// Mutates the state; the first mutation of a batch takes the snapshot
    /// a failed commit rolls back to.
    func mutate<T, Failure: Error>(_ body: (inout NotifydState) throws(Failure) -> T) throws(Failure) -> T {
        if snapshot == nil { snapshot = current }
        return try body(&current)
    }

    /// Stages a badge row for the batch's commit.
    func stage(_ change: BadgeChange) {
        if snapshot == nil { snapshot = current }
        store.stageBadge(change.app.rawValue, count: change.new)
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

    /// Commits the pending batch, then sends its replies and signals.
    func commit() {
        guard let snapshot else { return }
        self.snapshot = nil
        let replies = self.replies
        let signals = self.signals
        self.replies.removeAll()
        self.signals.removeAll()
        do {
            try store.commit()
        } catch {
            logger.error("cannot save state, rolling back \(replies.count) call(s): \(error)")
            current = snapshot
            let failure = NotifydError.storage(error)
            for reply in replies { reply.failure(failure) }
            return
        }
        for reply in replies { reply.success() }
        for signal in signals { signal() }
    }
}
