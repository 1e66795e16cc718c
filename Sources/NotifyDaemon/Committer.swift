import DBus
import Logging
import NotifyCore
import NotifyStore

/// The daemon's state, decided on the bus thread and committed on the
/// writer thread (``StoreWriter``), in a pipeline of two batches: one
/// syncing, one filling.
///
/// A handler asks the core for a decision in one call, ``apply(_:)``: the
/// core's operation runs on ``current``, the rows of its outcome are staged
/// in the filling batch, its effects wait in order, and the handler gets
/// the operation's answer. Nothing else changes the state. When the loop
/// is about to sleep and no batch is syncing, the filling batch is sealed
/// and handed to the writer thread: one transaction for all of it (one
/// fsync for any number of calls), while the bus thread goes on reading,
/// deciding and staging the next batch. When the writer is done, the
/// loop wakes; only then do the batch's calls get their replies, and then
/// its effects are carried out (``EffectRunner``): a caller never hears of
/// a change that a `kill -9` could still undo.
///
/// Reads are answered at once from ``committed``, the state as the last
/// successful commit left it: never from state a crash could undo, and a
/// caller reads its own write (the write's reply came after the commit
/// that the read then sees). Replies that follow a decision
/// (``respond(_:_:)``) wait for every batch they may have seen.
///
/// If a commit fails, memory goes back to ``committed`` (what only memory
/// holds to what it was when the batch opened), and the calls of the
/// failed batch get the error, and so do those of the batch decided on top
/// of it: nothing reaches the disk that was decided on a state that never
/// did. No effect of either is carried out. The failure is logged with
/// what it refused (``BatchSummary``): a worker signal has no caller to
/// tell.
///
/// One syncing and one filling are enough: the filling batch takes every
/// call that arrives while the other syncs, so a slower disk makes larger
/// batches, not more of them; a third would only put more replies behind
/// a disk that is already busy, and more state to roll back on failure.
final class Committer {
    /// The state decisions are taken on: the committed state, plus the
    /// batch syncing and the batch filling.
    private(set) var current: NotifydState
    /// The state as the last successful commit left it: what a `kill -9`
    /// keeps. Reads are answered from it. Kept ``NotifydState/forReading``
    /// (without the heaps only decisions use), so that the next decision
    /// copies neither heap.
    private(set) var committed: NotifydState
    private let writer: StoreWriter
    private let logger: Logger
    /// The batch taking decisions, not handed to the writer yet.
    private var filling: PendingBatch?
    /// The batch the writer is committing.
    private var syncing: PendingBatch?
    /// The next seal commits the filling batch even if nothing urgent is
    /// in it (rows applied when convenient have waited long enough).
    private var sealsAnyway = false
    /// The most items the state held since it was last small.
    private var itemsHighWater = 0
    /// The most items the state held since the heap was last trimmed.
    private var itemsSinceTrim = 0

    /// Loads the state from `store` (on the calling thread, before the
    /// writer commits anything), which `writer` owns from then on; docks
    /// show at most `dockSlots` apps.
    init(store: StateStore, writer: StoreWriter, dockSlots: Int = DockBook.defaultSlotLimit, logger: Logger) throws {
        self.writer = writer
        self.logger = logger
        var state = try StateMapping.load(from: store, logger: logger)
        state.limitDockSlots(to: dockSlots)
        current = state
        committed = state.forReading
        // The rows read are freed; at the documented limits they were
        // hundreds of MB, which the heap would otherwise keep.
        MemoryTrim.trim()
    }

    /// The state directory.
    var directory: String { writer.directory }

    /// Runs one of the core's operations on the state and takes its
    /// decision: the rows are staged in the filling batch, the effects
    /// queued for after its commit. Returns the operation's answer; an
    /// operation that throws changes nothing.
    @discardableResult
    func apply<Value, Failure: Error>(
        _ operation: (inout NotifydState) throws(Failure) -> Decision<Value>
    ) throws(Failure) -> Value {
        try apply(operation, urgent: true)
    }

