import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// Carries out, after a commit, what the core decided must follow it, in
/// the order decided: the signals, the docks' counts and progress, the
/// popups, and the answers to calls waiting for a session. It is the one
/// emitter of notifyd's signals: the committer hands it every effect of a
/// committed batch, and the popups' effects come to it from the core's
/// ``NotifyCore/PopupBook`` (which it asks, with the elapsed time, what
/// each event, each report of the desktop and each popup timer brings).
final class EffectRunner {
    private let emitter: SignalEmitter
    private let launcher: LauncherEntryPublisher?
    private let waiters: SessionWaiters
    private let scheduler: FetchScheduler
    private let waker: FetchWaker?
    private let inhibitor: SleepInhibitor?
    private let clock: any DaemonClock
    private let logger: Logger
    /// The popups, decided by the core.
    private(set) var popups = PopupBook()
    /// The desktop side of popups; nil in an embedded daemon, where every
    /// popup is dropped when it would be sent.
    private let desktop: DesktopPopups?
    /// Announces property changes of the Daemon interface (set by the daemon once its object exists).
    var propertiesChanged: (_ names: [String]) -> Void = { _ in }

    init(
        emitter: SignalEmitter, launcher: LauncherEntryPublisher?, desktop: DesktopPopups?, waiters: SessionWaiters,
        scheduler: FetchScheduler, waker: FetchWaker?, inhibitor: SleepInhibitor?, clock: any DaemonClock,
        logger: Logger
    ) {
        self.inhibitor = inhibitor
        self.logger = logger
        self.emitter = emitter
        self.launcher = launcher
        self.desktop = desktop
        self.waiters = waiters
        self.scheduler = scheduler
        self.waker = waker
        self.clock = clock
        desktop?.report = { [unowned self] in popupReported($0) }
    }

    /// Carries out one effect of a committed batch.
    func carryOut(_ effect: NotifydEffect) {
        switch effect {
        case .badgeChanged(let change):
            emitter.emit(
                NotifydNames.badgesInterface, "BadgeChanged", [.string(change.app.rawValue), .uint32(change.new)])
            launcher?.setCount(change.new, for: change.app)
        case .eventRecorded(let recorded):
            let echo = recorded.echo?.payload as? DBusValue
            emitter.emit(
                NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
                [.string(recorded.session.rawValue), .string(recorded.app.rawValue), .uint64(recorded.handlerID),
                 echo ?? .dictionary(key: .string, value: .variant, [])])
            if let progress = recorded.appProgress { launcher?.setProgress(progress, for: recorded.app) }
            decidePopups { $0.eventRecorded(recorded, at: $1) }
        case .sessionCompleted(let item):
            emitter.emit(
                NotifydNames.sessionsInterface, "SessionCompleted",
                [.string(item.handler.session.rawValue), .string(item.handler.app.rawValue), .uint64(item.handler.id),
                 .string(item.result.rawValue)])
        case .sessionSettled(let session, let lastResult):
            waiters.answer(session, with: lastResult)
        case .appStateChanged(let change):
            emitter.emit(
                NotifydNames.appsInterface, "StateChanged", [.string(change.app.rawValue), .string(change.new.rawValue)])
        case .fetchStarted(let fetch):
            emitter.emit(
                NotifydNames.fetchInterface, "PerformFetch",
                [.string(fetch.app.rawValue), .uint64(fetch.id), .int64(fetch.deadline)])
            waker?.wake(fetch)
        case .fetchCompleted(let record):
            emitter.emit(
                NotifydNames.fetchInterface, "FetchCompleted",
                [.string(record.app.rawValue), .uint64(record.id), .string(record.result.rawValue)])
        case .fetchPlanChanged:
            scheduler.planChanged()
        case .taskExpiring(let task, let secondsLeft):
            emitter.emit(
                NotifydNames.tasksInterface, "BackgroundTaskExpiring",
                [.uint64(task.id), .string(task.app.rawValue), .uint32(secondsLeft)])
        case .taskEnded(let task, let ending):
            if ending != .ended {
                logger.notice(
                    "background task \(task.id) '\(task.name)' of \(task.app) \(ending == .expired ? "expired: it was not ended within its time" : "was abandoned: the connection that began it left the bus without ending it")")
            }
            emitter.emit(
                NotifydNames.tasksInterface, "BackgroundTaskEnded",
                [.uint64(task.id), .string(task.app.rawValue), .string(ending.rawValue)])
        case .inhibitionChanged(let why):
            inhibitor?.want(why)
        }
    }

    // MARK: Popups

    /// The notification server changed (or left): the core decides what
    /// follows for the popups, and the Daemon interface announces it.
    func serverChanged(to profile: NotificationServerProfile?) {
        decidePopups { $0.serverChanged(to: profile, at: $1) }
        propertiesChanged(DaemonService.serverProperties)
    }

    /// The popups' timers: what is due now.
    func popupsDue() {
        decidePopups { $0.wake(at: $1) }
    }

    /// When the popups next need ``popupsDue()``, in elapsed µs.
    var nextPopupWake: Microseconds? { popups.nextWake }

    private func popupReported(_ report: PopupReport) {
        switch report {
        case .posted(let key, let id, let appName): decidePopups { book, _ in book.posted(key, id: id, appName: appName) }
        case .failed(let key, let message): decidePopups { $0.postFailed(key, message: message, at: $1) }
        case .soundFinished(let token, let played): decidePopups { book, _ in book.soundFinished(token, played: played) }
        }
    }

    /// Asks the popup book (with the elapsed time) and carries out what it
    /// decided. An embedded daemon has no desktop side, and no popups.
    private func decidePopups(_ decide: (inout PopupBook, Microseconds) -> [PopupEffect]) {
        guard let desktop else { return }
        for effect in decide(&popups, clock.elapsed()) {
            switch effect {
            case .announce(let posted):
                announce(posted)
            case .dropped(let draft, let reason) where reason == DesktopPopups.cannotStart:
                // Said once, as an error, when the desktop side failed to start.
                logger.debug("cannot post a notification for \(draft.app): \(reason)")
            case .dropped(let draft, let reason):
                logger.warning("cannot post a notification for \(draft.app): \(reason)")
            default:
                desktop.carryOut(effect)
            }
        }
    }

    private func announce(_ posted: PostedPopup) {
        let draft = posted.draft
        emitter.emit(
            NotifydNames.sessionsInterface, "NotificationPosted",
            [
                .string(draft.app.rawValue), .string(draft.session.rawValue), .uint32(posted.notificationID),
                .vardict([
                    "summary": .string(draft.summary), "body": .string(draft.body),
                    "sound-backend": .string(posted.soundBackend), "merged": .uint32(UInt32(draft.merged)),
                    "kind": .string(draft.kind.rawValue), "app-name": .string(posted.appName),
                ]),
            ])
    }

    /// Stops the desktop side of popups (at shutdown).
    func shutDown() {
        desktop?.shutDown()
    }
}
