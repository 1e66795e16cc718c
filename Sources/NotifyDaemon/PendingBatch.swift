import DBus
import NotifyCore
import NotifyStore

/// One batch of the ``Committer``: the rows of every decision taken since
/// it opened, the replies and effects that wait for its commit, and, once
/// sealed, the state it leaves.
struct PendingBatch {
    /// The rows to commit.
    var writes = StateWrites()
    /// The replies waiting for the commit: sent when it succeeds, failed
    /// with its error when it does not.
    var replies: [(success: () -> Void, failure: (any Error) -> Void)] = []
    /// The effects to carry out once committed, in order.
    var effects: [NotifydEffect] = []
    /// The bus connections whose messages were decided in the batch: a
    /// read they send next waits for it, as their messages are handled in
    /// the order sent.
    var senders: Set<String> = []
    /// What the batch holds, for the log line of a failed commit.
    var summary = BatchSummary()
    /// What only memory holds (popups, docks, tasks) as it was when the
    /// batch opened: put back if the commit fails.
    let memoryAtStart: NotifydState.MemoryOnly
    /// The state once the batch is sealed: what is committed when it is.
    var sealedState: NotifydState?
    /// Whether a decision in it was applied with ``Committer/apply(_:)``:
    /// one that must be on disk before its effects or a reply.
    var holdsUrgentRows = false

    /// Whether the batch must be committed when the loop next sleeps: an
    /// urgent decision, a reply or an effect waits for it. One that holds
    /// only rows applied when convenient waits for the next that must.
    var mustCommit: Bool { holdsUrgentRows || !replies.isEmpty || !effects.isEmpty }

    init(memoryAtStart: NotifydState.MemoryOnly) {
        self.memoryAtStart = memoryAtStart
    }

    /// Takes a decision's outcome: its rows staged, its effects queued.
    mutating func add(_ outcome: NotifydOutcome) {
        for write in outcome.writes { stage(write) }
        effects += outcome.effects
    }

    /// Hands the rows over (to the writer thread) and keeps none.
    mutating func takeWrites() -> StateWrites {
        var taken = StateWrites()
        swap(&taken, &writes)
        return taken
    }

    private mutating func stage(_ write: StateWrite) {
        switch write {
        case .badge(let change):
            summary.badge(change.app.rawValue)
            writes.stageBadge(change.app.rawValue, count: change.new)
        case .event(let recorded):
            summary.report(session: recorded.session.id.rawValue, app: recorded.session.app.rawValue)
            writes.stageSession(StateMapping.row(recorded.session))
            if let handler = recorded.handler { writes.stageHandler(StateMapping.row(handler)) }
            for session in recorded.forgotten { writes.stageSessionRemoval(session.rawValue) }
        case .activation(let activation, let trimming):
            summary.activations += 1
            writes.stageActivation(StoredActivation(app: activation.app.rawValue, at: activation.at))
            if trimming {
                writes.stageActivationTrim(app: activation.app.rawValue, keepNewest: AppBook.activationsKeptPerApp)
            }
        case .activationsForgotten(let app):
            writes.stageActivationTrim(app: app.rawValue, keepNewest: 0)
        case .invoked(let invoked, let sessions, let forgotten):
            summary.invoked += invoked.count
            for item in invoked { writes.stageHandlerRemoval(item.handler.id) }
            for session in sessions { writes.stageSession(StateMapping.row(session)) }
            for session in forgotten { writes.stageSessionRemoval(session.rawValue) }
        case .deadlineShift(let microseconds):
            writes.stageDeadlineShift(by: microseconds)
        case .fetchSchedule(let app, let schedule):
            writes.stageFetchSchedule(StateMapping.row(app, schedule))
        case .fetchStarted(let fetch, let schedule):
            writes.stageFetchStart(StateMapping.row(fetch))
            writes.stageFetchSchedule(StateMapping.row(fetch.app, schedule))
        case .fetchEnded(let ended):
            let record = ended.record
            writes.stageFetchEnd(id: record.id, at: record.ended, result: record.result.rawValue)
            writes.stageFetchSchedule(StateMapping.row(record.app, ended.schedule))
            if ended.trimmedHistory {
                writes.stageFetchHistoryTrim(app: record.app.rawValue, keepNewest: FetchBook.historyKeptPerApp)
            }
        case .pushRegistration(let registration):
            writes.stagePushRegistration(StateMapping.row(registration))
        case .pushRegistrationRemoved(let token):
            writes.stagePushRegistrationRemoval(token: token.rawValue)
        case .pushMessageHeld(let message):
            writes.stagePushMessage(StateMapping.row(message))
        case .pushMessagesReleased(let ids):
            for id in ids { writes.stagePushMessageRemoval(id: id) }
        case .pushServer(let server):
            writes.stagePushServer(server.map(StateMapping.row))
        case .pushServerCursor(let cursor):
            writes.stagePushServerCursor(cursor)
        case .transfer(let record):
            writes.stageTransfer(StateMapping.row(record))
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
