import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// What the desktop reports of popups, as inputs for the core's
/// ``NotifyCore/PopupBook``.
enum PopupReport {
    /// The server showed the oldest popup sent under the key.
    case posted(PopupKey, id: UInt32, appName: String)
    /// Sending the oldest popup of the key failed.
    case failed(PopupKey, message: String)
    /// The sound notifyd played for a popup went (or not).
    case soundFinished(PopupToken, played: Bool)
}

/// The desktop side of popups, a thin adapter: carries out what the core's
/// ``NotifyCore/PopupBook`` decided (post on the GLib thread through
/// libnotify, play a sound with libcanberra, close, start a server on
/// demand, KDE Plasma's job views) and hands back what the desktop
/// reports, on the bus loop, through `report`. A click on a popup's
/// action is carried out here (``NotificationActions``): it activates the
/// app or opens the file. It decides nothing.
final class DesktopPopups {
    private let desktop: LazyDesktop
    private let sounds: SoundPlayer
    private let server: NotificationServerMonitor
    private let actions: NotificationActions
    private let jobs: PlasmaJobViews
    private let loop: EventLoop
    private let logger: Logger
    /// Where the desktop's reports go (the effect runner, into the core).
    var report: (PopupReport) -> Void = { _ in }
    /// Why a popup is dropped when libnotify cannot start (LazyDesktop
    /// says why, once).
    static let cannotStart = "the desktop side cannot start"
    /// The last sound's failure, logged as a warning once.
    private var lastSoundFailure: String?

    init(
        desktop: LazyDesktop, server: NotificationServerMonitor, actions: NotificationActions, jobs: PlasmaJobViews,
        loop: EventLoop, logger: Logger
    ) {
        self.desktop = desktop
        self.sounds = SoundPlayer(logger: logger)
        self.server = server
        self.actions = actions
        self.jobs = jobs
        self.loop = loop
        self.logger = logger
        desktop.events = desktopReported
    }

    /// Stops the sound player (the desktop side is the daemon's to stop).
    func shutDown() {
        sounds.shutDown()
    }

    /// Carries out one of the core's popup effects (`announce` and
    /// `dropped` are the effect runner's).
    func carryOut(_ effect: PopupEffect) {
        switch effect {
        case .post(_, let draft, let route, let profile):
            post(draft, route: route, profile: profile)
        case .playSound(let token, let sound):
            play(sound, token: token)
        case .close(let key):
            desktop.started?.close(Self.key(key))
        case .startServer:
            server.startOnDemand()
        case .updateJob(let job):
            var fields: [String: DBusValue] = ["title": .string(job.title), "percent": .uint32(job.percent)]
            if let written = job.bytesWritten { fields["processedBytes"] = .uint64(written) }
            if let expected = job.bytesExpected { fields["totalBytes"] = .uint64(expected) }
            jobs.update(session: job.session.rawValue, desktopEntry: job.app.rawValue, fields: fields)
        case .endJob(let session, let failed):
            jobs.end(session: session.rawValue, failed: failed)
        case .forgetJobs:
            jobs.forgetAll()
        case .announce, .dropped:
            break
        }
    }

    /// Sends a popup as `profile`'s server must get it: actions only where
    /// it has them, the body escaped where it reads markup, the sound hint
    /// of `route`, the `value` hint only where it is drawn.
    private func post(_ draft: PopupDraft, route: SoundRoute, profile: NotificationServerProfile) {
        let key = Self.key(draft.key)
        guard let notifier = desktop.running else {
            report(.failed(draft.key, message: Self.cannotStart))
            return
        }
        let request = NotificationRequest(
            key: key, appID: draft.app.rawValue, summary: draft.summary,
            body: profile.readsBodyMarkup ? MarkupText.escaped(draft.body) : draft.body,
            category: draft.category, soundHint: Self.hint(route.hint),
            withActions: draft.withActions && profile.hasActions, openPath: draft.openPath,
            progress: profile.drawsProgress ? draft.progress : nil, transient: draft.transient)
        if request.withActions { actions.remember(ActionTarget(app: draft.app, path: request.openPath), for: key) }
        notifier.post(request)
    }

    private static func hint(_ sound: SoundRequest?) -> SoundHint? {
        switch sound {
        case .named(let name)?: .name(name)
        case .file(let path)?: .file(path)
        case .silent?: .suppress
        case nil: nil
        }
    }

    private func play(_ sound: SoundRequest, token: PopupToken) {
        guard let hint = Self.hint(sound) else { return }
        // The outcome arrives on the GLib thread: hop back to the bus loop.
        let bound = LoopBound(WeakReference(self), loop: loop)
        sounds.play(hint) { outcome in
            bound.execute { $0.value?.soundPlayed(token, outcome) }
        }
    }

    private func soundPlayed(_ token: PopupToken, _ outcome: SoundOutcome) {
        switch outcome {
        case .played:
            lastSoundFailure = nil
            report(.soundFinished(token, played: true))
        case .failed(let message):
            // Said once; the same cause again (no sound device) is routine.
            if message == lastSoundFailure {
                logger.debug("cannot play a sound with libcanberra: \(message)")
            } else {
                logger.warning("cannot play a sound with libcanberra: \(message)")
            }
            lastSoundFailure = message
            report(.soundFinished(token, played: false))
        }
    }

    /// What the GLibDesktop reports, brought to the bus loop (the
    /// adapter held weakly, so that the notifier's thread does not keep it
    /// alive).
    private var desktopReported: @Sendable (DesktopEvent) -> Void {
        let bound = LoopBound(WeakReference(self), loop: loop)
        return { event in bound.execute { $0.value?.handle(event) } }
    }

    private func handle(_ event: DesktopEvent) {
        switch event {
        case .posted(let key, let id, let appName):
            guard let key = Self.key(key) else { return }
            report(.posted(key, id: id, appName: appName))
        case .failed(let key, let message):
            guard let key = Self.key(key) else { return }
            report(.failed(key, message: message))
        case .actionInvoked(let key, let action, let activationToken):
            guard actions.clicked(action, on: key, activationToken: activationToken, notifier: desktop.started)
            else { return }
            // Done with: lxqt-notificationd leaves a popup up after its
            // action ran; servers that closed it already ignore this.
            desktop.started?.close(key)
        case .closed(let key, _):
            actions.forget(key)
        }
    }

    private static func key(_ key: PopupKey) -> NotificationKey {
        NotificationKey(app: key.app.rawValue, slot: key.slot)
    }

    private static func key(_ key: NotificationKey) -> PopupKey? {
        guard let app = try? AppID(key.app) else { return nil }
        return PopupKey(app: app, slot: key.slot)
    }
}

/// A reference that does not keep its object alive.
final class WeakReference<Object: AnyObject> {
    weak var value: Object?
    init(_ value: Object) { self.value = value }
}
