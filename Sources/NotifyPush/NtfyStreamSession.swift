import CCurl
import Glibc
import WorkerThread

/// libcurl's multi handle and the one subscription stream, on the client's
/// thread only: the loop that takes commands, sleeps in `curl_multi_poll`,
/// and decides when to open the stream again.
///
/// The thread sleeps in `curl_multi_poll` on libcurl's sockets and the
/// mailbox's eventfd (an extra descriptor: `curl_multi_wakeup` would need
/// the multi handle alive in the thread that posts, which `stop()` races
/// with; the eventfd belongs to the mailbox, which outlives the thread).
/// Its timeout is the stall deadline while streaming, the next attempt
/// while waiting, none while idle: the only wake-ups of an idle stream are
/// the server's keepalives.
final class NtfyStreamSession {
    /// Where the stream stands, as this thread sees it.
    enum Phase: Equatable {
        /// No settings or no topics: nothing to open.
        case idle
        /// A transfer runs (connecting, or connected once ntfy's `open` came).
        case streaming
        /// Waiting until this monotonic time to open it again.
        case waiting(until: UInt64)
        /// Asked to stop.
        case stopping
    }

    /// How long one wait lasts when the mailbox has no eventfd (then
    /// commands are taken at each turn), in milliseconds.
    static let turnMilliseconds: Int32 = 100

    let emit: (NtfyPushEvent) -> Void
    private let multi: UnsafeMutableRawPointer?
    private var settings: NtfySettings?
    private var topics: Set<String> = []
    private var cursor = NtfyCursor()
    /// The last server configured: the cursor is its.
    private var lastServer: String?
    private var phase = Phase.idle
    private var backoff = ReconnectBackoff()
    private var transfer: NtfyTransfer?

    init(emit: @escaping (NtfyPushEvent) -> Void) {
        self.emit = emit
        multi = CurlResult.initialized ? notifyd_curl_multi_init() : nil
    }

    /// Takes commands and runs the stream until told to stop; frees
    /// libcurl's handles before it returns.
    func run(mailbox: CommandMailbox<NtfyPushCommand>) {
        while phase != .stopping {
            wait(mailbox: mailbox)
            for command in mailbox.take() { handle(command) }
            if case .waiting(let until) = phase, MonotonicTime.nanoseconds() >= until { open() }
            if phase == .streaming { perform() }
        }
        closeTransfer()
        if let multi { notifyd_curl_multi_cleanup(multi) }
    }

    /// Sleeps until there may be something to do: a command, bytes on the
    /// stream (or libcurl's own timer while it connects), the stall
    /// deadline, the time of the next attempt.
    private func wait(mailbox: CommandMailbox<NtfyPushCommand>) {
        var timeout = Int32.max
        switch phase {
        case .streaming:
            if let stallDeadline { timeout = MonotonicTime.millisecondsUntil(stallDeadline) }
        case .waiting(let until): timeout = MonotonicTime.millisecondsUntil(until)
        case .idle, .stopping: break
        }
        if mailbox.wakeDescriptor < 0 { timeout = min(timeout, Self.turnMilliseconds) }
        var extra = curl_waitfd(fd: mailbox.wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        if let multi {
            let code =
                mailbox.wakeDescriptor >= 0
                ? notifyd_curl_multi_poll(multi, &extra, 1, timeout, nil) : notifyd_curl_multi_poll(multi, nil, 0, timeout, nil)
            guard (try? CurlResult.check(code, "waiting")) == nil else { return }
        }
        // No multi handle, or it failed: wait on the mailbox alone, bounded.
        var descriptor = pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, min(timeout, Self.turnMilliseconds))
    }

    private func handle(_ command: NtfyPushCommand) {
        switch command {
        case .configure(let newSettings):
            closeTransfer()
            if let newSettings, newSettings.baseURL != lastServer {
                // Another server: its ids and clock say nothing of this one's.
                if lastServer != nil { cursor = NtfyCursor() }
                lastServer = newSettings.baseURL
            }
            settings = newSettings
            backoff.reset()
            openOrIdle()
        case .follow(let newTopics, let since):
            let valid = newTopics.filter(NtfySettings.isTopic)
            for topic in newTopics.subtracting(valid).sorted() {
                emit(.dropped(reason: "\"\(topic.prefix(80))\" is not an ntfy topic (1 to 64 of A-Z, a-z, 0-9, - and _): not followed"))
            }
            if let since {
                if NtfyMessage.isMessageID(since) {
                    cursor.start(after: since)
                } else {
                    emit(.dropped(reason: "\"\(since.prefix(80))\" is not an ntfy message id: no cursor taken"))
                }
            }
            let changed = valid != topics
            topics = valid
            if changed || phase == .idle {
                closeTransfer()
                openOrIdle()
            }
        case .catchUp(let since, let forgotten):
            // Messages the owner could not store come again: from the
            // last it stored, on a new stream (a waiting one opens later
            // from the same cursor).
            cursor.rewind(to: since, forgetting: forgotten)
            guard phase == .streaming else { return }
            closeTransfer()
            open()
        case .networkReturned:
            // A stream from before the change may be dead without either
            // side knowing: it is opened again, and since= catches up.
            guard phase != .idle else { return }
            closeTransfer()
            backoff.reset()
            open()
        case .stop: phase = .stopping
        }
    }

