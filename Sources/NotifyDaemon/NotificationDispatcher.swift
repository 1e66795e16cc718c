import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// Turns recorded events into desktop notifications.
///
/// Decides, on the bus thread, what each popup says (NotificationContent),
/// whether a flood merges it (FloodGate), how its sound is played (the
/// server's `sound` capability, else libcanberra), and whether it must
/// wait for a server; the DesktopNotifier posts it on the GLib thread and
/// reports back. `NotificationPosted` goes out once both the server's ID
/// and the sound's outcome are known.
final class NotificationDispatcher {
    static let queuedPerApp = 100

    private let desktop: LazyDesktop
    private let sounds: SoundPlayer
    private let server: NotificationServerMonitor
    private let actions: NotificationActions
    private let emitter: SignalEmitter
    private let loop: EventLoop
    private let clock: any DaemonClock
    private let logger: Logger
    private var flood = FloodGate()
    private var popups: [UInt64: Popup] = [:]
    private var awaitingPost: [NotificationKey: [UInt64]] = [:]
    private var waitingForServer: [AppID: [UInt64]] = [:]
    private var nextToken: UInt64 = 1
    /// Progress popups and flood summaries, posted through ``submit(_:)``.
    private(set) lazy var progress = ProgressNotifications(loop: loop, clock: clock, jobs: jobs) { [weak self] in
        self?.submit($0)
    }
    private let jobs: PlasmaJobViews
    private lazy var summaries = SummaryUpdates(loop: loop, clock: clock) { [weak self] in self?.submit($0) }

    /// The dispatcher owns the desktop side (started on the first popup)
    /// and the sound player; a click on a default action is reported to
    /// `apps` as the app becoming active.
    init(
        server: NotificationServerMonitor, apps: AppService, emitter: SignalEmitter, loop: EventLoop,
        clock: any DaemonClock, jobs: PlasmaJobViews, logger: Logger
    ) {
        self.jobs = jobs
        self.desktop = LazyDesktop(logger: logger)
        self.sounds = SoundPlayer(logger: logger)
        self.server = server
        self.actions = NotificationActions(apps: apps, logger: logger)
        self.emitter = emitter
        self.loop = loop
        self.clock = clock
        self.logger = logger
    }

    /// The desktop notifier, started on first use; what it reports comes
    /// back to ``handle(_:)`` on the bus loop (the dispatcher held weakly,
    /// so that the notifier's thread does not keep it alive).
    private var notifier: DesktopNotifier? {
        let bound = LoopBound(WeakReference(self), loop: loop)
        return desktop.running { event in bound.execute { $0.value?.handle(event) } }
    }

    /// Stops the desktop side and the sound player (at shutdown).
    func shutDown() {
        desktop.shutDown()
        sounds.shutDown()
    }

    /// A committed event: post its popup, merge it, or update its progress.
    func eventRecorded(
        _ event: WorkerEvent, session: SessionID, app: AppID, handlerID: UInt64, progress fraction: Double?
    ) {
        if event.kind == .progress {
            progress.update(event, fraction: fraction, session: session, app: app, server: server.server)
            return
        }
        progress.end(session: session, app: app, failed: event.kind == .failed) { [desktop] key in
            desktop.started?.close(key)
        }
        guard let content = NotificationContent.forEvent(event) else { return }
        let now = clock.elapsed()  // the flood window is an interval
        var request = NotificationRequest(
            key: NotificationKey(app: app.rawValue, slot: handlerID > 0 ? "handler:\(handlerID)" : "event:\(nextToken)"),
            appID: app.rawValue, summary: content.summary, body: content.body, category: content.category,
            soundHint: nil, withActions: true, openPath: content.openPath,
            progress: nil, transient: false)
        guard case .merged(let summary) = flood.admit(app: app, kind: event.kind, title: event.title, at: now) else {
            submit(Popup(request: request, app: app, session: session, kind: event.kind, merged: 0, sound: content.sound))
            return
        }
        request.key = NotificationKey(app: app.rawValue, slot: "burst:\(summary.burst)")
        request.summary = summary.summary
        request.body = summary.body
        request.openPath = nil
        // One sound per burst (its first popups had theirs); updates coalesced.
        summaries.offer(
            Popup(request: request, app: app, session: session, kind: event.kind, merged: summary.merged, sound: .silent),
            settleFirst: server.server?.profile.losesQueuedReplacements ?? false)
    }

    /// Posts a popup now, or keeps it (the newest 100 per app) until a
    /// notification server appears; one that D-Bus can start is started.
    private func submit(_ popup: Popup) {
        let token = nextToken
        nextToken += 1
        popups[token] = popup
        guard server.server != nil else {
            var queue = waitingForServer[popup.app, default: []]
            queue.append(token)
            if queue.count > Self.queuedPerApp { popups[queue.removeFirst()] = nil }
            waitingForServer[popup.app] = queue
            server.startOnDemand()
            return
        }
        post(token)
    }

    /// Sends a popup to the server as this server needs it (see
    /// ``Popup/rendered(for:route:)``); its sound is routed once, on the
    /// first attempt, so a popup held across a restart is not heard twice.
    private func post(_ token: UInt64) {
        guard var popup = popups[token], let profile = server.server?.profile else { return }
        let route = popup.route ?? profile.route(popup.sound)
        if popup.route == nil {
            popup.route = route
            if let sound = route.playedByNotifyd {
                play(sound, token: token)
            } else {
                popup.soundBackend = route.serverBackend
            }
        }
        popups[token] = popup
        guard let notifier else {
            popups[token] = nil
            return
        }
        let request = popup.rendered(for: profile, route: route)
        if request.withActions { actions.remember(ActionTarget(app: popup.app, path: request.openPath), for: request.key) }
        awaitingPost[request.key, default: []].append(token)
        notifier.post(request)
    }

