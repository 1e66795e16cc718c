import NotifyCore
import Testing

/// What each operation of the state decides: the rows to store and the
/// effects that follow the commit, in order; and time, given by hand
/// (asleep, or the wall clock set back and forward).
@Suite struct StateOutcomeTests {
    let app = try! AppID("org.example.App")
    let session = try! SessionID("s")
    static let second: Microseconds = 1_000_000
    static let hour: Microseconds = 3_600 * second

    @Test func anEventStoresItsRowsThenAnnouncesTheBadgeAndTheEvent() throws {
        var state = NotifydState()
        let result = try state.recordEvent(WorkerEvent(badge: 2), session: session, app: app, at: 10)
        let badge = BadgeChange(app: app, old: 0, new: 2)
        #expect(result.outcome.writes == [.event(result.recorded), .badge(badge)])
        let recorded = RecordedWorkerEvent(
            event: WorkerEvent(badge: 2), session: session, app: app, handlerID: try #require(result.recorded.handler).id,
            sessionProgress: nil, appProgress: nil)
        // Then its popup: with no server known yet, it waits and one is started.
        #expect(result.outcome.effects == [.badgeChanged(badge), .eventRecorded(recorded), .desktop(.startServer)])
        #expect(state.popups.waitingCount(of: app) == 1)
    }

    @Test func aProgressEventStoresNoHandlerAndShowsProgress() throws {
        var state = NotifydState()
        let result = try state.recordEvent(
            WorkerEvent(kind: .progress, bytesWritten: 1, bytesExpected: 4), session: session, app: app, at: 0)
        guard case .eventRecorded(let recorded)? = result.outcome.effects.last else {
            Issue.record("no event effect: \(result.outcome.effects)")
            return
        }
        #expect(recorded.handlerID == 0)
        #expect(recorded.appProgress == .some(0.25))
        #expect(recorded.sessionProgress == 0.25)
        #expect(!result.outcome.effects.contains { if case .badgeChanged = $0 { true } else { false } })
    }

