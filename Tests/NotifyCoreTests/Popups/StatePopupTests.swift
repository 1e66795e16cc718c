import NotifyCore
import Testing

/// The popups as operations of the state: an event decides its popup in
/// the same call that stores it, rendered for the server in use (every
/// quirk applied), and what the desktop reports comes back as inputs.
@Suite struct StatePopupTests {
    let app = try! AppID("org.example.Downloads")
    let session = try! SessionID("dl-1")
    static let second: Microseconds = 1_000_000
    static let dunst = NotificationServerProfile(
        name: "dunst", vendor: "knopwob", version: "1.9.0", capabilities: ["actions", "body", "body-markup"])
    static let bare = NotificationServerProfile(name: "bare", vendor: "x", version: "1", capabilities: ["body"])
    static let xfce = NotificationServerProfile(
        name: "Xfce Notify Daemon", vendor: "Xfce", version: "0.8", capabilities: ["actions", "body", "body-markup"])

    func state(_ server: NotificationServerProfile?) -> NotifydState {
        var state = NotifydState()
        _ = state.notificationServerChanged(to: server, at: 0)
        return state
    }

    static func requests(_ effects: [NotifydEffect]) -> [PopupRequest] {
        effects.compactMap { if case .desktop(.post(_, let request)) = $0 { request } else { nil } }
    }

    @Test func anEventsPopupIsDecidedWithItAndRenderedForTheServer() throws {
        var state = state(Self.dunst)
        let decision = try state.recordEvent(
            WorkerEvent(title: "a <b> & c.iso", path: "/tmp/a.iso"), session: session, app: app, at: 5 * Self.second)
        let request = try #require(Self.requests(decision.outcome.effects).first)
        #expect(request.body == "a &lt;b&gt; &amp; c.iso", "dunst reads markup: the body is escaped")
        #expect(request.withActions && request.openPath == "/tmp/a.iso")
        #expect(request.soundHint == nil, "dunst plays no sound: notifyd does")
        #expect(decision.outcome.effects.contains { if case .desktop(.playSound) = $0 { true } else { false } })
    }

    @Test func aServerWithoutMarkupOrActionsGetsNeither() throws {
        var state = state(Self.bare)
        let decision = try state.recordEvent(WorkerEvent(title: "a <b>"), session: session, app: app, at: 0)
        let request = try #require(Self.requests(decision.outcome.effects).first)
        #expect(request.body == "a <b>" && !request.withActions)
        #expect(state.popupTargets.count == 0, "no action to remember")
    }

    @Test func progressGoesOnlyToAServerThatDrawsIt() throws {
        for (server, draws) in [(Self.xfce, true), (Self.dunst, true), (Self.bare, false)] {
            var state = state(server)
            let decision = try state.recordEvent(
                WorkerEvent(kind: .progress, title: "big.iso", bytesWritten: 50, bytesExpected: 100),
                session: session, app: app, at: 0)
            let request = Self.requests(decision.outcome.effects).first
            #expect((request?.progress != nil) == draws, "\(server.name): \(decision.outcome.effects)")
        }
    }

    @Test func aPopupWaitsForAServerAndIsPostedWhenOneAppears() throws {
        var state = state(nil)
        let decision = try state.recordEvent(WorkerEvent(title: "x"), session: session, app: app, at: 0)
        #expect(Self.requests(decision.outcome.effects).isEmpty)
        #expect(decision.outcome.effects.last == .desktop(.startServer))
        let appeared = state.notificationServerChanged(to: Self.dunst, at: Self.second)
        #expect(Self.requests(appeared.outcome.effects).map(\.summary) == ["Download complete"])
    }

    @Test func thePostedReportAndTheSoundAnnounceItOnce() throws {
        var state = state(Self.dunst)
        let decision = try state.recordEvent(WorkerEvent(title: "x"), session: session, app: app, at: 0)
        guard case .desktop(.post(let token, let request))? = decision.outcome.effects.first(where: {
            if case .desktop(.post) = $0 { true } else { false }
        }) else {
            Issue.record("no post: \(decision.outcome.effects)")
            return
        }
        #expect(state.popupPosted(request.key, id: 9, appName: "Downloads").outcome.effects.isEmpty, "the sound is pending")
        let announced = state.popupSoundFinished(token, played: true).outcome.effects
        guard case .notificationPosted(let posted)? = announced.first else {
            Issue.record("\(announced)")
            return
        }
        #expect(posted.notificationID == 9 && posted.soundBackend == "canberra")
    }

    @Test func clickingThePopupActivatesTheAppResetsItsBadgeAndLaunchesIt() throws {
        var state = state(Self.dunst)
        let decision = try state.recordEvent(WorkerEvent(title: "x", path: "/tmp/x"), session: session, app: app, at: 0)
        let key = try #require(Self.requests(decision.outcome.effects).first).key
        #expect(state.badges[app] == 1)
        let click = state.popupActionInvoked("default", on: key, activationToken: "t", by: ":1.7", at: Self.second)
        #expect(click.value)
        #expect(state.badges[app] == 0 && state.apps.state(of: app) == .active)
        #expect(click.outcome.writes.contains { if case .activation = $0 { true } else { false } })
        #expect(click.outcome.effects.suffix(2) == [.desktop(.launchApp(app, activationToken: "t")), .desktop(.close(key))])
        let open = state.popupActionInvoked("open", on: key, activationToken: nil, by: ":1.7", at: Self.second)
        #expect(open.outcome.effects == [.desktop(.openPath("/tmp/x", activationToken: nil)), .desktop(.close(key))])
        #expect(!state.popupActionInvoked("bogus", on: key, activationToken: nil, by: ":1.7", at: 0).value)
        _ = state.popupClosed(key)
        #expect(!state.popupActionInvoked("default", on: key, activationToken: nil, by: ":1.7", at: 0).value,
                "a closed popup acts on nothing")
    }

    @Test func thePopupsTimersAreElapsedTimeAcrossAStepOfTheWallClock() throws {
        var state = state(Self.dunst)
        // A progress popup shown, the next update held back for half a second.
        for written in [10, 20] as [UInt64] {
            _ = try state.recordEvent(
                WorkerEvent(kind: .progress, bytesWritten: written, bytesExpected: 100), session: session, app: app,
                at: 10 * Self.second)
        }
        let due = try #require(state.nextDeadline)
        #expect(due > 10 * Self.second && due <= 11 * Self.second)
        // The wall clock set an hour forward: the held update is due an hour later on the wall clock.
        _ = state.shiftDeadlines(by: 3_600 * Self.second)
        #expect(state.nextDeadline == due + 3_600 * Self.second)
        #expect(!state.popupsDue(at: due).outcome.effects.contains { if case .desktop(.post) = $0 { true } else { false } })
        #expect(state.popupsDue(at: due + 3_600 * Self.second).outcome.effects.contains {
            if case .desktop(.post) = $0 { true } else { false }
        })
    }
}
