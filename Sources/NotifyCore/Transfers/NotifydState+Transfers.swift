/// Background transfers' operations: the transfer book's rules with the
/// session's, so that a transfer looks on the desktop exactly as a
/// worker's download does (progress events while it runs, then a
/// `finished` or `failed` event: handler, popup, sound, badge).
extension NotifydState {
    /// `Download` or `Upload`: the transfer stored, queued, and started
    /// when nothing holds it. Throws when the session belongs to another
    /// app, or past the limits.
    public mutating func addTransfer(
        _ direction: TransferRecord.Direction, app: AppID, session: SessionID, url: String, path: String,
        options: TransferOptions, conditions: TransferConditions, at now: Microseconds
    ) throws(NotifydError) -> Decision<TransferRecord> {
        if let owner = sessions.session(session)?.app, owner != app {
            throw NotifydError(
                .invalidArgs, "session '\(session)' belongs to \(owner); use a session ID of \(app)'s own")
        }
        let record = try transfers.add(direction, app: app, session: session, url: url, path: path, options: options, at: now)
        var outcome = NotifydOutcome(writes: [.transfer(record)], effects: [.transferChanged(record)])
        let plan = transfers.plan(conditions: conditions, at: now)
        outcome.append(planOutcome(plan))
        return Decision(transfers.live[record.id] ?? record, outcome)
    }

    /// `SuspendTransfer`: held, keeping what was transferred (a no-op when it is suspended).
    public mutating func suspendTransfer(
        _ id: UInt64, conditions: TransferConditions, at now: Microseconds
    ) throws(NotifydError) -> Decision<Void> {
        guard let (record, wasRunning) = try transfers.suspend(id) else { return Decision(NotifydOutcome()) }
        var outcome = NotifydOutcome(writes: [.transfer(record)], effects: [.transferChanged(record)])
        if wasRunning { outcome.effects.append(.transferStop(record, discardingPartial: false)) }
        outcome.append(planOutcome(transfers.plan(conditions: conditions, at: now)))
        return Decision(outcome)
    }

    /// `ResumeTransfer`: queued again (a no-op when it was not suspended).
    public mutating func resumeTransfer(
        _ id: UInt64, conditions: TransferConditions, at now: Microseconds
    ) throws(NotifydError) -> Decision<Void> {
        guard let record = try transfers.resume(id) else { return Decision(NotifydOutcome()) }
        var outcome = NotifydOutcome(writes: [.transfer(record)], effects: [.transferChanged(record)])
        outcome.append(planOutcome(transfers.plan(conditions: conditions, at: now)))
        return Decision(outcome)
    }

    /// `CancelTransfer`: ended `cancelled`, its partial file removed; the
    /// session gets a silent `failed` event (no popup, no badge), so that
    /// its progress ends and the app learns of it.
    public mutating func cancelTransfer(
        _ id: UInt64, conditions: TransferConditions, at now: Microseconds
    ) throws(NotifydError) -> Decision<Void> {
        let (record, wasRunning) = try transfers.cancel(id, at: now)
        var outcome = NotifydOutcome(writes: [.transfer(record)], effects: [.transferChanged(record)])
        outcome.effects.append(
            wasRunning ? .transferStop(record, discardingPartial: true) : .transferPartialRemoved(record))
        outcome.append(finalEvent(of: record, at: now))
        outcome.append(planOutcome(transfers.plan(conditions: conditions, at: now)))
        return Decision(outcome)
    }

    /// The server answered an attempt (the bytes kept, the size, what a
    /// resume will need): stored, and the session's progress.
    public mutating func transferResponded(
        _ id: UInt64, resumedFrom: UInt64, total: UInt64?, validator: String?, at now: Microseconds
    ) -> Decision<Void> {
        guard let record = transfers.responded(id, resumedFrom: resumedFrom, total: total, validator: validator, at: now)
        else { return Decision(NotifydOutcome()) }
        var outcome = NotifydOutcome(writes: [.transfer(record)], effects: [.transferChanged(record)])
        outcome.append(progressEvent(of: record, at: now))
        return Decision(outcome)
    }

    /// Bytes moved (at most twice a second): the signal and the session's
    /// progress; the transfer's row is not written for it (the partial
    /// file is what a resume reads).
    public mutating func transferProgressed(
        _ id: UInt64, done: UInt64, total: UInt64?, at now: Microseconds
    ) -> Decision<Void> {
        guard let record = transfers.progressed(id, done: done, total: total, at: now) else {
            return Decision(NotifydOutcome())
        }
        var outcome = NotifydOutcome(effects: [.transferChanged(record)])
        outcome.append(progressEvent(of: record, at: now))
        return Decision(outcome)
    }

    /// An attempt ended: completed or failed for good (the session's final
    /// event), or waiting to retry; then the next transfers start.
    public mutating func transferAttemptEnded(
        _ id: UInt64, _ end: TransferBook.AttemptEnd, conditions: TransferConditions, at now: Microseconds
    ) -> Decision<TransferRecord?> {
        let record = transfers.attemptEnded(id, end, at: now)
        var outcome = NotifydOutcome()
        if let record {
            outcome.writes.append(.transfer(record))
            outcome.effects.append(.transferChanged(record))
            if record.state == .failed { outcome.effects.append(.transferPartialRemoved(record)) }
            if record.state.hasEnded { outcome.append(finalEvent(of: record, at: now)) }
        }
        outcome.append(planOutcome(transfers.plan(conditions: conditions, at: now)))
        return Decision(record, outcome)
    }

    /// Plans the transfers again: the conditions changed (`networkReturned`:
    /// a network came back, and waits after failures end at once), or a
    /// wait is over.
    public mutating func planTransfers(
        conditions: TransferConditions, networkReturned: Bool = false, at now: Microseconds
    ) -> Decision<Void> {
        Decision(planOutcome(transfers.plan(conditions: conditions, networkReturned: networkReturned, at: now)))
    }

    private func planOutcome(_ plan: TransferBook.Plan) -> NotifydOutcome {
        var outcome = NotifydOutcome()
        for record in plan.changed {
            outcome.writes.append(.transfer(record))
            outcome.effects.append(.transferChanged(record))
        }
        outcome.effects += plan.held.map { .transferStop($0, discardingPartial: false) }
        outcome.effects += plan.started.map { .transferStart($0) }
        return outcome
    }
}
