import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// The desktop side of popups, a thin adapter: carries out what the core
/// decided (``NotifyCore/DesktopEffect``: post on the GLib thread through
/// libnotify, play a sound with libcanberra, close, start a server on
/// demand, KDE Plasma's job views, launch an app or open a file after a
/// click, through GIO and never a shell) and hands back what the desktop
/// reports, on the bus loop, as ``DesktopReport``s. It decides nothing:
/// every quirk of the server is already in the request.
final class DesktopPopups {
    private let desktop: LazyDesktop
    private let sounds: SoundPlayer
    private let server: NotificationServerMonitor
    private let jobs: PlasmaJobViews
    private let loop: EventLoop
    private let logger: Logger
    /// Where the desktop's reports go (into the core).
    private let report: (DesktopReport) -> Void
    /// Why a popup fails when libnotify cannot start (LazyDesktop says why, once).
    static let cannotStart = "the desktop side cannot start"
    /// The last sound's failure, logged as a warning once.
    private var lastSoundFailure: String?

    init(
        desktop: LazyDesktop, server: NotificationServerMonitor, jobs: PlasmaJobViews, loop: EventLoop, logger: Logger,
        report: @escaping (DesktopReport) -> Void
    ) {
        self.desktop = desktop
        self.sounds = SoundPlayer(logger: logger)
        self.server = server
        self.jobs = jobs
        self.loop = loop
        self.logger = logger
        self.report = report
        desktop.events = desktopReported
    }

    private func post(_ request: PopupRequest) {
        guard let notifier = desktop.running else {
            report(.failed(request.key, message: Self.cannotStart))
            return
        }
        notifier.post(
            NotificationRequest(
                key: Self.key(request.key), appID: request.app.rawValue, summary: request.summary, body: request.body,
                category: request.category, soundHint: Self.hint(request.soundHint), withActions: request.withActions,
                openPath: request.openPath, progress: request.progress, transient: request.transient))
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

    /// What the GLibDesktop reports, brought to the bus loop (the adapter
    /// held weakly, so that the notifier's thread does not keep it alive).
    private var desktopReported: @Sendable (DesktopEvent) -> Void {
        let bound = LoopBound(WeakReference(self), loop: loop)
        return { event in bound.execute { $0.value?.handle(event) } }
    }

    private func handle(_ event: DesktopEvent) {
        switch event {
        case .posted(let key, let id, let appName):
            Self.key(key).map { report(.posted($0, id: id, appName: appName)) }
        case .failed(let key, let message):
            Self.key(key).map { report(.failed($0, message: message)) }
        case .actionInvoked(let key, let action, let activationToken):
            Self.key(key).map { report(.actionInvoked($0, action: action, activationToken: activationToken)) }
        case .closed(let key, _):
            Self.key(key).map { report(.closed($0)) }
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

extension DesktopPopups: PopupDesktop {
    func carryOut(_ effect: DesktopEffect) {
        switch effect {
        case .post(_, let request):
            post(request)
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
        case .launchApp(let app, let activationToken):
            let logger = self.logger
            desktop.running?.launchApp(app.rawValue, activationToken: activationToken) { outcome in
                if case .failed(let message) = outcome { logger.warning("\(message)") }
            }
        case .openPath(let path, let activationToken):
            let logger = self.logger
            desktop.running?.openPath(path, activationToken: activationToken) { outcome in
                if case .failed(let message) = outcome { logger.warning("\(message)") }
            }
        }
    }

    /// Stops the sound player (the GLib side is the daemon's to stop).
    func shutDown() {
        sounds.shutDown()
    }
}

/// A reference that does not keep its object alive.
final class WeakReference<Object: AnyObject> {
    weak var value: Object?
    init(_ value: Object) { self.value = value }
}