    /// ``apply(_:)`` for a decision that nobody waits for and whose loss in
    /// a crash only repeats something harmless (a push message's release:
    /// the message is delivered once more, with the same `id`). Its rows
    /// join the next batch that must be committed anyway, or are committed
    /// once ``convenienceDelayNanoseconds`` passed (the daemon's loop calls
    /// ``commitWaitingRows(carryingOut:)``): a push does not wait for the
    /// commit of the one before's release.
    @discardableResult
    func applyWhenConvenient<Value>(_ operation: (inout NotifydState) -> Decision<Value>) -> Value {
        apply(operation, urgent: false)
    }

    /// How long rows applied when convenient wait for another batch.
    static let convenienceDelayNanoseconds: UInt64 = 100_000_000

    /// Whether the filling batch waits, holding only rows applied when
    /// convenient: the daemon then arranges ``commitWaitingRows(carryingOut:)``.
    var holdsWaitingRows: Bool { filling.map { !$0.mustCommit } ?? false }

    private func apply<Value, Failure: Error>(
        _ operation: (inout NotifydState) throws(Failure) -> Decision<Value>, urgent: Bool
    ) throws(Failure) -> Value {
        let before = filling == nil ? current.memoryOnly : nil
        let decision = try operation(&current)
        let outcome = decision.outcome
        if !outcome.isEmpty {
            var batch = filling ?? PendingBatch(memoryAtStart: before ?? current.memoryOnly)
            filling = nil  // the batch's arrays stay unshared while it grows
            batch.add(outcome)
            batch.holdsUrgentRows = batch.holdsUrgentRows || urgent
            filling = batch
        }
        return decision.value
    }

    /// Answers `call`, whose answer was decided on ``current``, once
    /// everything it may have seen is on disk: at once when no batch is
    /// filling or syncing, else with the newer of them (and failed if its
    /// commit fails).
    func respond(_ call: DBusMethodCall, _ values: [DBusValue]) -> DBusMethodResult {
        guard filling != nil || syncing != nil else { return .reply(values) }
        let reply = (success: { call.reply(values) }, failure: { (error: any Error) in call.fail(error) })
        if filling != nil {
            filling?.replies.append(reply)
            filling?.senders.insert(call.sender)
        } else {
            syncing?.replies.append(reply)
            syncing?.senders.insert(call.sender)
        }
        return .deferred
    }

    /// Runs `failure` with the error if the batch holding what was just
    /// decided is not committed (nothing when it is, or when nothing was
    /// staged): for a decision no caller waits for, whose source must still
    /// hear that it was not kept (a push server, owed an answer for a
    /// message).
    func ifCommitFails(_ failure: @escaping (any Error) -> Void) {
        let entry = (success: {}, failure: failure)
        if filling != nil {
            filling?.replies.append(entry)
        } else {
            syncing?.replies.append(entry)
        }
    }

    /// Notes a message of `sender` decided without a reply (a worker
    /// signal): a read it sends next waits for its batch.
    func heard(from sender: String) {
        filling?.senders.insert(sender)
    }

    /// Answers a read with `answer`, which reads ``committed``: at once,
    /// unless the caller has messages of its own in a batch not committed
    /// yet (sent without waiting for their replies). Then, since a
    /// sender's messages are handled in the order sent, `answer` runs once
    /// that batch is done, and sees them (or, if its commit failed, the
    /// state without them). An `answer` that throws fails the call.
    func read(_ call: DBusMethodCall, _ answer: @escaping () throws -> DBusMethodResult) rethrows -> DBusMethodResult {
        let sender = call.sender
        let inFilling = filling?.senders.contains(sender) == true
        guard inFilling || syncing?.senders.contains(sender) == true else { return try answer() }
        let later = {
            do {
                if case .reply(let values) = try answer() { call.reply(values) }
            } catch {
                call.fail(error)
            }
        }
        let wait = (success: later, failure: { (_: any Error) in later() })
        if inFilling { filling?.replies.append(wait) } else { syncing?.replies.append(wait) }
        return .deferred
    }

    /// Takes what the writer has done (replies, then effects, handed to
    /// `carryOut`, the daemon's ``EffectRunner``), then seals the filling
    /// batch if none is syncing. Called before the loop sleeps; never waits.
    func commit(carryingOut carryOut: (NotifydEffect) -> Void) {
        repeat {
            for outcome in writer.takeFinished() { finish(outcome, carryingOut: carryOut) }
            seal(carryingOut: carryOut)
            // A batch of memory alone is done at once, and its effects may
            // have opened the next.
        } while syncing == nil && filling?.mustCommit == true
    }

