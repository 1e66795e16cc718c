import DBus
import Logging
import NotifyCore

/// `org.notifyd.Notifyd1.Sessions`: completion handlers by session ID.
///
/// A report (the method or the worker signal) is decoded and validated,
/// recorded by the core (one handler per event, never replacing one), and
/// its outcome handed to the committer: stored, answered after the commit,
/// then carried out (the running app hears `HandleEventsForBackgroundSession`,
/// docks get the badge and progress, the popup is posted). Handlers are
/// invoked exactly once, by CompleteSession, CancelSession or their deadline.
final class SessionService {
    private let committer: Committer
    private let waiters: SessionWaiters
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    private let logger: Logger
    private var refusals = RefusalLog()

    init(committer: Committer, waiters: SessionWaiters, callers: CallerCheck?, clock: any DaemonClock, logger: Logger) {
        self.callers = callers
        self.committer = committer
        self.waiters = waiters
        self.clock = clock
        self.logger = logger
    }

    // MARK: Reports

    func handleEvents(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let report = try EventDecoding.report(arguments: call.arguments)
        try callers?.authorize(call, for: report.app)
        let handler = try record(report)
        return committer.respond(call, [.uint64(handler?.id ?? 0)])
    }

    /// The worker signal: the same as the method, with nobody to answer.
    /// `sender` is what notifyd learnt of the sender before running this.
    func workerSignal(_ message: DBusMessage, sender lookup: CallerLookup) {
        do {
            guard message.signature == "ssa{sv}" else {
                throw NotifydError(.invalidArgs, "signature '\(message.signature)', expected 'ssa{sv}'")
            }
            let report = try EventDecoding.report(arguments: message.arguments())
            if let refusal = callers?.refusal(ofSignal: lookup, for: report.app) { throw refusal }
            _ = try record(report)
            committer.heard(from: message.sender ?? "")
        } catch {
            refuse(message, because: error)
        }
    }

    /// Logs a worker signal that was not recorded, naming its sender,
    /// session and app; a flood of them must not flood the journal.
    func refuse(_ message: DBusMessage, because error: any Error) {
        let sender = message.sender ?? "?"
        guard let count = refusals.shouldLog(sender) else { return }
        let arguments = (try? message.arguments()) ?? []
        var about = ""
        if case .string(let session)? = arguments.first, case .string(let app)? = arguments.dropFirst().first {
            about = " for session '\(AppID.printable(session))' of \(AppID.printable(app))"
        }
        let repeated = count > 1 ? " (\(count) refused from it so far)" : ""
        logger.warning("refused a worker signal from \(sender)\(about): \(error)\(repeated)")
    }

    private func record(_ report: WorkerReport) throws(NotifydError) -> CompletionHandler? {
        let now = clock.now()
        let echo = EventEcho(report.echo)
        return try committer.apply { (state) throws(NotifydError) in
            try state.recordEvent(report.event, session: report.session, app: report.app, echo: echo, at: now)
        }.recorded.handler
    }

    // MARK: Completion

    func completeSession(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try finish(call, result: .completed)
    }

    func cancelSession(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try finish(call, result: .cancelled)
    }

    /// Decodes the session ID of argument 0 and checks the caller may act
    /// for the app it belongs to.
    private func session(of call: DBusMethodCall) throws -> SessionID {
        let session = try SessionID(call.argument(0))
        if let app = committer.current.sessions.session(session)?.app { try callers?.authorize(call, for: app) }
        return session
    }

    private func finish(_ call: DBusMethodCall, result: HandlerResult) throws -> DBusMethodResult {
        let session = try session(of: call)
        let now = clock.now()
        let invoked = try committer.apply { (state) throws(NotifydError) in
            try state.completeSession(session, result: result, at: now)
        }
        return committer.respond(call, [.uint32(UInt32(invoked))])
    }

    /// Invokes every handler whose deadline has passed (the deadline timer
    /// and start-up call this).
    func expireDue() {
        let now = clock.now()
        committer.apply { $0.expireHandlers(at: now) }
    }

    // MARK: Waiting and listing

    func waitForSession(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let session = try session(of: call)
        guard let record = committer.current.sessions.session(session) else {
            throw NotifydError(.unknownSession, "notifyd has never seen the session '\(session)' (or has forgotten it)")
        }
        guard !committer.current.sessions.pendingHandlers(of: session).isEmpty else {
            return committer.respond(call, [.string(record.lastResult?.rawValue ?? "none")])
        }
        waiters.wait(call, for: session)
        return .deferred
    }

    /// A connection left the bus: its waiting calls can never be answered,
    /// and its refusals need no more counting.
    func callerLeft(_ name: String) {
        refusals.forget(name)
        waiters.callerLeft(name)
    }

    /// The rows are taken now, from the committed state, then sorted and written into the reply a
    /// piece per turn of the loop (``SessionListing``): 100,000 sessions
    /// never hold the loop for long, and no ``DBusValue`` tree is built.
    func listSessions(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call) ?? .everyApp
        return committer.read(call) { [committer, logger] in
            let rows = committer.committed.sessions.listingRows { visibility.shows($0) }
            SessionListing(call: call, rows: rows, logger: logger).start()
            return .deferred
        }
    }

    static var sessionRowType: DBusType { .structure([.string, .string, .uint32, .dictionary(key: .string, value: .variant)]) }
}

/// Counts refused worker signals per sender and says which to log: the
/// first ten, then every thousandth.
struct RefusalLog {
    private var counts: [String: Int] = [:]

    /// The sender's count when this refusal should be logged, else nil.
    mutating func shouldLog(_ sender: String) -> Int? {
        let count = counts[sender, default: 0] + 1
        counts[sender] = count
        if counts.count > 4096 { counts = [sender: count] }
        return count <= 10 || count % 1000 == 0 ? count : nil
    }

    mutating func forget(_ sender: String) {
        counts[sender] = nil
    }
}