    @Test func completingInvokesEveryHandlerThenSettlesTheSession() throws {
        var state = NotifydState()
        let first = try #require(try state.recordEvent(WorkerEvent(), session: session, app: app, at: 0).recorded.handler)
        let second = try #require(try state.recordEvent(WorkerEvent(), session: session, app: app, at: 1).recorded.handler)
        let completion = try state.completeSession(session, result: .completed, at: 2)
        #expect(completion.value == 2)
        let invoked = [first, second].map { InvokedHandler(handler: $0, result: .completed) }
        #expect(completion.outcome.writes == [.invoked(invoked, sessions: [try #require(state.sessions.session(session))])])
        #expect(
            completion.outcome.effects == invoked.map { .sessionCompleted($0) }
                + [.sessionSettled(session, lastResult: .completed)])
        let again = try state.completeSession(session, result: .completed, at: 3)
        #expect(again.value == 0 && again.outcome.isEmpty, "nothing pending: a no-op")
    }

    @Test func completingAnUnknownSessionChangesNothing() throws {
        var state = NotifydState()
        #expect(throws: NotifydError.self) { try state.completeSession(session, result: .cancelled, at: 0) }
        #expect(state == NotifydState())
    }

    /// A session with a handler still pending is not settled by the expiry of another.
    @Test func anExpiryLeavingAHandlerPendingDoesNotSettleTheSession() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 0)
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 20 * Self.second)
        let outcome = state.expireHandlers(at: 31 * Self.second)
        #expect(outcome.effects.count == 1)
        guard case .sessionCompleted(let item)? = outcome.effects.first else {
            Issue.record("\(outcome.effects)")
            return
        }
        #expect(item.result == .expired)
        let rest = state.expireHandlers(at: 51 * Self.second)
        #expect(rest.effects.last == .sessionSettled(session, lastResult: .expired))
    }

    /// Time asleep counts: a deadline that passed while the machine slept
    /// expires at the first look after resume, once.
    @Test func aDeadlinePassedWhileAsleepExpiresOnceAtResume() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 0)
        #expect(state.expireHandlers(at: 29 * Self.second).isEmpty)
        let resumed = state.expireHandlers(at: Self.hour)  // slept an hour
        #expect(resumed.effects.count == 2, "completed, then settled: \(resumed.effects)")
        #expect(state.expireHandlers(at: Self.hour + 1).isEmpty)
        #expect(state.sessions.nextDeadline == nil, "nothing left to wake for")
    }

    /// The wall clock set back an hour: the deadline moves with it, so the
    /// handler still expires 30 s after it was stored, not an hour later.
    @Test func aClockSetBackMovesTheDeadlineWithIt() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 10 * Self.hour)
        let shift = state.shiftDeadlines(by: -Self.hour)
        #expect(shift.value == 1)
        #expect(shift.outcome.writes == [.deadlineShift(-Self.hour)])
        let now = 9 * Self.hour  // the same moment, on the clock as set
        #expect(state.expireHandlers(at: now + 29 * Self.second).isEmpty)
        #expect(state.expireHandlers(at: now + 30 * Self.second).effects.count == 2)
    }

    /// Set forward an hour: the handler does not expire at once.
    @Test func aClockSetForwardMovesTheDeadlineWithIt() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 10 * Self.hour)
        _ = state.shiftDeadlines(by: Self.hour)
        let now = 11 * Self.hour
        #expect(state.expireHandlers(at: now + 1).isEmpty, "not an hour early")
        #expect(state.expireHandlers(at: now + 30 * Self.second).effects.count == 2)
    }

    @Test func noStepStoresNothing() {
        var state = NotifydState()
        #expect(state.shiftDeadlines(by: 0).outcome.isEmpty)
    }

    @Test func becomingActiveStoresTheActivationThenResetsTheBadge() throws {
        var state = NotifydState()
        _ = try state.setBadge(app, to: 4)
        let result = try state.reportAppState(.active, for: app, by: ":1.9", at: 50)
        let reset = BadgeChange(app: app, old: 4, new: 0)
        #expect(result.outcome.writes == [.activation(Activation(app: app, at: 50), trimming: false), .badge(reset)])
        #expect(
            result.outcome.effects == [
                .badgeChanged(reset), .appStateChanged(AppStateChange(app: app, old: .notRunning, new: .active)),
            ])
    }

    @Test func anOwnerLeavingStopsItsAppsAndStoresNothing() throws {
        var state = NotifydState()
        _ = try state.reportAppState(.background, for: app, by: ":1.9", at: 0)
        let outcome = state.ownerLeft(":1.9")
        #expect(outcome.writes.isEmpty)
        #expect(outcome.effects == [.appStateChanged(AppStateChange(app: app, old: .background, new: .notRunning))])
        #expect(state.ownerLeft(":1.9").isEmpty)
    }

    @Test func badgeOperationsAnnounceRealChangesOnly() throws {
        var state = NotifydState()
        #expect(try state.setBadge(app, to: 0).isEmpty, "0 to 0 is a no-op")
        let set = try state.setBadge(app, to: 3)
        #expect(set.effects == [.badgeChanged(BadgeChange(app: app, old: 0, new: 3))])
        let increment = try state.incrementBadge(app, by: -5)
        #expect(increment.value == 0)
        #expect(increment.outcome.writes == [.badge(BadgeChange(app: app, old: 3, new: 0))])
        #expect(throws: NotifydError.self) { try state.setBadge(app, to: BadgeBook.maximum + 1) }
        _ = try state.setBadge(app, to: 1)
        let cleared = state.clearAllBadges()
        #expect(cleared.value == 1 && cleared.outcome.effects.count == 1)
        #expect(state.clearAllBadges().outcome.isEmpty)
    }
}
