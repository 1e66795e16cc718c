import Glibc
import Synchronization
import WorkerThread

/// The background transfers (SPEC "Background transfers"): downloads and
/// uploads over HTTP(S), carried out by libcurl's multi handle on a thread
/// of its own, named `notifyd-transfer`, started at the first ``start(_:)``
/// (a daemon with no transfer pays for no thread).
///
/// The thread sleeps in `curl_multi_poll` on libcurl's sockets and a
/// mailbox's eventfd: it wakes for bytes, a command, libcurl's timer
/// (once a second while a transfer runs, for the 60 s stall limit) or a
/// progress report due; with nothing running, only for a command. The
/// methods below may be called from any thread (each posts a command and
/// returns); events go to `onEvent` on the engine's thread, in order, one
/// ``TransferEngineEvent/ended(id:_:)`` per attempt started. The engine
/// decides nothing of retries: it reports, and the daemon schedules.
///
/// A download is written beside its destination (``partialPath(for:id:)``),
/// resumed with `Range` and `If-Range` when the daemon gives the
/// validator of the bytes kept, synced, checked against its SHA-256 and
/// moved into place without replacing a file unless told to; never through
/// a symbolic link.
public final class TransferEngine: Sendable {
    /// The `User-Agent` of every request: "notifyd/" and notifyd's version
    /// (NotifyCore's `NotifydNames.version`; a test keeps the two equal).
    public static let userAgent = "notifyd/0.2.0"

    private let onEvent: @Sendable (TransferEngineEvent) -> Void
    private let runner = Mutex<ClientRunner<TransferCommand>?>(nil)

    /// Starts nothing: the thread is started at the first ``start(_:)``.
    public init(onEvent: @escaping @Sendable (TransferEngineEvent) -> Void) {
        self.onEvent = onEvent
    }

    deinit { shutdown() }

    /// Runs `attempt` now (the daemon keeps to its limit of 4 at once; the
    /// engine runs all it is given). An attempt with the id of one still
    /// running ends that one first (``TransferAttemptEnd/stopped``, its
    /// partial file kept). When the thread cannot be started, the attempt
    /// ends at once, on the caller's thread, worth a retry.
    public func start(_ attempt: TransferAttempt) {
        let onEvent = onEvent
        let failure: String? = runner.withLock { runner in
            if runner == nil {
                do {
                    runner = try ClientRunner(named: "notifyd-transfer", stop: .shutdown) { mailbox in
                        TransferLoop(emit: onEvent).run(mailbox: mailbox)
                    }
                } catch {
                    return "the transfer thread could not be started: \(error)"
                }
            }
            runner?.post(.start(attempt))
            return nil
        }
        if let failure { onEvent(.ended(id: attempt.id, .retry(reason: failure, retryAfter: nil))) }
    }

    /// Ends the running attempt `id` with ``TransferAttemptEnd/stopped``:
    /// a suspension keeps its partial file, a cancellation
    /// (`discardingPartial`) removes it. Nothing happens for an attempt
    /// that is not running (ended already, or never started): then the
    /// daemon removes a partial file itself with ``removePartial(for:id:)``.
    public func stop(id: UInt64, discardingPartial: Bool) {
        runner.withLock { $0?.post(.stop(id: id, discardingPartial: discardingPartial)) }
    }

    /// A hint that the network changed: an attempt that received nothing
    /// for the last 3 seconds (its connection may be dead unnoticed) ends
    /// at once with ``TransferAttemptEnd/retry(reason:retryAfter:)`` after
    /// zero seconds; the others go on.
    public func networkChanged() {
        runner.withLock { $0?.post(.networkChanged) }
    }

    /// Ends every attempt, keeping their partial files, with no event (the
    /// daemon is going away, and resumes them at its next start), and
    /// joins the thread. Idempotent; a later ``start(_:)`` starts a new
    /// thread. Not from `onEvent` (the thread would wait for itself).
    public func shutdown() {
        let stopped = runner.withLock { runner in
            defer { runner = nil }
            return runner
        }
        stopped?.stop()
    }

    /// The kernel's id of the engine's thread (`/proc/self/task/ID`); 0
    /// when it is not started.
    public var threadID: Int32 { runner.withLock { $0?.threadID ?? 0 } }

    /// Where a download's bytes wait: beside the destination. File path
    /// P → "P.<id>.part"; directory D/ → "D/download.<id>.part".
    public static func partialPath(for path: String, id: UInt64) -> String {
        path.hasSuffix("/") ? "\(path)download.\(id).part" : "\(path).\(id).part"
    }

    /// Removes the partial file of a transfer (for the daemon, when a
    /// transfer is cancelled while not running, or fails). Never follows a
    /// symbolic link: nothing is removed when the directory is reached
    /// through one, and a link at the partial file's name is removed itself.
    public static func removePartial(for path: String, id: UInt64) {
        let place = DownloadPlace(path: path, id: id)
        guard let directory = try? place.openDirectory() else { return }
        _ = unlinkat(directory, place.partialName, 0)
        close(directory)
    }
}
