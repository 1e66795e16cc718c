import DBus
import Logging
import NotifyCore
import NotifyStore

/// The daemon's state in memory and on disk, and the one committer of
/// every change, with group commit.
///
/// A handler asks the core for a decision in one call, ``apply(_:)``: the
/// core's operation runs on the state, the rows of its outcome are staged
/// in the batch, its effects wait in order, and the handler gets the
/// operation's answer. Nothing else changes the state. When the loop is about
/// to sleep, one transaction commits the whole batch (one fsync for any
/// number of calls); only then do the calls of the batch get their
/// replies, and then the effects are carried out (``EffectRunner``): a
/// caller never hears of a change that a `kill -9` could still undo. If the
/// commit fails, memory is rolled back by reloading the state from the
/// database (which holds exactly what was committed), every waiting call
/// gets the error, and no effect is carried out.
///
/// A failed commit is logged with what it refused (``BatchSummary``): a
/// worker signal has no caller to tell. After a successful commit, once
/// replies and effects are out, the store checkpoints its WAL if it has
/// grown (which keeps it small on a small disk).
final class Committer {
    private(set) var current: NotifydState
    private let store: StateStore
    private let logger: Logger
    private var batchOpen = false
    /// What only memory holds (popups, docks, tasks) as it was when the
    /// batch opened: put back after a failed commit.
    private var memoryAtBatchStart: NotifydState.MemoryOnly?
    private var replies: [(success: () -> Void, failure: (any Error) -> Void)] = []
    private var effects: [NotifydEffect] = []
    private var continuations: [() -> Void] = []
    private var batch = BatchSummary()
    private var checkpointFailing = false
    /// The most items the state held since it was last small.
    private var itemsHighWater = 0
    /// The most items the state held since the heap was last trimmed.
    private var itemsSinceTrim = 0

    /// Loads the state from `store`; docks show at most `dockSlots` apps.
    init(store: StateStore, dockSlots: Int = DockBook.defaultSlotLimit, logger: Logger) throws {
        self.store = store
        self.logger = logger
        current = try StateMapping.load(from: store, logger: logger)
        current.limitDockSlots(to: dockSlots)
        // The rows read are freed; at the documented limits they were
        // hundreds of MB, which the heap would otherwise keep.
        MemoryTrim.trim()
    }

    /// The state directory.
    var directory: String { store.directory }

    /// Whether a batch is waiting for its commit.
    var hasPendingBatch: Bool { batchOpen }

    /// Runs one of the core's operations on the state and takes its
    /// decision: the rows are staged in the batch, the effects queued for
    /// after the commit (replies of the batch wait for it too). Returns the
    /// operation's answer; an operation that throws changes nothing.
    @discardableResult
    func apply<Value, Failure: Error>(
        _ operation: (inout NotifydState) throws(Failure) -> Decision<Value>
    ) throws(Failure) -> Value {
        let before = batchOpen ? nil : current.memoryOnly
        let decision = try operation(&current)
        let outcome = decision.outcome
        if !outcome.isEmpty {
            if !batchOpen { memoryAtBatchStart = before }
            batchOpen = true
            for write in outcome.writes { stage(write) }
            effects += outcome.effects
        }
        return decision.value
    }

    private func stage(_ write: StateWrite) {
        switch write {
        case .badge(let change):
            batch.badge(change.app.rawValue)
            store.stageBadge(change.app.rawValue, count: change.new)
        case .event(let recorded):
            batch.report(session: recorded.session.id.rawValue, app: recorded.session.app.rawValue)
            store.stageSession(StateMapping.row(recorded.session))
            if let handler = recorded.handler { store.stageHandler(StateMapping.row(handler)) }
            for session in recorded.forgotten { store.stageSessionRemoval(session.rawValue) }
        case .activation(let activation, let trimming):
            batch.activations += 1
            store.stageActivation(StoredActivation(app: activation.app.rawValue, at: activation.at))
            if trimming {
                store.stageActivationTrim(app: activation.app.rawValue, keepNewest: AppBook.activationsKeptPerApp)
            }
        case .activationsForgotten(let app):
            store.stageActivationTrim(app: app.rawValue, keepNewest: 0)
        case .invoked(let invoked, let sessions, let forgotten):
            batch.invoked += invoked.count
            for item in invoked { store.stageHandlerRemoval(item.handler.id) }
            for session in sessions { store.stageSession(StateMapping.row(session)) }
            for session in forgotten { store.stageSessionRemoval(session.rawValue) }
        case .deadlineShift(let microseconds):
            store.stageDeadlineShift(by: microseconds)
        case .fetchSchedule(let app, let schedule):
            store.stageFetchSchedule(StateMapping.row(app, schedule))
        case .fetchStarted(let fetch, let schedule):
            store.stageFetchStart(StateMapping.row(fetch))
            store.stageFetchSchedule(StateMapping.row(fetch.app, schedule))
        case .fetchEnded(let ended):
            let record = ended.record
            store.stageFetchEnd(id: record.id, at: record.ended, result: record.result.rawValue)
            store.stageFetchSchedule(StateMapping.row(record.app, ended.schedule))
            if ended.trimmedHistory {
                store.stageFetchHistoryTrim(app: record.app.rawValue, keepNewest: FetchBook.historyKeptPerApp)
            }
        }
    }

    /// Runs `work` once the pending batch is committed (at once when none
    /// is pending; dropped if the commit fails): for work of the daemon's
    /// own that must not see state a `kill -9` could undo (a listing).
    func afterCommit(_ work: @escaping () -> Void) {
        if hasPendingBatch { continuations.append(work) } else { work() }
    }

