/// The rules that span badges, sessions and apps, one operation per thing
/// that can happen. Each is a function of the state, its input and the
/// time, and returns everything that changed, for the daemon to store and
/// announce; none does I/O. The daemon never combines the books itself.
extension NotifydState {
    /// What a worker event changed: its session and handler, and the
    /// app's badge.
    public struct EventOutcome: Sendable, Hashable {
        /// The handler stored, the session after the event, the sessions forgotten.
        public let recorded: RecordedEvent
        /// The app's badge after the event's `badge` delta; nil when it did not change.
        public let badge: BadgeChange?
        /// The app's progress over its sessions in progress, when the event
        /// is about progress (a `progress` event, or one of a session with
        /// an expected size): what docks are to show. nil otherwise.
        public let progress: Double??
    }

    /// A worker event for `session` of `app` at `now` (SPEC "Sessions"):
    /// stores its handler, and adds its badge delta, which never makes the
    /// event refused: the count stops at ``BadgeBook/maximum``. Throws (and
    /// changes nothing) when the session belongs to another app or the
    /// limits are reached.
    public mutating func recordEvent(
        _ event: WorkerEvent, session: SessionID, app: AppID, at now: Microseconds
    ) throws(NotifydError) -> EventOutcome {
        let recorded = try sessions.record(event, session: session, app: app, at: now)
        var badge: BadgeChange?
        if event.badge != 0 {
            let room = Int64(BadgeBook.maximum) - Int64(badges[app])
            let delta = Int32(clamping: min(Int64(event.badge), room))
            badge = try? badges.increment(app, by: delta).change
        }
        let showsProgress = event.kind == .progress || recorded.session.bytesExpected != nil
        return EventOutcome(
            recorded: recorded, badge: badge, progress: showsProgress ? .some(sessions.progress(of: app)) : nil)
    }

    /// What an app's state report changed.
    public struct AppOutcome: Sendable, Hashable {
        /// The state change and the activation recorded.
        public let report: AppStateReport
        /// The badge reset by becoming active; nil when it was 0 already.
        public let badge: BadgeChange?
    }

    /// Connection `owner` reported `state` for `app` at `now` (the Apps
    /// interface, or a click on the app's notification): becoming active
    /// records an activation and resets the app's badge, as on iOS.
    public mutating func reportAppState(
        _ state: AppState, for app: AppID, by owner: String, at now: Microseconds
    ) -> AppOutcome {
        let report = apps.report(state, for: app, by: owner, at: now)
        var badge: BadgeChange?
        if report.activation != nil { badge = try? badges.set(app, to: 0) }
        return AppOutcome(report: report, badge: badge)
    }
}
