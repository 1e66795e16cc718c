import DBus
import NotifyCore
import NotifyDesktop

/// One transient notification per session in progress, with the `value`
/// hint, updated in place at most twice a second; the session's finished
/// or failed event closes it.
///
/// Only servers known to draw the `value` hint get these (the
/// specification has no capability for it: see
/// ``NotificationServerProfile/drawsProgress``); on KDE Plasma the session
/// is a job of Plasma's own instead (``PlasmaJobViews``), as KDE's downloads
/// are; others show progress on the dock through the LauncherEntry only.
final class ProgressNotifications {
    private let loop: EventLoop
    private let clock: any DaemonClock
    private var throttle = ProgressThrottle()
    private var latest: [SessionID: (app: AppID, event: WorkerEvent, fraction: Double)] = [:]
    private var timers: [SessionID: EventLoop.TimerID] = [:]
    private var shown: Set<SessionID> = []
    /// Sessions shown as Plasma jobs rather than popups.
    private var asJobs: Set<SessionID> = []
    private let jobs: PlasmaJobViews
    private let post: (NotificationDispatcher.Popup) -> Void

    init(
        loop: EventLoop, clock: any DaemonClock, jobs: PlasmaJobViews,
        post: @escaping (NotificationDispatcher.Popup) -> Void
    ) {
        self.loop = loop
        self.clock = clock
        self.jobs = jobs
        self.post = post
    }

    /// A progress event; `fraction` is the session's progress so far.
    func update(
        _ event: WorkerEvent, fraction: Double?, session: SessionID, app: AppID, server: NotificationServerMonitor.Server?
    ) {
        guard let profile = server?.profile, profile.drawsProgress || profile.showsTransfersAsJobs, let fraction
        else { return }
        if profile.showsTransfersAsJobs { asJobs.insert(session) }
        latest[session] = (app, event, fraction)
        let now = clock.elapsed()
        switch throttle.offer(session: session, at: now) {
        case .now:
            show(session)
        case .later(let at):
            let delay = UInt64(max(0, at - now)) * 1_000
            timers[session] = loop.scheduleTimer(afterNanoseconds: delay) { [weak self] in
                guard let self else { return }
                self.timers[session] = nil
                self.throttle.flushed(session: session, at: self.clock.elapsed())
                self.show(session)
            }
        case .alreadyScheduled:
            break
        }
    }

    private func show(_ session: SessionID) {
        guard let (app, event, fraction) = latest[session] else { return }
        let percent = Int32((fraction * 100).rounded(.down))
        if asJobs.contains(session) {
            var fields: [String: DBusValue] = [
                "title": .string(event.title ?? "Downloading"), "percent": .uint32(UInt32(percent)),
            ]
            if let written = event.bytesWritten { fields["processedBytes"] = .uint64(written) }
            if let expected = event.bytesExpected { fields["totalBytes"] = .uint64(expected) }
            jobs.update(session: session.rawValue, desktopEntry: app.rawValue, fields: fields)
            return
        }
        let request = NotificationRequest(
            key: Self.key(session, app), appID: app.rawValue,
            summary: event.summary ?? event.title ?? "Downloading", body: event.body ?? "\(percent)%",
            category: "transfer", soundHint: nil, withActions: false, openPath: nil,
            progress: percent, transient: true)
        shown.insert(session)
        post(NotificationDispatcher.Popup(
            request: request, app: app, session: session, kind: .progress, merged: 0, sound: .silent))
    }

    /// The session finished or failed: stop updating and close its popup
    /// (or end its job).
    func end(session: SessionID, app: AppID, failed: Bool, close: (NotificationKey) -> Void) {
        throttle.end(session: session)
        if latest[session] != nil, asJobs.contains(session) {
            show(session)  // the last progress the throttle held back
            jobs.end(session: session.rawValue, failed: failed)
        }
        latest[session] = nil
        asJobs.remove(session)
        if let timer = timers.removeValue(forKey: session) { loop.cancelTimer(timer) }
        if shown.remove(session) != nil { close(Self.key(session, app)) }
    }

    static func key(_ session: SessionID, _ app: AppID) -> NotificationKey {
        NotificationKey(app: app.rawValue, slot: "progress:\(session.rawValue)")
    }
}