    /// Answers `call` once everything it may have seen is on disk: at once
    /// when no batch is pending, else after the commit.
    func respond(_ call: DBusMethodCall, _ values: [DBusValue]) -> DBusMethodResult {
        guard hasPendingBatch else { return .reply(values) }
        replies.append(({ call.reply(values) }, { call.fail($0) }))
        return .deferred
    }

    /// Puts memory back to what the database holds, and what only memory
    /// holds to what it was before the batch.
    private func rollBack(memory: NotifydState.MemoryOnly?) {
        do {
            let slots = current.docks.slotLimit
            current = try StateMapping.load(from: store, logger: logger)
            current.limitDockSlots(to: slots)
            if let memory { current.memoryOnly = memory }
        } catch {
            logger.critical("cannot reload the state after a failed commit; memory may be ahead of disk: \(error)")
        }
    }

    /// Commits the pending batch, then sends its replies, runs the work
    /// waiting for it, and hands its effects to `carryOut` (the daemon's
    /// ``EffectRunner``), in order.
    func commit(carryingOut carryOut: (NotifydEffect) -> Void) {
        guard batchOpen else { return }
        batchOpen = false
        let memory = memoryAtBatchStart
        memoryAtBatchStart = nil
        let replies = self.replies
        let effects = self.effects
        let continuations = self.continuations
        let batch = self.batch
        self.replies.removeAll()
        self.effects.removeAll()
        self.continuations.removeAll()
        self.batch = BatchSummary()
        do {
            try store.commit()
        } catch {
            logger.error("cannot save state, rolling back \(replies.count) call(s)\(batch.refusal): \(error)")
            rollBack(memory: memory)
            let failure = NotifydError.storage(error)
            for reply in replies { reply.failure(failure) }
            return
        }
        for reply in replies { reply.success() }
        for work in continuations { work() }
        // The docks' slots are chosen once per batch, after its other effects.
        for effect in effects + current.publishDocks() { carryOut(effect) }
        checkpoint()
        trimAfterLargeFrees()
    }

    /// Gives memory back once a large state is being cleared: when the
    /// state held at least ``MemoryTrim/freedItems`` sessions, pending
    /// handlers, badged apps and app states, every ``MemoryTrim/trimEvery`` of them
    /// freed since the last trim releases SQLite's page cache and trims the
    /// heap (glibc keeps what was freed in the middle of the heap;
    /// docs/PERFORMANCE.md, "Memory at the limits"). So clearing 100,000
    /// handlers trims about 100 times, the last within 1,000 items of the
    /// end. After a commit only: never while idle; never for the small ups
    /// and downs of a state that stayed small.
    private func trimAfterLargeFrees() {
        let items = current.sessions.sessionCount + current.sessions.pendingCount + current.badges.nonZero.count
            + current.apps.reportedCount
        itemsHighWater = max(itemsHighWater, items)
        itemsSinceTrim = max(itemsSinceTrim, items)
        if itemsHighWater >= MemoryTrim.freedItems, itemsSinceTrim - items >= MemoryTrim.trimEvery {
            itemsSinceTrim = items
            store.releaseCacheMemory()
            MemoryTrim.trim()
        }
        // Back to a small state: the old peak no longer calls for trims.
        if items < MemoryTrim.trimEvery { itemsHighWater = items }
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
/// counts the rest, so the line stays short whatever the batch. It keeps
/// the raw IDs and writes the line only when a commit fails: nothing is
/// formatted for a batch that is stored.
struct BatchSummary {
    /// How many sessions (and apps of badges) the summary names.
    static let named = 5
    private var reports = Names()
    private var badges = Names()
    var invoked = 0
    var activations = 0

    /// An event report (method call or worker signal) of `session` of `app`.
    mutating func report(session: String, app: String) {
        reports.add(session, app)
    }

    /// A badge change of `app`.
    mutating func badge(_ app: String) {
        badges.add(app, nil)
    }

    /// `"; refused 2 event report(s) (session 'a' of org.x, ...), ..."`, or
    /// `""` for an empty batch.
    var refusal: String {
        var parts: [String] = []
        if reports.count > 0 {
            let names = reports.described { "session '\(AppID.printable($0))' of \(AppID.printable($1 ?? ""))" }
            parts.append("\(reports.count) event report(s) (\(names))")
        }
        if badges.count > 0 {
            parts.append("\(badges.count) badge change(s) (\(badges.described { first, _ in AppID.printable(first) }))")
        }
        if invoked > 0 { parts.append("\(invoked) invoked handler(s)") }
        if activations > 0 { parts.append("\(activations) activation(s)") }
        return parts.isEmpty ? "" : "; refused " + parts.joined(separator: ", ")
    }

    /// The first ``named`` distinct names (a name and, for a session, its
    /// app), as given, and whether there were others.
    private struct Names {
        private(set) var count = 0
        private var names: [(String, String?)] = []
        private var more = false

        mutating func add(_ first: String, _ second: String?) {
            count += 1
            guard !more || names.count < BatchSummary.named else { return }
            guard !names.contains(where: { $0.0 == first && $0.1 == second }) else { return }
            if names.count < BatchSummary.named { names.append((first, second)) } else { more = true }
        }

        func described(_ describe: (String, String?) -> String) -> String {
            names.map(describe).joined(separator: ", ") + (more ? ", …" : "")
        }
    }
}
