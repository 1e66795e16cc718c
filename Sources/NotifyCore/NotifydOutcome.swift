/// What the core decided about one thing that happened: the operation's
/// answer (``value``: the handler stored, the new count, the task begun;
/// `Void` when there is none) and its ``outcome``. The one shape every
/// operation of ``NotifydState`` returns; the daemon's committer applies it
/// in one call (stores the rows, queues the effects) and hands the value
/// to the handler.
@dynamicMemberLookup
public struct Decision<Value> {
    /// The operation's answer.
    public var value: Value
    /// The rows to store and what follows the commit.
    public var outcome: NotifydOutcome

    public init(_ value: Value, _ outcome: NotifydOutcome) {
        self.value = value
        self.outcome = outcome
    }

    /// The answer's own properties, e.g. `decision.task`.
    public subscript<T>(dynamicMember path: KeyPath<Value, T>) -> T { value[keyPath: path] }

    /// The rows to store, in order.
    public var writes: [StateWrite] { outcome.writes }
    /// What follows the commit, in order.
    public var effects: [NotifydEffect] { outcome.effects }
    /// Nothing to store and nothing to do: a no-op.
    public var isEmpty: Bool { outcome.isEmpty }
}

extension Decision: Sendable where Value: Sendable {}

extension Decision where Value == Void {
    /// A decision with no answer but its outcome.
    public init(_ outcome: NotifydOutcome) {
        self.init((), outcome)
    }
}

/// What one thing that happened changed, as the core decided it: the rows
/// to store in the batch and, once the batch is committed, what must
/// follow, in order. The daemon's committer stores ``writes``; after the
/// commit it answers the calls of the batch and carries out ``effects``;
/// after a failed commit it carries out none of them.
public struct NotifydOutcome: Sendable, Hashable {
    /// The rows to store, in order.
    public var writes: [StateWrite]
    /// What follows the commit, in order.
    public var effects: [NotifydEffect]

    public init(writes: [StateWrite] = [], effects: [NotifydEffect] = []) {
        self.writes = writes
        self.effects = effects
    }

    /// Nothing to store and nothing to do: a no-op.
    public var isEmpty: Bool { writes.isEmpty && effects.isEmpty }

    /// This outcome followed by `other`.
    public mutating func append(_ other: NotifydOutcome) {
        writes += other.writes
        effects += other.effects
    }


}

/// A row (or rows) the committer stores.
public enum StateWrite: Sendable, Hashable {
    /// An app's badge count.
    case badge(BadgeChange)
    /// A session after an event, its new handler, the finished sessions forgotten.
    case event(RecordedEvent)
    /// An activation for the history; `trimming` when older ones were dropped.
    case activation(Activation, trimming: Bool)
    /// Every activation of an app, forgotten to make room for another
    /// (``AppBook/maximumApps``).
    case activationsForgotten(AppID)
    /// Handlers invoked (their rows removed), their sessions as they are
    /// now, and the finished sessions forgotten beyond
    /// ``SessionBook/finishedSessionsKept`` (their rows removed).
    case invoked([InvokedHandler], sessions: [SessionRecord], forgotten: [SessionID] = [])
    /// Every stored deadline, and each app's last fetch, moved by this
    /// many microseconds (the wall clock was set).
    case deadlineShift(Microseconds)
    /// An app's fetch schedule (interval, switch, results).
    case fetchSchedule(AppID, FetchSchedule)
    /// A fetch started, with its app's schedule.
    case fetchStarted(RunningFetch, schedule: FetchSchedule)
    /// A fetch ended: its row moves to the history (the oldest dropped
    /// beyond ``FetchBook/historyKeptPerApp``), with the app's schedule.
    case fetchEnded(EndedFetch)
    /// A UnifiedPush registration as it is now (new, renewed, its endpoint
    /// or its count changed).
    case pushRegistration(PushRegistration)
    /// A registration removed, with every message held for it.
    case pushRegistrationRemoved(PushToken)
    /// A push message held until the app's connector takes it.
    case pushMessageHeld(PushMessage)
    /// Held messages no longer held (delivered, or dropped), by ID.
    case pushMessagesReleased([UInt64])
    /// The push server set (nil: none), with its password.
    case pushServer(PushServerSettings?)
    /// The last message stored from an ntfy server (the row of the server).
    case pushServerCursor(String)
    /// A background transfer as it is now; an ended one beyond
    /// ``TransferBook/endedKept`` is forgotten by the store.
    case transfer(TransferRecord)
}

