/// The rules that span badges, sessions and apps, one operation per thing
/// that can happen. Each is a function of the state, its input and the
/// time; it changes the state and returns a ``NotifydOutcome``: the rows
/// to store and what must follow the commit. None does I/O, and the daemon
/// never combines the books itself.
extension NotifydState {
    /// What a worker event changed.
    public struct EventRecord: Sendable, Hashable {
        /// The handler stored, the session after the event, the sessions forgotten.
        public let recorded: RecordedEvent
        /// The app's badge after the event's `badge` delta; nil when it did not change.
        public let badge: BadgeChange?
        /// The app's progress for docks; nil when they need no update
        /// (see ``RecordedWorkerEvent/appProgress``).
        public let progress: Double??
    }

    /// A worker event for `session` of `app` at `now` (SPEC "Sessions"):
    /// stores its handler, and adds its badge delta, which never makes the
    /// event refused for its size: the count stops at ``BadgeBook/maximum``.
    /// Throws (and changes nothing) when the session belongs to another app
    /// or the limits are reached: those of pending handlers, and
    /// ``BadgeBook/maximumApps`` when the event would badge one app too many.
    /// `echo` comes back, untouched, with the event's effect. Outcome: the
    /// rows, the badge (`BadgeChanged`), then the event.
    public mutating func recordEvent(
        _ event: WorkerEvent, session: SessionID, app: AppID, echo: EventEcho? = nil, at now: Microseconds
    ) throws(NotifydError) -> Decision<EventRecord> {
        if event.badge > 0 { try badges.checkRoom(for: app) }
        let recorded = try sessions.record(event, session: session, app: app, at: now)
        var badge: BadgeChange?
        if event.badge != 0 {
            let room = Int64(BadgeBook.maximum) - Int64(badges[app])
            let delta = Int32(clamping: min(Int64(event.badge), room))
            badge = try? badges.increment(app, by: delta).change
        }
        let showsProgress = event.kind == .progress || recorded.session.bytesExpected != nil
        let progress: Double?? = showsProgress ? .some(sessions.progress(of: app)) : nil
        if let progress { docks.setProgress(progress, for: app) }
        var outcome = NotifydOutcome(writes: [.event(recorded)])
        outcome.append(badgeOutcome(badge))
        let worker = RecordedWorkerEvent(
            event: event, session: session, app: app, handlerID: recorded.handler?.id ?? 0,
            sessionProgress: recorded.session.progress, appProgress: progress, echo: echo)
        outcome.effects.append(.eventRecorded(worker))
        // Its popup (or its place in a flood's summary, or its progress).
        outcome.effects += decidePopups(popups.eventRecorded(worker, at: popupTime(now)))
        return Decision(EventRecord(recorded: recorded, badge: badge, progress: progress), outcome)
    }

    /// What an app's state report changed.
    public struct AppReport: Sendable, Hashable {
        /// The state change and the activation recorded.
        public let report: AppStateReport
        /// The badge reset by becoming active; nil when it was 0 already.
        public let badge: BadgeChange?
    }

    /// Connection `owner` reported `state` for `app` at `now` (the Apps
    /// interface, or a click on the app's notification): becoming active
    /// records an activation and resets the app's badge, as on iOS.
    /// Outcome: the activation's row, the badge, then `StateChanged`.
    /// A new app beyond ``AppBook/maximumApps`` forgets the history of the
    /// app not running used longest ago (its rows first); `LimitExceeded`,
    /// and nothing changes, when every app known has a state.
    public mutating func reportAppState(
        _ state: AppState, for app: AppID, by owner: String, at now: Microseconds
    ) throws(NotifydError) -> Decision<AppReport> {
        let report = try apps.report(state, for: app, by: owner, at: now)
        var badge: BadgeChange?
        if report.activation != nil { badge = try? badges.set(app, to: 0) }
        var outcome = NotifydOutcome()
        if let forgotten = report.forgotten { outcome.writes.append(.activationsForgotten(forgotten)) }
        if let activation = report.activation {
            outcome.writes.append(.activation(activation, trimming: report.droppedActivations > 0))
        }
        outcome.append(badgeOutcome(badge))
        if let change = report.change { outcome.effects.append(.appStateChanged(change)) }
        // An activation feeds the usage rule of the app's fetches.
        if report.activation != nil, fetches.schedule(of: app).wantsFetches {
            outcome.effects.append(.fetchPlanChanged)
        }
        return Decision(AppReport(report: report, badge: badge), outcome)
    }

