/// Progress popups (SPEC "Progress"): one transient popup per session in
/// progress, with the `value` hint, updated in place at most twice a
/// second (``ProgressThrottle``); the session's finished or failed event
/// closes it. Only servers known to draw the `value` hint get these (the
/// specification has no capability for it: see
/// ``NotificationServerProfile/drawsProgress``); on KDE Plasma the session
/// is a job of Plasma's own instead, as KDE's downloads are; others show
/// progress on the dock through the LauncherEntry only.
struct ProgressPopups: Sendable, Hashable {
    var throttle = ProgressThrottle()
    /// The newest progress of each session in progress.
    var latest: [SessionID: Latest] = [:]
    /// When each held-back value is due.
    var due: [SessionID: Microseconds] = [:]
    /// Sessions whose popup is showing.
    var shown: Set<SessionID> = []
    /// Sessions shown as desktop jobs rather than popups.
    var asJobs: Set<SessionID> = []

    struct Latest: Sendable, Hashable {
        var app: AppID
        var event: WorkerEvent
        var fraction: Double
    }

    var nextDue: Microseconds? { due.values.min() }

    /// The sessions whose held-back value is due at `now`, earliest first,
    /// marked as shown now.
    mutating func due(at now: Microseconds) -> [SessionID] {
        let sessions = due.filter { $0.value <= now }.sorted { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }
        for (session, _) in sessions {
            due[session] = nil
            throttle.flushed(session: session, at: now)
        }
        return sessions.map(\.key)
    }

    static func key(_ session: SessionID, _ app: AppID) -> PopupKey {
        PopupKey(app: app, slot: "progress:\(session.rawValue)")
    }
}

extension PopupBook {
    /// A progress event: shown now, or held until its half second is up.
    mutating func updateProgress(_ recorded: RecordedWorkerEvent, at now: Microseconds) -> [PopupEffect] {
        guard let profile = server, profile.drawsProgress || profile.showsTransfersAsJobs,
            let fraction = recorded.sessionProgress
        else { return [] }
        let session = recorded.session
        if profile.showsTransfersAsJobs { progress.asJobs.insert(session) }
        progress.latest[session] = ProgressPopups.Latest(app: recorded.app, event: recorded.event, fraction: fraction)
        switch progress.throttle.offer(session: session, at: now) {
        case .now:
            return showProgress(session, at: now)
        case .later(let at):
            progress.due[session] = at
            return []
        case .alreadyScheduled:
            return []
        }
    }

    /// Shows the newest progress of `session`.
    mutating func showProgress(_ session: SessionID, at now: Microseconds) -> [PopupEffect] {
        guard let latest = progress.latest[session] else { return [] }
        let percent = Int32((latest.fraction * 100).rounded(.down))
        let event = latest.event
        if progress.asJobs.contains(session) {
            return [
                .updateJob(
                    JobProgress(
                        session: session, app: latest.app, title: event.title ?? "Downloading",
                        percent: UInt32(clamping: percent), bytesWritten: event.bytesWritten,
                        bytesExpected: event.bytesExpected))
            ]
        }
        progress.shown.insert(session)
        return submit(
            PopupDraft(
                key: ProgressPopups.key(session, latest.app), session: session, kind: .progress,
                summary: event.summary ?? event.title ?? "Downloading", body: event.body ?? "\(percent)%",
                category: "transfer", sound: .silent, progress: percent, transient: true))
    }

    /// The session finished or failed: its held-back value is dropped (a
    /// job gets it first, then ends), and its popup closed.
    mutating func endProgress(session: SessionID, app: AppID, failed: Bool) -> [PopupEffect] {
        progress.throttle.end(session: session)
        var effects: [PopupEffect] = []
        if progress.latest[session] != nil, progress.asJobs.contains(session) {
            effects += showProgress(session, at: 0)
            effects.append(.endJob(session: session, failed: failed))
        }
        progress.latest[session] = nil
        progress.asJobs.remove(session)
        progress.due[session] = nil
        if progress.shown.remove(session) != nil { effects.append(.close(ProgressPopups.key(session, app))) }
        return effects
    }
}

/// The summary popups of floods: at most one update every
/// ``PopupBook/summaryInterval`` per summary, the latest text winning, so
/// that a flood of thousands of events costs the server a handful of
/// calls while badges and handlers still count every event.
struct SummaryPopups: Sendable, Hashable {
    /// When each summary was last posted.
    var lastPosted: [PopupKey: Microseconds] = [:]
    /// The newest text of each summary held back, and when it is due.
    var held: [PopupKey: (draft: PopupDraft, due: Microseconds)] = [:]

    var nextDue: Microseconds? { held.values.map(\.due).min() }

    // Hashable by hand: a tuple is neither Equatable nor Hashable.
    private var heldPairs: [PopupKey: [AnyHashable]] { held.mapValues { [AnyHashable($0.draft), AnyHashable($0.due)] } }
    static func == (left: Self, right: Self) -> Bool {
        left.lastPosted == right.lastPosted && left.heldPairs == right.heldPairs
    }
    func hash(into hasher: inout Hasher) {
        hasher.combine(lastPosted)
        hasher.combine(heldPairs)
    }

    /// Offers an update: returned when it is to be posted now, else held.
    /// With `settleFirst` (a server that loses popups replaced while
    /// queued), it is held until the burst has been quiet for
    /// ``FloodGate/window``, and posted once.
    mutating func offer(_ draft: PopupDraft, settleFirst: Bool, at now: Microseconds) -> PopupDraft? {
        forgetStale(at: now)
        let key = draft.key
        if settleFirst {
            held[key] = (draft, now + FloodGate.window)
            return nil
        }
        guard let last = lastPosted[key], now - last < PopupBook.summaryInterval else {
            lastPosted[key] = now
            return draft
        }
        held[key] = (draft, held[key]?.due ?? last + PopupBook.summaryInterval)
        return nil
    }

    /// The held summaries due at `now`, earliest first, marked as posted now.
    mutating func due(at now: Microseconds) -> [PopupDraft] {
        let ready = held.filter { $0.value.due <= now }.sorted { $0.value.due < $1.value.due }
        for (key, _) in ready {
            held[key] = nil
            lastPosted[key] = now
        }
        return ready.map(\.value.draft)
    }

    /// Bursts long over need no memory of their last update.
    private mutating func forgetStale(at now: Microseconds) {
        guard lastPosted.count > 32 else { return }
        lastPosted = lastPosted.filter { now - $0.value < 10 * PopupBook.summaryInterval || held[$0.key] != nil }
    }
}

extension PopupBook {
    mutating func offerSummary(_ draft: PopupDraft, settleFirst: Bool, at now: Microseconds) -> [PopupEffect] {
        guard let ready = summaries.offer(draft, settleFirst: settleFirst, at: now) else { return [] }
        return submit(ready)
    }
}
