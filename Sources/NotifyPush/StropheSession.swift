import CStrophe
import Glibc
import Synchronization

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

    /// How long one `xmpp_run_once` waits for the socket, in milliseconds:
    /// the longest a command waits while a connection runs.
    static let turnMilliseconds: UInt = 100
    /// How long a disconnect may take to be written before the connection is dropped.
    static let closingNanoseconds: UInt64 = 2_000_000_000
    /// At most this many pushes wait for an answer; more are refused.
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

    private static let libraryInitialized: Bool = {
        xmpp_initialize()
        return true
    }()

    init(emit: @escaping (XMPPPushEvent) -> Void) {
        self.emit = emit
        _ = Self.libraryInitialized
        logger = .allocate(capacity: 1)
        logger.initialize(to: xmpp_log_t(handler: nil, userdata: nil))
        context = xmpp_ctx_new(nil, logger)
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
    func run(mailbox: CommandMailbox) {
        while phase != .stopping {
            let wait: UInt64?
            switch phase {
            case _ where connection != nil: wait = nil
            case .waiting(let until): wait = until
            default: wait = .max
            }
            for command in mailbox.take(waitingUntil: wait) { handle(command) }
            if case .waiting(let until) = phase, MonotonicTime.nanoseconds() >= until { connect() }
            if let context, connection != nil, phase != .stopping {
                xmpp_run_once(context, Self.turnMilliseconds)
                Self.discardPendingSIGPIPE()
                if attemptEnded { finishAttempt(announcing: true) }
            }
        }
        close()
        if let context { xmpp_ctx_free(context) }
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
        case .acknowledge(let push): answer(push, accepted: true)
        case .refuse(let push): answer(push, accepted: false)
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
                emit(.state(.disconnected(reason: "libstrophe could not start (out of memory)")))
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
            xmpp_conn_set_sockopt_callback(connection, xmpp_sockopt_cb_keepalive)
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
