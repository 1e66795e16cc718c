import CLinux
import CStrophe
import Glibc
import Synchronization
import WorkerThread

/// libstrophe's context and connection, on the client's thread only: the
/// loop that takes commands, runs `xmpp_run_once`, and decides when to
/// connect again.
final class StropheSession {
    /// Where the connection stands, as this thread sees it.
    enum Phase: Equatable {
        /// No settings: nothing to connect to.
        case idle
        /// An attempt is under way (TCP, TLS, SASL, bind).
        case connecting
        /// Logged in and bound.
        case connected
        /// Waiting until this monotonic time to try again.
        case waiting(until: UInt64)
        /// The password was refused: waiting for new settings.
        case authenticationFailed
        /// Asked to stop.
        case stopping
    }

    /// How long one `xmpp_run_once` waits while an attempt is under way
    /// (libstrophe's own timers, such as the attempt's timeout, run only
    /// when it is called), in milliseconds: the longest a command then waits.
    static let turnMilliseconds: UInt = 100
    /// Reads after the socket has nothing more: OpenSSL may hold the rest of
    /// one TLS record (16 KB) that libstrophe reads 4 KB at a time, which
    /// no poll of the socket shows.
    static let tlsLeftoverTurns = 4
    /// At most this many reads in a row before commands are looked at again.
    static let turnsPerWake = 64
    /// How long a disconnect may take to be written before the connection is dropped.
    static let closingNanoseconds: UInt64 = 2_000_000_000
    /// At most this many pushes wait for an answer; more are answered
    /// "later" (503 to their senders).
    static let openPushLimit = 256
    /// At most this many registrations wait for the server's answer.
    static let pendingRegistrationLimit = 1000

    let emit: (XMPPPushEvent) -> Void
    let context: OpaquePointer?
    private let logger: UnsafeMutablePointer<xmpp_log_t>
    var connection: OpaquePointer?
    var settings: XMPPPushSettings?
    var phase = Phase.idle
    private var backoff = ReconnectBackoff()
    private var failure = ConnectionFailure()
    private var sessionWasUp = false
    private var attemptEnded = false
    private var endError: Int32 = 0
    private var endStreamErrorText: String?
    var pendingRegistrations: [String: (application: [UInt8], instance: [UInt8])] = [:]
    var openPushes: [PushID: String] = [:]
    var stanzaCount: UInt64 = 0

    /// Why libstrophe cannot be used (it is loaded with `dlopen`, and
    /// initialized, at the first session), or nil when it is ready.
    private static let libraryFailure: String? = {
        guard notifyd_strophe_load() == 1 else {
            return notifyd_strophe_load_error().map { String(cString: $0) } ?? "libstrophe could not be loaded"
        }
        return nil
    }()