    /// Opens the stream when there are settings and topics; else stays idle, saying why.
    private func openOrIdle() {
        if settings == nil {
            phase = .idle
            emit(.state(.disconnected(reason: "no ntfy server is configured")))
        } else if topics.isEmpty {
            phase = .idle
            emit(.state(.disconnected(reason: "no topic to follow: no app is registered with the ntfy server")))
        } else {
            open()
        }
    }

    /// The stream's URL: the topics, sorted, and where to start.
    private func streamURL(_ settings: NtfySettings) -> String {
        settings.baseURL + "/" + topics.sorted().joined(separator: ",") + "/json" + cursor.query
    }

    /// Starts an attempt; a failure to even start counts as a failed attempt.
    private func open() {
        guard let settings, !topics.isEmpty else { return openOrIdle() }
        phase = .streaming
        emit(.state(.connecting))
        let started: NtfyTransfer
        do throws(NtfyPushError) {
            guard let multi else { throw NtfyPushError(CurlResult.unavailable) }
            started = try NtfyTransfer(session: self, url: streamURL(settings))
            if let caFile = settings.caFile {
                do {
                    try started.trust(caFile: caFile)
                } catch {
                    started.close()
                    return endAttempt(.certificateRejected(reason: error.description))
                }
            }
            do {
                try CurlResult.check(notifyd_curl_multi_add_handle(multi, started.handle), "starting the stream")
            } catch {
                started.close()
                throw error
            }
        } catch {
            return endAttempt(.disconnected(reason: error.description))
        }
        transfer = started
    }

    /// Lets libcurl move the transfer on, then ends it if it is over or stalled.
    private func perform() {
        guard let multi, let transfer, let settings else { return }
        var running: Int32 = 0
        do {
            try CurlResult.check(notifyd_curl_multi_perform(multi, &running), "reading the stream")
        } catch {
            return endAttempt(.disconnected(reason: error.description))
        }
        var queued: Int32 = 0
        while let message = notifyd_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, message.pointee.easy_handle == transfer.handle else { continue }
            return endAttempt(transfer.end(message.pointee.data.result).state)
        }
        if let stallDeadline, MonotonicTime.nanoseconds() >= stallDeadline {
            let seconds = settings.stallTimeout.components.seconds
            endAttempt(.disconnected(reason: "no byte came from the ntfy server in \(seconds) seconds: the stream is taken for dead"))
        }
    }

    /// The attempt or stream ended: says why and plans the next attempt.
    private func endAttempt(_ state: NtfyConnectionState) {
        closeTransfer()
        emit(.state(state))
        phase = .waiting(until: MonotonicTime.after(backoff.failed()))
    }

    /// When the stream is taken for dead if no byte comes before.
    private var stallDeadline: UInt64? {
        guard let transfer, let settings else { return nil }
        return transfer.lastByte + MonotonicTime.nanoseconds(of: settings.stallTimeout)
    }

    /// Ends the transfer, if any, without planning another.
    private func closeTransfer() {
        guard let transfer else { return }
        if let multi { _ = try? CurlResult.check(notifyd_curl_multi_remove_handle(multi, transfer.handle), "ending the stream") }
        transfer.close()
        self.transfer = nil
    }

    /// One line of the stream (inside libcurl's write callback: nothing
    /// here calls libcurl).
    func lineArrived(_ line: ArraySlice<UInt8>, on transfer: NtfyTransfer) {
        guard !line.isEmpty else { return }
        switch NtfyStreamLine(line) {
        case .open(let time):
            guard !transfer.connected else { return }
            transfer.connected = true
            cursor.opened(at: time)
            backoff.reset()
            emit(.state(.connected))
        case .keepalive, .ignored: break
        case .message(let message):
            guard topics.contains(message.topic) else {
                return emit(.dropped(reason: "a message for the topic \(message.topic), which is not followed, was left out"))
            }
            guard cursor.advance(to: message.id) else { return }  // emitted already
            emit(.message(topic: message.topic, id: message.id, time: message.time, body: message.body))
        case .invalid(let reason):
            emit(.dropped(reason: "a line from the ntfy server was left out: \(reason)"))
        }
    }
}
