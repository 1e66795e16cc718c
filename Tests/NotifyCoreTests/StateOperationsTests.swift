import NotifyCore
import Testing

/// The rules that span the books, decided in one place with a fake clock.
@Suite struct StateOperationsTests {
    let app = try! AppID("org.example.App")
    let session = try! SessionID("s")

    @Test func anEventStoresItsHandlerAndAddsItsBadge() throws {
        var state = NotifydState()
        let outcome = try state.recordEvent(WorkerEvent(), session: session, app: app, at: 10)
        let deadline: Microseconds? = outcome.recorded.handler?.deadline
        #expect(deadline == Microseconds(10 + 30 * 1_000_000))
        #expect(outcome.badge == BadgeChange(app: app, old: 0, new: 1))
        #expect(state.badges[app] == 1)
        #expect(outcome.progress == nil, "no size, not a progress event")
    }

    /// An event is never refused for its badge: the count stops at the maximum.
    @Test func anEventsBadgeStopsAtTheMaximum() throws {
        var state = NotifydState()
        _ = try state.badges.set(app, to: BadgeBook.maximum - 1)
        let outcome = try state.recordEvent(WorkerEvent(badge: 5), session: session, app: app, at: 0)
        #expect(outcome.recorded.handler != nil)
        #expect(outcome.badge?.new == BadgeBook.maximum)
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

    @Test func progressIsReportedForDocks() throws {
        var state = NotifydState()
        let outcome = try state.recordEvent(
            WorkerEvent(kind: .progress, bytesWritten: 25, bytesExpected: 100), session: session, app: app, at: 0)
        #expect(outcome.progress == .some(0.25))
        #expect(outcome.badge == nil, "progress adds no badge")
    }

    /// As on iOS: the app becoming active resets its badge, once per change.
    @Test func becomingActiveResetsTheBadge() throws {
        var state = NotifydState()
        _ = try state.recordEvent(WorkerEvent(badge: 3), session: session, app: app, at: 0)
        let active = state.reportAppState(.active, for: app, by: ":1.5", at: 100)
        #expect(active.report.activation == Activation(app: app, at: 100))
        #expect(active.badge == BadgeChange(app: app, old: 3, new: 0))
        let again = state.reportAppState(.active, for: app, by: ":1.5", at: 200)
        #expect(again.report.activation != nil, "every report of active is an activation")
        #expect(again.badge == nil, "the badge is 0 already")
        let background = state.reportAppState(.background, for: app, by: ":1.5", at: 300)
        #expect(background.badge == nil && background.report.activation == nil)
    }
}