    init(emit: @escaping (XMPPPushEvent) -> Void) {
        self.emit = emit
        logger = .allocate(capacity: 1)
        logger.initialize(to: xmpp_log_t(handler: nil, userdata: nil))
        context = Self.libraryFailure == nil ? xmpp_ctx_new(nil, logger) : nil
        // The logger's userdata is set once `self` exists; the context reads
        // it only while running, which is after this.
        logger.pointee = xmpp_log_t(handler: stropheLogHandler, userdata: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        logger.deinitialize(count: 1)
        logger.deallocate()
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Takes commands and runs the connection until told to stop; frees
    /// libstrophe's connection and context before it returns.
    ///
    /// While connected, the thread sleeps in `poll` on the socket and the
    /// mailbox: no timer wakes it when nothing happens.
    func run(mailbox: CommandMailbox<XMPPPushCommand>) {
        while phase != .stopping {
            waitForWork(mailbox: mailbox)
            for command in mailbox.take() { handle(command) }
            if case .waiting(let until) = phase, MonotonicTime.nanoseconds() >= until { connect() }
            if connection != nil, phase != .stopping { runConnection() }
        }
        close()
        if let context {
            connectionSockets.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: context)) }
            xmpp_ctx_free(context)
        }
    }

    /// Sleeps until there may be something to do: a command, the socket
    /// readable (or writable while data waits to be sent), the time of the
    /// next attempt. An attempt under way waits in `xmpp_run_once` instead.
    private func waitForWork(mailbox: CommandMailbox<XMPPPushCommand>) {
        var descriptors = [pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        var timeout: Int32 = -1
        switch phase {
        case .connected:
            guard let connection, let socket = socketDescriptor else { return }
            let writing = xmpp_conn_send_queue_len(connection) > 0
            descriptors.append(pollfd(fd: socket, events: Int16(POLLIN | (writing ? POLLOUT : 0)), revents: 0))
        case .connecting where connection != nil: return
        case .waiting(let until): timeout = MonotonicTime.millisecondsUntil(until)
        default: break
        }
        if mailbox.wakeDescriptor < 0 {
            timeout = timeout < 0 ? Int32(Self.turnMilliseconds) : min(timeout, Int32(Self.turnMilliseconds))
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
    }

    /// The connection's socket, once libstrophe made it.
    private var socketDescriptor: Int32? {
        guard let context else { return nil }
        return connectionSockets.withLock { $0[UInt(bitPattern: context)] }
    }

    /// Runs libstrophe: one bounded wait while an attempt is under way;
    /// while connected, reads until the socket and OpenSSL's buffer are
    /// both empty (bounded, so that commands are not starved).
    private func runConnection() {
        guard let context else { return }
        if phase != .connected {
            xmpp_run_once(context, Self.turnMilliseconds)
            Self.discardPendingSIGPIPE()
        } else {
            var quietTurns = 0
            var turns = 0
            while connection != nil, !attemptEnded, phase == .connected, quietTurns < Self.tlsLeftoverTurns,
                turns < Self.turnsPerWake
            {
                xmpp_run_once(context, 0)
                Self.discardPendingSIGPIPE()
                turns += 1
                quietTurns = socketHasWork() ? 0 : quietTurns + 1
            }
        }
        if attemptEnded { finishAttempt(announcing: true) }
    }

    /// Whether the socket has bytes to read, an error, or room for data
    /// that waits to be sent: asked without waiting.
    private func socketHasWork() -> Bool {
        guard let connection, let socket = socketDescriptor else { return false }
        let writing = xmpp_conn_send_queue_len(connection) > 0
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN | (writing ? POLLOUT : 0)), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    private func handle(_ command: XMPPPushCommand) {
        switch command {
        case .configure(let newSettings):
            close()
            settings = newSettings
            backoff.reset()
            if newSettings == nil {
                phase = .idle
                emit(.state(.disconnected(reason: "no push server is configured")))
            } else {
                connect()
            }
        case .register(let application, let instance): register(application: application, instance: instance)
        case .acknowledge(let push): answer(push, .taken)
        case .refuse(let push): answer(push, .gone)
        case .postpone(let push): answer(push, .later)
        case .networkReturned:
            if case .waiting = phase {
                backoff.reset()
                connect()
            }
        case .stop: phase = .stopping
        }
    }

    /// Starts an attempt with the settings; a failure to even start counts
    /// as a failed attempt.
    private func connect() {
        guard let context, let settings else {
            phase = .idle
            if settings != nil {
                emit(.state(.disconnected(reason: Self.libraryFailure ?? "libstrophe could not start (out of memory)")))
            }
            return
        }
        failure = ConnectionFailure()
        sessionWasUp = false
        attemptEnded = false
        endError = 0
        endStreamErrorText = nil
        phase = .connecting
        emit(.state(.connecting))
        do {
            let connection = try StropheResult.made(xmpp_conn_new(context), "a connection")
            self.connection = connection
            // Stream management stays off: a fresh connection per attempt,
            // and a push answered after a drop is not silently lost in a
            // resumed send queue (see the research notes, section 3).
            var flags = notifyd_strophe_flag_disable_sm()
            if !settings.isLoopback { flags |= notifyd_strophe_flag_mandatory_tls() }
            try StropheResult.check(xmpp_conn_set_flags(connection, flags), "setting the connection's flags")
            if let caFile = settings.caFile { xmpp_conn_set_cafile(connection, caFile) }
            xmpp_conn_set_certfail_handler(connection, stropheCertificateFailureHandler)
            xmpp_conn_set_sockopt_callback(connection, stropheSocketOptions)
            xmpp_conn_set_jid(connection, settings.fullJID)
            xmpp_conn_set_pass(connection, settings.password)
            try StropheResult.check(
                xmpp_connect_client(
                    connection, settings.host, settings.port ?? 0, stropheConnectionHandler, userdata),
                "connecting to \(settings.host ?? settings.domain)")
        } catch {
            failure.noteDisconnect(error: 0, streamErrorText: error.description)
            finishAttempt(announcing: true)
        }
    }

    /// A connection event of libstrophe's (inside `xmpp_run_once`).
    func connectionEvent(_ event: xmpp_conn_event_t, error: Int32, streamErrorText: String?) {
        switch event {
        case XMPP_CONN_CONNECT:
            sessionWasUp = true
            phase = .connected
            backoff.reset()
            if let connection {
                xmpp_handler_add(connection, stropheHandlerForPush, unifiedPushNamespace, "iq", "set", userdata)
            }
            emit(.state(.connected))
        case XMPP_CONN_RAW_CONNECT:
            break
        default:
            attemptEnded = true
            endError = error
            endStreamErrorText = streamErrorText
        }
    }

    /// A log line of libstrophe's.
    func noteLog(area: String, isError: Bool, message: String) {
        failure.noteLog(area: area, isError: isError, message: message)
    }

    /// The attempt or session ended: frees the connection, fails what
    /// waited on it, and (when `announcing`) says why and plans the next attempt.
    private func finishAttempt(announcing: Bool) {
        if let context, let reason = certificateRejections.withLock({ $0.removeValue(forKey: UInt(bitPattern: context)) }) {
            failure.noteCertificateRejected(reason)
        }
        failure.noteDisconnect(error: endError, streamErrorText: endStreamErrorText)
        if let connection { xmpp_conn_release(connection) }
        connection = nil
        if let context { connectionSockets.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: context)) } }
        attemptEnded = false
        openPushes.removeAll()
        let lost = pendingRegistrations
        pendingRegistrations.removeAll()
        for (_, registration) in lost.sorted(by: { $0.key < $1.key }) {
            emit(.registrationFailed(
                application: registration.application, instance: registration.instance,
                reason: "the connection to the push server ended before it answered"))
        }
        guard announcing, phase != .stopping else { return }
        let state = failure.state(afterSession: sessionWasUp)
        emit(.state(state))
        if case .authenticationFailed = state {
            phase = .authenticationFailed
        } else {
            phase = .waiting(until: MonotonicTime.after(backoff.failed()))
        }
    }

    /// Ends the connection, if any, without planning another: the
    /// disconnect is written (bounded), then the connection is freed.
    private func close() {
        guard let context, let connection else { return }
        if !attemptEnded {
            xmpp_disconnect(connection)
            let deadline = MonotonicTime.nanoseconds() + Self.closingNanoseconds
            while !attemptEnded && MonotonicTime.nanoseconds() < deadline {
                xmpp_run_once(context, 50)
                Self.discardPendingSIGPIPE()
            }
        }
        finishAttempt(announcing: false)
    }

    /// A SIGPIPE raised by a write to a dropped socket stays pending on
    /// this thread (it is blocked here): take it, so none is ever delivered.
    private static func discardPendingSIGPIPE() {
        var pending = sigset_t()
        guard sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 else { return }
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, SIGPIPE)
        var noWait = timespec()
        _ = sigtimedwait(&only, nil, &noWait)
    }
}
