/// The popups as operations of the core, like every other input: an event
/// decides its popup in ``recordEvent(_:session:app:echo:at:)``; what the
/// desktop reports (posted, failed, a sound's end, the server appearing or
/// leaving, a click, a popup closed) and the popups' timers come here. Each
/// returns the effects to carry out, every quirk of the server in use
/// already applied (``PopupRequest``); nothing here is stored.
extension NotifydState {
    /// The popups' time for wall-clock `now`: the clock's steps taken out.
    func popupTime(_ now: Microseconds) -> Microseconds { now - wallClockSteps }

    /// The popup book's effects as the daemon carries them out: a post
    /// rendered for its server (and its actions' target remembered).
    mutating func decidePopups(_ effects: [PopupEffect]) -> [NotifydEffect] {
        effects.map { effect -> NotifydEffect in
            switch effect {
            case .post(let token, let draft, let route, let profile):
                let request = PopupRequest(draft, route: route, profile: profile)
                if request.withActions { popupTargets.remember(request) }
                return .desktop(.post(token, request))
            case .desktop(let effect): return .desktop(effect)
            case .announce(let posted): return .notificationPosted(posted)
            case .dropped(let draft, let reason): return .popupDropped(draft, reason: reason)
            }
        }
    }

    private mutating func popupDecision(_ effects: [PopupEffect]) -> Decision<Void> {
        Decision(NotifydOutcome(effects: decidePopups(effects)))
    }

    /// The notification server changed to `profile`, or left (nil): what
    /// waited goes to the new one; with none, one is started on demand.
    public mutating func notificationServerChanged(
        to profile: NotificationServerProfile?, at now: Microseconds
    ) -> Decision<Void> {
        popupDecision(popups.serverChanged(to: profile, at: popupTime(now)))
    }

    /// The server showed the oldest popup sent under `key` as `id`.
    public mutating func popupPosted(_ key: PopupKey, id: UInt32, appName: String) -> Decision<Void> {
        popupDecision(popups.posted(key, id: id, appName: appName))
    }

    /// Sending the oldest popup of `key` failed with `message`.
    public mutating func popupPostFailed(_ key: PopupKey, message: String, at now: Microseconds) -> Decision<Void> {
        popupDecision(popups.postFailed(key, message: message, at: popupTime(now)))
    }

    /// The sound notifyd played for `token` went (or not).
    public mutating func popupSoundFinished(_ token: PopupToken, played: Bool) -> Decision<Void> {
        popupDecision(popups.soundFinished(token, played: played))
    }

    /// The popups' timers: held progress, summary updates, a retry.
    public mutating func popupsDue(at now: Microseconds) -> Decision<Void> {
        popupDecision(popups.wake(at: popupTime(now)))
    }

    /// The server closed the popup of `key`: its actions act on nothing now.
    public mutating func popupClosed(_ key: PopupKey) -> Decision<Void> {
        popupTargets.forget(key)
        return Decision(NotifydOutcome())
    }

    /// What a click on `action` of the popup `key` brings (SPEC "Apps",
    /// "Notifications"): the default action activates the app, which
    /// counts as `DidBecomeActive` by `owner` (notifyd's own connection),
    /// and launches it; `open` opens the event's file. Either way the popup
    /// is closed (a server that leaves it up after its action ran). Its
    /// answer is false when notifyd knows nothing of that popup or action.
    public mutating func popupActionInvoked(
        _ action: String, on key: PopupKey, activationToken: String?, by owner: String, at now: Microseconds
    ) -> Decision<Bool> {
        guard let target = popupTargets[key] else { return Decision(false, NotifydOutcome()) }
        var outcome = NotifydOutcome()
        switch action {
        case "default":
            // The app is launched even when its state cannot be kept (every
            // app known has a state): only the activation is lost then.
            if let report = try? reportAppState(.active, for: target.app, by: owner, at: now) {
                outcome.append(report.outcome)
            }
            outcome.effects.append(.desktop(.launchApp(target.app, activationToken: activationToken)))
        case "open":
            if let path = target.path { outcome.effects.append(.desktop(.openPath(path, activationToken: activationToken))) }
        default:
            return Decision(false, NotifydOutcome())
        }
        outcome.effects.append(.desktop(.close(key)))
        return Decision(true, outcome)
    }
}
