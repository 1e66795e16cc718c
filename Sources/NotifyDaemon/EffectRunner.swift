import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// Carries out, after a commit, what the core decided must follow it, in
/// the order decided: the signals, the docks' slots, the popups and what a
/// click asks for (through the desktop adapter), and the answers to calls
/// waiting for a session. It is the one emitter of notifyd's signals: the
/// committer hands it every effect of a committed batch. It decides
/// nothing, and never asks the core.
final class EffectRunner {
    private let emitter: SignalEmitter
    private let launcher: LauncherEntryPublisher
    private let waiters: SessionWaiters
    private let scheduler: FetchScheduler
    private let waker: FetchWaker?
    private let sleepLock: SleepLockDemands
    private let logger: Logger
    /// The desktop side of popups (libnotify, or a recording desktop).
    private let desktop: any PopupDesktop
    /// Announces property changes of the Daemon interface.
    private let propertiesChanged: (_ names: [String]) -> Void
    private let connectors: ConnectorCaller?
    private let push: PushConnection?
    private let transfers: TransferRunner?

    init(
        emitter: SignalEmitter, launcher: LauncherEntryPublisher, desktop: any PopupDesktop, waiters: SessionWaiters,
        scheduler: FetchScheduler, waker: FetchWaker?, sleepLock: SleepLockDemands, logger: Logger,
        connectors: ConnectorCaller? = nil, push: PushConnection? = nil, transfers: TransferRunner? = nil,
        propertiesChanged: @escaping (_ names: [String]) -> Void
    ) {
        self.connectors = connectors
        self.push = push
        self.transfers = transfers
        self.sleepLock = sleepLock
        self.logger = logger
        self.emitter = emitter
        self.launcher = launcher
        self.desktop = desktop
        self.waiters = waiters
        self.scheduler = scheduler
        self.waker = waker
        self.propertiesChanged = propertiesChanged
    }

    /// Carries out one effect of a committed batch.
    func carryOut(_ effect: NotifydEffect) {
        switch effect {
        case .badgeChanged(let change):
            emitter.emit(
                NotifydNames.badgesInterface, "BadgeChanged", [.string(change.app.rawValue), .uint32(change.new)])
        case .dock(let dock):
            launcher.carryOut(dock)
        case .eventRecorded(let recorded):
            let echo = recorded.echo?.payload as? DBusValue
            emitter.emit(
                NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
                [.string(recorded.session.rawValue), .string(recorded.app.rawValue), .uint64(recorded.handlerID),
                 echo ?? .dictionary(key: .string, value: .variant, [])])
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
            sleepLock.tasksWant(why)
        case .pushUnregistered(let registration, let confirmation):
            push?.removed(registration)
            connectors?.unregistered(registration, confirmation: confirmation)
        case .pushNewEndpoint(let registration):
            connectors?.newEndpoint(registration)
        case .pushMessageStored(let message):
            push?.stored(message)
        case .transferChanged(let record):
            emitter.emit(
                NotifydNames.transfersInterface, "TransferChanged",
                [.uint64(record.id), .string(record.app.rawValue), .string(record.session.rawValue),
                 .string(record.state.rawValue), .vardict(TransferService.details(record))])
            if record.state == .completed || record.state == .failed { transfers?.wake(record) }
        case .transferStart(let record):
            transfers?.start(record)
        case .transferStop(let record, let discardingPartial):
            transfers?.stop(record, discardingPartial: discardingPartial)
        case .transferPartialRemoved(let record):
            transfers?.removePartial(record)
        case .desktop(let effect):
            desktop.carryOut(effect)
        case .notificationPosted(let posted):
            announce(posted)
        case .popupDropped(let draft, let reason) where reason == DesktopPopups.cannotStart:
            // Said once, as an error, when the desktop side failed to start.
            logger.debug("cannot post a notification for \(draft.app): \(reason)")
        case .popupDropped(let draft, let reason):
            logger.warning("cannot post a notification for \(draft.app): \(reason)")
        }
    }

    /// The Daemon interface's properties of the notification server changed.
    func serverPropertiesChanged() {
        propertiesChanged(DaemonService.serverProperties)
    }

    /// `Inhibiting` changed.
    func inhibitingChanged() {
        propertiesChanged(["Inhibiting"])
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
        desktop.shutDown()
    }
}
