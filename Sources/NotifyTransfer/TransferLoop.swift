import CCurl
import Glibc
import WorkerThread

/// What other threads ask of the engine's thread.
enum TransferCommand: Sendable {
    case start(TransferAttempt)
    case stop(id: UInt64, discardingPartial: Bool)
    case networkChanged
    /// Ends every transfer, keeping partial files, and the thread.
    case shutdown
}

/// libcurl's multi handle and the attempts running on it, on the engine's
/// thread only: the loop that takes commands, sleeps in `curl_multi_poll`,
/// lets libcurl move the transfers on, and reports how each ended.
///
/// The thread sleeps in `curl_multi_poll` on libcurl's sockets and the
/// mailbox's eventfd (an extra descriptor), for as long as libcurl's own
/// timer allows (once a second while a transfer runs, for
/// `CURLOPT_LOW_SPEED_TIME`) or a held-back progress report is due; with
/// no transfer, until a command comes.
final class TransferLoop {
    /// How long one wait lasts when the mailbox has no eventfd (then
    /// commands are taken at each turn), in milliseconds.
    static let turnMilliseconds: Int32 = 100
    /// No byte for this long before ``TransferEngine/networkChanged()``: the transfer is taken for stalled.
    static let stallNanoseconds: UInt64 = 3_000_000_000

    private let emit: (TransferEngineEvent) -> Void
    private let multi: UnsafeMutableRawPointer?
    private var runs: [TransferRun] = []
    private var stopping = false

    init(emit: @escaping (TransferEngineEvent) -> Void) {
        self.emit = emit
        multi = TransferCall.curlReady ? notifyd_curl_multi_init() : nil
    }

    /// Takes commands and runs the transfers until told to shut down;
    /// then ends every transfer (no event: the daemon is going away) and
    /// frees libcurl's handles.
    func run(mailbox: CommandMailbox<TransferCommand>) {
        while !stopping {
            wait(mailbox: mailbox)
            for command in mailbox.take() { handle(command) }
            if !runs.isEmpty { perform() }
            let now = MonotonicTime.nanoseconds()
            for run in runs { run.flushProgress(now: now) }
        }
        for run in runs { detach(run) }
        runs.removeAll()
        if let multi { notifyd_curl_multi_cleanup(multi) }
    }

    /// Sleeps until there may be something to do: a command, a socket, libcurl's timer, a progress report due.
    private func wait(mailbox: CommandMailbox<TransferCommand>) {
        var timeout = Int32.max
        if let due = runs.compactMap(\.progressDue).min() { timeout = MonotonicTime.millisecondsUntil(due) }
        if mailbox.wakeDescriptor < 0 { timeout = min(timeout, Self.turnMilliseconds) }
        if let multi {
            var extra = curl_waitfd(fd: mailbox.wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
            let code =
                mailbox.wakeDescriptor >= 0
                ? notifyd_curl_multi_poll(multi, &extra, 1, timeout, nil) : notifyd_curl_multi_poll(multi, nil, 0, timeout, nil)
            guard (try? TransferCall.check(code, "waiting")) == nil else { return }
        }
        // No multi handle, or it failed: wait on the mailbox alone, bounded.
        var descriptor = pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, min(timeout, Self.turnMilliseconds))
    }

    private func handle(_ command: TransferCommand) {
        switch command {
        case .start(let attempt): start(attempt)
        case .stop(let id, let discardingPartial):
            guard let run = runs.first(where: { $0.attempt.id == id }) else { return }
            end(run, .stopped, discardingPartial: discardingPartial)
        case .networkChanged:
            // A connection from before the change may be dead without either
            // side knowing: those that stalled end now, worth an immediate retry.
            let now = MonotonicTime.nanoseconds()
            for run in runs where now - min(now, run.lastActivity) >= Self.stallNanoseconds {
                end(run, .retry(reason: "the network changed while the transfer was stalled", retryAfter: .zero))
            }
        case .shutdown: stopping = true
        }
    }

    private func start(_ attempt: TransferAttempt) {
        if let running = runs.first(where: { $0.attempt.id == attempt.id }) { end(running, .stopped) }
        guard let multi else {
            return emit(.ended(id: attempt.id, TransferCall.curlUnavailable))
        }
        let run: TransferRun
        do {
            run = try TransferRun(attempt, emit: emit)
            try add(run, to: multi)
        } catch {
            return emit(.ended(id: attempt.id, error.end))
        }
        runs.append(run)
    }

    private func add(_ run: TransferRun, to multi: UnsafeMutableRawPointer) throws(TransferFault) {
        guard let request = run.request else { throw .retry("the transfer lost its request") }
        do {
            try TransferCall.check(notifyd_curl_multi_add_handle(multi, request.handle), "starting the transfer")
        } catch {
            run.close()
            throw error
        }
    }

    /// Lets libcurl move the transfers on, then ends those that are over.
    private func perform() {
        guard let multi else { return }
        var running: Int32 = 0
        do {
            try TransferCall.check(notifyd_curl_multi_perform(multi, &running), "running the transfers")
        } catch {
            for run in runs { end(run, error.end) }
            return
        }
        var queued: Int32 = 0
        while let message = notifyd_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE,
                let run = runs.first(where: { $0.request?.handle == message.pointee.easy_handle })
            else { continue }
            finish(run, message.pointee.data.result)
        }
    }

    private func finish(_ run: TransferRun, _ code: CURLcode) {
        switch run.finished(code) {
        case .ended(let attemptEnd): end(run, attemptEnd)
        case .restart:
            guard let multi else { return end(run, .retry(reason: "libcurl could not start", retryAfter: nil)) }
            if let request = run.request { notifyd_curl_multi_remove_handle(multi, request.handle) }
            do {
                try run.restartWithoutRange()
                try add(run, to: multi)
            } catch {
                end(run, error.end)
            }
        }
    }

    /// Ends `run`, reports `attemptEnd`; its partial file goes when it
    /// failed or when asked.
    private func end(_ run: TransferRun, _ attemptEnd: TransferAttemptEnd, discardingPartial: Bool = false) {
        if case .failed = attemptEnd {
            run.discardPartial()
        } else if discardingPartial {
            run.discardPartial()
        }
        detach(run)
        runs.removeAll { $0 === run }
        emit(.ended(id: run.attempt.id, attemptEnd))
    }

    /// Takes `run` off the multi handle and frees it.
    private func detach(_ run: TransferRun) {
        if let multi, let request = run.request { notifyd_curl_multi_remove_handle(multi, request.handle) }
        run.close()
    }
}
