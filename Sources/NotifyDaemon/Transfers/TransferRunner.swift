import DBus
import Logging
import NotifyCore
import NotifyTransfer

/// Carries the core's transfer decisions to the engine and the engine's
/// reports back to the core. It decides nothing: the book says what
/// starts, stops and waits; the engine (libcurl on a thread of its own,
/// started at the first transfer) moves the bytes and reports each
/// attempt's answer, progress and end, which come back here on the loop.
///
/// The network and power come from the fetch scheduler's readings (GIO's
/// monitors, started when the first transfer is asked for); until the
/// first reading, transfers wait.
final class TransferRunner {
    private let committer: Committer
    private let loop: EventLoop
    private let clock: any DaemonClock
    private let scheduler: FetchScheduler
    private let partialFiles: StoreWriter
    private let logger: Logger
    private weak var connection: DBusConnection?
    private var engine: TransferEngine?
    /// What the system says now; nil until the first reading.
    private(set) var known: TransferConditions?
    private var following = false

    init(
        committer: Committer, loop: EventLoop, clock: any DaemonClock, scheduler: FetchScheduler,
        partialFiles: StoreWriter, connection: DBusConnection?, logger: Logger
    ) {
        self.connection = connection
        self.committer = committer
        self.loop = loop
        self.clock = clock
        self.scheduler = scheduler
        self.partialFiles = partialFiles
        self.logger = logger
    }

    /// The conditions to plan with: until the first reading, nothing starts
    /// ("waiting for a network").
    var conditions: TransferConditions { known ?? TransferConditions(networkAvailable: false) }

    /// At start-up: transfers left from before follow the system again.
    func start() {
        if !committer.current.transfers.live.isEmpty { followSystem() }
    }

    /// A transfer was asked for: the system is followed from now on.
    func followSystem() {
        guard !following else { return }
        following = true
        scheduler.follow { [weak self] reading in self?.conditionsChanged(to: reading) }
    }

    private func conditionsChanged(to reading: FetchConditions) {
        let conditions = TransferConditions(
            networkAvailable: reading.networkAvailable, networkMetered: reading.networkMetered,
            powerSaver: reading.powerSaver, onBattery: reading.onBattery)
        guard conditions != known else { return }
        let networkReturned = known.map { !$0.networkAvailable } ?? false && conditions.networkAvailable
        known = conditions
        if networkReturned { engine?.networkChanged() }
        let now = clock.now()
        committer.apply { $0.planTransfers(conditions: conditions, networkReturned: networkReturned, at: now) }
    }

    /// Handled on the loop with every deadline: retries whose wait is over,
    /// transfers whose start time came.
    func runDue(at now: Microseconds) {
        guard let wake = committer.current.transfers.nextWake, wake <= now else { return }
        let conditions = self.conditions
        committer.apply { $0.planTransfers(conditions: conditions, at: now) }
    }

    // MARK: Effects

    func start(_ record: TransferRecord) {
        let attempt = TransferAttempt(
            id: record.id, direction: record.direction == .download ? .download : .upload, url: record.url,
            path: record.path, headers: record.options.headers, method: record.options.method,
            validator: record.validator, sha256: record.options.sha256, overwrite: record.options.overwrite)
        guard let engine = runningEngine() else {
            let conditions = self.conditions
            let now = clock.now()
            committer.apply {
                $0.transferAttemptEnded(
                    record.id, .retry(reason: "notifyd cannot start its transfer thread", retryAfter: nil),
                    conditions: conditions, at: now)
            }
            return
        }
        logger.info("transfer \(record.id) of \(record.app): attempt \(record.attempts) of \(record.direction.rawValue) \(record.displayURL)")
        engine.start(attempt)
    }

    func stop(_ record: TransferRecord, discardingPartial: Bool) {
        engine?.stop(id: record.id, discardingPartial: discardingPartial)
    }

    /// Removes the partial file of a transfer not running, on the writer's
    /// thread (the loop never waits for the disk).
    func removePartial(_ record: TransferRecord) {
        guard record.direction == .download else { return }
        let (path, id) = (record.path, record.id)
        partialFiles.perform({ _ in TransferEngine.removePartial(for: path, id: id) }) { _ in }
    }

    /// Wakes the app of a transfer that ended (completed or failed), as iOS
    /// launches an app for `handleEventsForBackgroundURLSession`:
    /// `org.freedesktop.Application.ActivateAction("background-session",
    /// [<session_id>], {})` on its bus name, which D-Bus activation starts
    /// when the app is not running (a `DBusActivatable` GApplication). An
    /// app without that action still has the signal, the popup and the
    /// handler; its refusal is logged at debug level only.
    func wake(_ record: TransferRecord) {
        let app = record.app.rawValue
        guard let connection else { return }
        do {
            let message = try DBusMessage.methodCall(
                destination: app, path: FetchWaker.objectPath(of: app), interface: "org.freedesktop.Application",
                member: "ActivateAction",
                arguments: [
                    .string("background-session"), .array(element: .variant, [.variant(.string(record.session.rawValue))]),
                    .vardict([:]),
                ])
            let logger = self.logger
            try connection.callAsync(message, timeoutMilliseconds: FetchWaker.callTimeoutMilliseconds) { result in
                if case .failure(let error) = result {
                    logger.debug("transfer \(record.id): ActivateAction(background-session) on \(app): \(error)")
                } else {
                    logger.info("transfer \(record.id): \(app) took ActivateAction(background-session)")
                }
            }
        } catch {
            logger.debug("transfer \(record.id): cannot wake \(app): \(error)")
        }
    }

    /// Ends the engine's thread (at shutdown): running attempts stop,
    /// their partial files kept for the next start.
    func shutDown() {
        engine?.shutdown()
        engine = nil
    }

    private func runningEngine() -> TransferEngine? {
        if let engine { return engine }
        let runner = LoopBound(WeakReference(self), loop: loop)
        let made = TransferEngine { event in runner.execute { $0.value?.engineReported(event) } }
        engine = made
        return made
    }

    private func engineReported(_ event: TransferEngineEvent) {
        let now = clock.now()
        switch event {
        case .responded(let id, let resumedFrom, let total, let validator):
            committer.apply {
                $0.transferResponded(id, resumedFrom: resumedFrom, total: total, validator: validator, at: now)
            }
        case .progress(let id, let done, let total):
            committer.apply { $0.transferProgressed(id, done: done, total: total, at: now) }
        case .ended(let id, let end):
            let conditions = self.conditions
            let ended = committer.apply { $0.transferAttemptEnded(id, Self.attemptEnd(end), conditions: conditions, at: now) }
            if let ended, ended.state.hasEnded || ended.state == .waiting {
                logger.info("transfer \(id) of \(ended.app): \(ended.state.rawValue): \(ended.reason)")
            }
        }
    }

    private static func attemptEnd(_ end: TransferAttemptEnd) -> TransferBook.AttemptEnd {
        switch end {
        case .completed(let path, let bytes): .completed(path: path, bytes: bytes)
        case .retry(let reason, let after):
            .retry(reason: reason, retryAfter: after.map { Microseconds($0.components.seconds) * 1_000_000 })
        case .failed(let reason): .failed(reason: reason)
        case .stopped: .stopped
        }
    }
}