/// What the daemon carries out once the batch is committed.
public enum NotifydEffect: Sendable, Hashable {
    /// `BadgeChanged`.
    case badgeChanged(BadgeChange)
    /// What the docks' slots carry out (``DockBook``).
    case dock(DockEffect)
    /// `HandleEventsForBackgroundSession` to the running app.
    case eventRecorded(RecordedWorkerEvent)
    /// `SessionCompleted` for one invoked handler.
    case sessionCompleted(InvokedHandler)
    /// The session has no pending handler left: every `WaitForSession`
    /// call waiting for it is answered with `lastResult` (nil: `none`).
    case sessionSettled(SessionID, lastResult: HandlerResult?)
    /// `StateChanged` of the Apps interface.
    case appStateChanged(AppStateChange)
    /// `PerformFetch`, and the app woken the ways SPEC lists.
    case fetchStarted(RunningFetch)
    /// `FetchCompleted` with the app's result or `expired`.
    case fetchCompleted(FetchRecord)
    /// A schedule changed: plan the next scheduled fetch again.
    case fetchPlanChanged
    /// `BackgroundTaskExpiring`: the task's cue, `secondsLeft` before its deadline.
    case taskExpiring(BackgroundTask, secondsLeft: UInt32)
    /// `BackgroundTaskEnded`.
    case taskEnded(BackgroundTask, TaskEnding)
    /// The sleep lock must now say `why` (a new lock taken before the old
    /// one is closed), or be released (nil).
    case inhibitionChanged(why: String?)
    /// `Unregistered` to the app's connector: it asked (`confirmation`), or
    /// the user removed its registration.
    case pushUnregistered(PushRegistration, confirmation: Bool)
    /// `NewEndpoint` to the app's connector: the push server gave its
    /// registration a new endpoint.
    case pushNewEndpoint(PushRegistration)
    /// A push message is stored: the push server may forget it, and the
    /// app's connector gets `Message`.
    case pushMessageStored(PushMessage)
    /// `TransferChanged`.
    case transferChanged(TransferRecord)
    /// An attempt of the transfer to start in the engine.
    case transferStart(TransferRecord)
    /// The transfer's running attempt to stop: suspended or held (the
    /// partial file kept), or cancelled (removed).
    case transferStop(TransferRecord, discardingPartial: Bool)
    /// The partial file of a transfer not running to remove (cancelled, failed).
    case transferPartialRemoved(TransferRecord)
    /// What the desktop adapter carries out: a popup, a sound, a job, a click's action.
    case desktop(DesktopEffect)
    /// `NotificationPosted`: the server showed the popup and its sound went.
    case notificationPosted(PostedPopup)
    /// The server refused a popup for another reason than having gone:
    /// dropped, and logged with the reason.
    case popupDropped(PopupDraft, reason: String)
}

/// A worker event as recorded, for what follows it: the signal to the
/// app, the dock's progress and the popup.
public struct RecordedWorkerEvent: Sendable, Hashable {
    public let event: WorkerEvent
    public let session: SessionID
    public let app: AppID
    /// The handler stored for it; 0 when none was (a `progress` event).
    public let handlerID: UInt64
    /// The session's progress after the event (0...1), if known.
    public let sessionProgress: Double?
    /// The worker's dictionary as it was sent, for the signal to the app
    /// (the core keeps only what it decoded, and never reads this).
    public let echo: EventEcho?
    /// The app's progress over its sessions in progress, when the event is
    /// about progress (a `progress` event, or one of a session with an
    /// expected size): what docks are to show; `.some(nil)` hides it. nil
    /// when the docks need no update.
    public let appProgress: Double??

    public init(
        event: WorkerEvent, session: SessionID, app: AppID, handlerID: UInt64, sessionProgress: Double?,
        appProgress: Double??, echo: EventEcho? = nil
    ) {
        self.echo = echo
        self.event = event
        self.session = session
        self.app = app
        self.handlerID = handlerID
        self.sessionProgress = sessionProgress
        self.appProgress = appProgress
    }
}

/// Something the daemon gave with an event and wants back with its effect,
/// untouched (the worker's `a{sv}` as sent): opaque to the core, equal
/// only to itself.
public final class EventEcho: Sendable, Hashable {
    /// What the daemon gave.
    public let payload: any Sendable

    public init(_ payload: any Sendable) {
        self.payload = payload
    }

    public static func == (left: EventEcho, right: EventEcho) -> Bool { left === right }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
