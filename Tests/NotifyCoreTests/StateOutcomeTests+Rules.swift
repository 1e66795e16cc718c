import NotifyCore
import Testing

/// The rules behind the outcomes: a handler's deadline, a badge that stops
/// at the maximum, a refused event, each report of `active`.
extension StateOutcomeTests {
    @Test func anEventsHandlerHasThirtySecondsAndItsBadgeIsCounted() throws {
        var state = NotifydState()
        let decision = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 10)
        #expect(decision.recorded.handler?.deadline == 10 + 30 * Self.second)
        #expect(decision.badge == BadgeChange(app: app, old: 0, new: 1))
        #expect(state.badges[app] == 1)
        #expect(decision.progress == nil, "no size, not a progress event: the docks need nothing")
    }

    /// An event is never refused for its badge: the count stops at the maximum.
    @Test func anEventsBadgeStopsAtTheMaximum() throws {
        var state = NotifydState()
        _ = try state.badges.set(app, to: BadgeBook.maximum - 1)
        let decision = try state.recordEvent(WorkerEvent(badge: 5), session: session, app: app, at: 0)
        #expect(decision.recorded.handler != nil)
        #expect(decision.badge?.new == BadgeBook.maximum)
        let again = try state.recordEvent(WorkerEvent(badge: 5), session: session, app: app, at: 1)
        #expect(again.badge == nil, "already at the maximum: no change")
        #expect(state.sessions.pendingCount == 2)
    }

    @Test func aRefusedEventChangesNoBook() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 0)
        let other = try AppID("org.example.Other")
        #expect(throws: NotifydError.self) { try state.recordEvent(WorkerEvent(), session: session, app: other, at: 1) }
        #expect(state.badges[other] == 0)
        #expect(state.sessions.pendingCount == 1)
    }

    /// As on iOS: every report of `active` is an activation; the badge is
    /// reset once per change.
    @Test func everyReportOfActiveIsAnActivationTheBadgeResetOnce() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(badge: 3), session: session, app: app, at: 0)
        let active = try state.reportAppState(.active, for: app, by: ":1.5", at: 100)
        #expect(active.report.activation == Activation(app: app, at: 100))
        #expect(active.badge == BadgeChange(app: app, old: 3, new: 0))
        let again = try state.reportAppState(.active, for: app, by: ":1.5", at: 200)
        #expect(again.report.activation != nil)
        #expect(again.badge == nil, "the badge is 0 already")
        let background = try state.reportAppState(.background, for: app, by: ":1.5", at: 300)
        #expect(background.badge == nil && background.report.activation == nil)
    }
}