    /// ``commit(carryingOut:)``, sealing the filling batch even if it holds
    /// only rows applied when convenient (at once, or when the batch
    /// syncing is done).
    func commitWaitingRows(carryingOut carryOut: (NotifydEffect) -> Void) {
        sealsAnyway = true
        commit(carryingOut: carryOut)
    }

    /// Commits everything decided, waiting for the disk: at shutdown only.
    func drain(carryingOut carryOut: (NotifydEffect) -> Void) {
        commitWaitingRows(carryingOut: carryOut)
        while syncing != nil {
            writer.waitUntilIdle()
            commitWaitingRows(carryingOut: carryOut)
        }
    }

    /// Ends the writer thread, once everything is drained.
    func stopWriter() {
        writer.stop()
    }

    /// Hands the filling batch to the writer, unless one is syncing.
    private func seal(carryingOut carryOut: (NotifydEffect) -> Void) {
        guard var batch = filling else {
            sealsAnyway = false  // nothing waits any more
            return
        }
        guard syncing == nil, batch.mustCommit || sealsAnyway else { return }
        sealsAnyway = false
        filling = nil
        // The docks' slots are chosen once per batch, after its other effects.
        batch.effects += current.publishDocks()
        batch.sealedState = current.forReading
        if batch.writes.isEmpty {
            succeed(batch, carryingOut: carryOut)
        } else {
            writer.submit(batch.takeWrites())
            syncing = batch
        }
    }

    private func finish(_ outcome: StoreWriter.Outcome, carryingOut carryOut: (NotifydEffect) -> Void) {
        guard let batch = syncing else {
            logger.critical("the writer reported a commit that was never handed to it")
            return
        }
        syncing = nil
        if let error = outcome {
            fail(batch, error)
        } else {
            succeed(batch, carryingOut: carryOut)
        }
    }

    private func succeed(_ batch: PendingBatch, carryingOut carryOut: (NotifydEffect) -> Void) {
        if let state = batch.sealedState { committed = state }
        for reply in batch.replies { reply.success() }
        for effect in batch.effects { carryOut(effect) }
        trimAfterLargeFrees()
    }

    /// Puts memory back to what is committed (what only memory holds to
    /// what it was before the batch) and fails the batch's calls and those
    /// of the batch decided on top of it.
    private func fail(_ batch: PendingBatch, _ error: any Error) {
        let later = filling
        filling = nil
        let calls = batch.replies.count + (later?.replies.count ?? 0)
        let refused = batch.summary.refusal + (later.map { "; and, decided on top of it" + $0.summary.refusal } ?? "")
        logger.error("cannot save state, rolling back \(calls) call(s)\(refused): \(error)")
        current = committed
        current.rebuildIndexes()
        current.memoryOnly = batch.memoryAtStart
        let failure = NotifydError.storage(error)
        for reply in batch.replies + (later?.replies ?? []) { reply.failure(failure) }
    }

    /// Gives memory back once a large state is being cleared: when the
    /// state held at least ``MemoryTrim/freedItems`` sessions, pending
    /// handlers, badged apps and app states, every ``MemoryTrim/trimEvery`` of them
    /// freed since the last trim releases SQLite's page cache and trims the
    /// heap (glibc keeps what was freed in the middle of the heap;
    /// docs/PERFORMANCE.md, "Memory at the limits"), on the writer thread.
    /// So clearing 100,000 handlers trims about 100 times, the last within
    /// 1,000 items of the end. After a commit only: never while idle; never
    /// for the small ups and downs of a state that stayed small.
    private func trimAfterLargeFrees() {
        let items = current.sessions.sessionCount + current.sessions.pendingCount + current.badges.nonZero.count
            + current.apps.reportedCount
        itemsHighWater = max(itemsHighWater, items)
        itemsSinceTrim = max(itemsSinceTrim, items)
        if itemsHighWater >= MemoryTrim.freedItems, itemsSinceTrim - items >= MemoryTrim.trimEvery {
            itemsSinceTrim = items
            writer.releaseMemory()
        }
        // Back to a small state: the old peak no longer calls for trims.
        if items < MemoryTrim.trimEvery { itemsHighWater = items }
    }
}