    /// The connection `owner` left the bus: the apps whose state it owned
    /// stop running (`StateChanged` for each, nothing to store).
    public mutating func ownerLeft(_ owner: String) -> Decision<Void> {
        Decision(NotifydOutcome(effects: apps.ownerLeft(owner).map { .appStateChanged($0) }))
    }

    /// The handlers of `session` invoked with `result` (CompleteSession,
    /// CancelSession); its answer is how many were pending.
    public mutating func completeSession(
        _ session: SessionID, result: HandlerResult, at now: Microseconds
    ) throws(NotifydError) -> Decision<Int> {
        let invoked = try sessions.complete(session, result: result, at: now)
        let forgotten = sessions.forgetOldFinishedSessions(sparing: [session])
        return Decision(invoked.count, invocation(of: invoked, forgotten: forgotten))
    }

    /// The handlers whose deadline is at or before `now`, invoked
    /// `expired` (at most ``SessionBook/maximumExpiredAtOnce`` at a time).
    public mutating func expireHandlers(at now: Microseconds) -> Decision<Void> {
        // Two steps: `invocation(of:)` must read the state after the expiry
        // (`self` would be read before its argument was evaluated).
        let invoked = sessions.expire(at: now)
        let forgotten = sessions.forgetOldFinishedSessions(sparing: Set(invoked.map(\.handler.session)))
        return Decision(invocation(of: invoked, forgotten: forgotten))
    }

    /// Invoked handlers: their rows removed with their sessions' new state
    /// (and the rows of the finished sessions forgotten to stay within
    /// ``SessionBook/finishedSessionsKept``: completing 100,000 sessions
    /// must not keep 100,000), then `SessionCompleted` for each, then the
    /// sessions left with no pending handler.
    private func invocation(of invoked: [InvokedHandler], forgotten: [SessionID]) -> NotifydOutcome {
        guard !invoked.isEmpty else { return NotifydOutcome() }
        var touched: [SessionRecord] = []
        for item in invoked where !touched.contains(where: { $0.id == item.handler.session }) {
            if let record = sessions.session(item.handler.session) { touched.append(record) }
        }
        let settled = touched.filter { sessions.pendingCount(of: $0.id) == 0 }
        return NotifydOutcome(
            writes: [.invoked(invoked, sessions: touched, forgotten: forgotten)],
            effects: invoked.map { .sessionCompleted($0) }
                + settled.map { .sessionSettled($0.id, lastResult: $0.lastResult) })
    }

    /// The wall clock was set by `step` µs: every deadline moves with it,
    /// in memory and on disk. Its answer is how many handlers' deadlines moved.
    public mutating func shiftDeadlines(by step: Microseconds) -> Decision<Int> {
        let moved = sessions.shiftDeadlines(by: step)
        let fetchesMoved = fetches.shift(by: step)
        tasks.shift(by: step)
        push.shift(by: step)
        _ = transfers.shift(by: step)
        wallClockSteps += step
        let outcome = NotifydOutcome(
            writes: step == 0 ? [] : [.deadlineShift(step)], effects: fetchesMoved ? [.fetchPlanChanged] : [])
        return Decision(moved, outcome)
    }

    // MARK: Badges

    /// SetBadge: the count, or OutOfRange and no change.
    public mutating func setBadge(_ app: AppID, to count: UInt32) throws(NotifydError) -> Decision<Void> {
        Decision(badgeOutcome(try badges.set(app, to: count)))
    }

    /// IncrementBadge: the new count, or OutOfRange and no change.
    public mutating func incrementBadge(_ app: AppID, by delta: Int32) throws(NotifydError) -> Decision<UInt32> {
        let result = try badges.increment(app, by: delta)
        return Decision(result.count, badgeOutcome(result.change))
    }

    /// ClearAllBadges: how many apps had one.
    public mutating func clearAllBadges() -> Decision<Int> {
        var outcome = NotifydOutcome()
        let changes = badges.clearAll()
        for change in changes { outcome.append(badgeOutcome(change)) }
        return Decision(changes.count, outcome)
    }
}