    private func play(_ sound: SoundRequest, token: UInt64) {
        let hint: SoundHint =
            switch sound {
            case .named(let name): .name(name)
            case .file(let path): .file(path)
            case .silent: .suppress
            }
        // The outcome arrives on the GLib thread: hop back to the bus loop.
        let bound = LoopBound(self, loop: loop)
        sounds.play(hint) { outcome in
            bound.execute { $0.soundFinished(token, outcome) }
        }
    }

    /// The last sound's failure, logged as a warning once.
    private var lastSoundFailure: String?

    private func soundFinished(_ token: UInt64, _ outcome: SoundOutcome) {
        guard popups[token] != nil else { return }
        switch outcome {
        case .played:
            popups[token]?.soundBackend = "canberra"
            lastSoundFailure = nil
        case .failed(let message):
            // Said once; the same cause again (no sound device) is routine.
            if message == lastSoundFailure {
                logger.debug("cannot play a sound with libcanberra: \(message)")
            } else {
                logger.warning("cannot play a sound with libcanberra: \(message)")
            }
            lastSoundFailure = message
            popups[token]?.soundBackend = "failed"
        }
        announceIfComplete(token)
    }

    // MARK: What the desktop reports

    /// Handles what the DesktopNotifier reports, on the bus loop.
    func handle(_ event: DesktopEvent) {
        switch event {
        case .posted(let key, let id, let appName):
            guard let token = takeAwaiting(key) else { return }
            popups[token]?.notificationID = id
            popups[token]?.appName = appName
            announceIfComplete(token)
        case .failed(let key, let message):
            guard let token = takeAwaiting(key), let popup = popups[token] else { return }
            // The server may have just left: the failure can reach the loop
            // before the bus's NameOwnerChanged does. Such a popup waits for
            // the next server instead of being dropped.
            guard server.server == nil || Self.meansNoServer(message) else {
                logger.warning("cannot post a notification for \(popup.app): \(message)")
                popups[token] = nil
                return
            }
            waitingForServer[popup.app, default: []].insert(token, at: 0)
            if server.server != nil { scheduleRetry() } else { server.startOnDemand() }
        case .actionInvoked(let key, let action, let activationToken):
            guard actions.clicked(action, on: key, activationToken: activationToken, notifier: notifier) else { return }
            // Done with: lxqt-notificationd leaves a popup up after its
            // action ran; servers that closed it already ignore this.
            desktop.started?.close(key)
        case .closed(let key, _):
            actions.forget(key)
        }
    }

    /// Wakes `app` for a background fetch through GIO; `completion` runs
    /// on the bus loop. Without a desktop side, the signal alone wakes it.
    func wakeForFetch(
        _ app: AppID, environment: [(String, String)], completion: @escaping (FetchWakeRoute) -> Void
    ) {
        guard let notifier else {
            completion(.signalOnly("the desktop side is not running"))
            return
        }
        let bound = LoopBound(completion, loop: loop)
        notifier.wakeForFetch(app.rawValue, environment: environment) { route in bound.execute { $0(route) } }
    }

    private func takeAwaiting(_ key: NotificationKey) -> UInt64? {
        guard var tokens = awaitingPost[key], !tokens.isEmpty else { return nil }
        let token = tokens.removeFirst()
        awaitingPost[key] = tokens.isEmpty ? nil : tokens
        return token
    }

    private func announceIfComplete(_ token: UInt64) {
        guard let popup = popups[token], let id = popup.notificationID, let backend = popup.soundBackend else { return }
        popups[token] = nil
        emitter.emit(
            NotifydNames.sessionsInterface, "NotificationPosted",
            [
                .string(popup.app.rawValue), .string(popup.session.rawValue), .uint32(id),
                .vardict([
                    "summary": .string(popup.request.summary), "body": .string(popup.request.body),
                    "sound-backend": .string(backend), "merged": .uint32(UInt32(popup.merged)),
                    "kind": .string(popup.kind.rawValue), "app-name": .string(popup.appName ?? popup.app.rawValue),
                ]),
            ])
    }

    /// Failures that mean there is no server to take the popup.
    static func meansNoServer(_ message: String) -> Bool {
        ["ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected", "NoServer", "not running"]
            .contains { message.contains($0) }
    }

    private var retryTimer: EventLoop.TimerID?

    /// The monitor still sees a server that refused for want of one: try
    /// again in a second (by then the owner change is known).
    private func scheduleRetry() {
        guard retryTimer == nil else { return }
        retryTimer = loop.scheduleTimer(afterNanoseconds: 1_000_000_000) { [weak self] in
            self?.retryTimer = nil
            self?.serverChanged()
        }
    }

    /// A notification server appeared (or changed): post what waited. One
    /// that left with popups still waiting is started again on demand.
    func serverChanged() {
        jobs.forgetAll()
        guard server.server != nil else {
            if !waitingForServer.isEmpty { server.startOnDemand() }
            return
        }
        let waiting = waitingForServer
        waitingForServer.removeAll()
        for app in waiting.keys.sorted() {
            for token in waiting[app] ?? [] { post(token) }
        }
    }
}

/// A reference that does not keep its object alive.
final class WeakReference<Object: AnyObject> {
    weak var value: Object?
    init(_ value: Object) { self.value = value }
}
