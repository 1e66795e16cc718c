import DBus
import Logging
import NotifyCore
import NotifyDesktop

/// Carries out, after a commit, what the core decided must follow it, in
/// the order decided: the signals, the docks' counts and progress, the
/// popups, and the answers to calls waiting for a session. The committer
/// hands it every effect of a committed batch; nothing else emits.
final class EffectRunner {
    private let emitter: SignalEmitter
    private let launcher: LauncherEntryPublisher?
    private let notifications: NotificationDispatcher?
    private let waiters: SessionWaiters
    private let scheduler: FetchScheduler
    private let waker: FetchWaker?
    private let inhibitor: SleepInhibitor?
    private let logger: Logger

    init(
        emitter: SignalEmitter, launcher: LauncherEntryPublisher?, notifications: NotificationDispatcher?,
        waiters: SessionWaiters, scheduler: FetchScheduler, waker: FetchWaker?, inhibitor: SleepInhibitor?,
        logger: Logger
    ) {
        self.inhibitor = inhibitor
        self.logger = logger
        self.emitter = emitter
        self.launcher = launcher
        self.notifications = notifications
        self.waiters = waiters
        self.scheduler = scheduler
        self.waker = waker
    }

    /// Carries out one effect; `echo` is the worker's dictionary as sent,
    /// for an event.
    func carryOut(_ effect: NotifydEffect, echo: DBusValue?) {
        switch effect {
        case .badgeChanged(let change):
            emitter.emit(
                NotifydNames.badgesInterface, "BadgeChanged", [.string(change.app.rawValue), .uint32(change.new)])
            launcher?.setCount(change.new, for: change.app)
        case .eventRecorded(let recorded):
            emitter.emit(
                NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
                [.string(recorded.session.rawValue), .string(recorded.app.rawValue), .uint64(recorded.handlerID),
                 echo ?? .dictionary(key: .string, value: .variant, [])])
            if let progress = recorded.appProgress { launcher?.setProgress(progress, for: recorded.app) }
            notifications?.eventRecorded(
                recorded.event, session: recorded.session, app: recorded.app, handlerID: recorded.handlerID,
                progress: recorded.sessionProgress)
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
}

/// The `WaitForSession` calls waiting for sessions to have no pending
/// handler, answered when the core says one has settled.
final class SessionWaiters {
    private var calls: [SessionID: [DBusMethodCall]] = [:]

    /// Keeps `call` until `session` settles.
    func wait(_ call: DBusMethodCall, for session: SessionID) {
        calls[session, default: []].append(call)
    }

    /// Answers every call waiting for `session` with its last result.
    func answer(_ session: SessionID, with lastResult: HandlerResult?) {
        guard let waiting = calls.removeValue(forKey: session) else { return }
        for call in waiting { call.reply([.string(lastResult?.rawValue ?? "none")]) }
    }

    /// A connection left the bus: its waiting calls can never be answered.
    func callerLeft(_ name: String) {
        for (session, waiting) in calls {
            let remaining = waiting.filter { call in
                guard call.sender == name else { return true }
                call.abandon()
                return false
            }
            calls[session] = remaining.isEmpty ? nil : remaining
        }
    }
}
