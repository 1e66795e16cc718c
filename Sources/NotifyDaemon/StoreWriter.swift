import DBus
import Logging
import NotifyStore
import Synchronization

/// The thread that owns the state's database once the state is loaded: it
/// commits each batch the bus thread hands it, keeps the write-ahead log
/// small and gives memory back, so that the bus thread never waits for
/// the disk (docs/ARCHITECTURE.md, "The disk").
///
/// Batches are committed one at a time, in the order submitted. When one
/// is done its outcome joins ``takeFinished()`` and the bus thread's loop
/// is woken (an eventfd): its before-sleep observer collects the outcome,
/// then sends the batch's replies and carries out its effects. After a
/// commit, the checkpoint of the WAL runs here, once the outcome is
/// posted: it delays the next commit, never a reply.
final class StoreWriter: @unchecked Sendable {
    // Unchecked: `store` and `checkpointFailing` are touched only on the
    // writer thread once `init` returns (the thread's loop runs every job
    // in order); `finished` is behind a mutex; the rest is immutable.

    /// How a batch's commit ended: `nil` when it is on disk.
    typealias Outcome = (any Error)?

    private let store: StateStore
    private let thread: EventLoopThread
    private let owner: EventLoop
    private let wakeOwner: @Sendable () -> Void
    private let logger: Logger
    private let finished = Mutex<[Outcome]>([])
    private let stopped = Atomic<Bool>(false)
    private var checkpointFailing = false

    /// The state directory.
    let directory: String

    /// Takes over `store` (loaded already, used by no other thread from
    /// now on) and starts the writer thread; `owner` is the loop woken when
    /// a batch is done.
    init(store: StateStore, owner: EventLoop, logger: Logger) throws(DBusError) {
        self.store = store
        directory = store.directory
        self.logger = logger
        thread = try EventLoopThread(name: "notifyd-writer")
        self.owner = owner
        wakeOwner = { owner.execute {} }
    }

    /// Commits `writes` on the writer thread; its outcome then joins
    /// ``takeFinished()`` and the owner's loop wakes.
    func submit(_ writes: StateWrites) {
        thread.loop.execute { [self] in
            var outcome: Outcome = nil
            do {
                try store.commit(writes)
            } catch {
                outcome = error
            }
            finished.withLock { $0.append(outcome) }
            wakeOwner()
            if outcome == nil { checkpoint() }
        }
    }

    /// Runs `job` on the writer thread, after every batch submitted
    /// before it (so it reads what they stored), then `then` with its
    /// result on the owner's loop: the disk work of the bus thread that is
    /// not a commit (a held message's body, the push password's file).
    /// Call on the owner's loop.
    func perform<Value: Sendable>(
        _ job: @escaping @Sendable (StateStore) throws -> Value,
        then: @escaping (Result<Value, any Error>) -> Void
    ) {
        let answer = LoopBound(then, loop: owner)
        thread.loop.execute { [self] in
            let result = Result { try job(store) }
            answer.execute { $0(result) }
        }
    }

    /// The outcomes of the batches done since the last call, in order.
    func takeFinished() -> [Outcome] {
        finished.withLock { outcomes in
            defer { outcomes.removeAll() }
            return outcomes
        }
    }

    /// Releases SQLite's page cache and trims the heap, on the writer
    /// thread (after a large state was cleared: ``MemoryTrim``).
    func releaseMemory() {
        thread.loop.execute { [self] in
            store.releaseCacheMemory()
            MemoryTrim.trim()
        }
    }

    /// Waits until every batch submitted so far is done (shutdown only:
    /// the one time the bus thread may wait for the disk).
    func waitUntilIdle() {
        guard !stopped.load(ordering: .relaxed) else { return }
        let done = Semaphore()
        thread.loop.execute { done.signal() }
        done.wait()
    }

    /// Ends the writer thread once the jobs posted are done. Idempotent.
    func stop() {
        waitUntilIdle()
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        thread.stop()
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
