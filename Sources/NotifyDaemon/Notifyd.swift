import DBus
public import Logging
import Glibc
import NotifyCore
import NotifyDesktop
import NotifyStore

/// The running daemon: one event loop owns the bus connection, the state
/// and every service; start-up registers the object before it requests
/// the bus name, and shutdown leaves nothing uncommitted.
///
/// Built once, in ``init(configuration:logger:clock:)``, with arrows that
/// run one way and nothing wired afterwards: the interfaces own their
/// services; a service decodes and authorizes a call and applies the
/// core's decision (`NotifydState`'s operations) through the
/// ``Committer``, which commits on a thread of its own (``StoreWriter``);
/// after each commit the ``EffectRunner`` carries the
/// effects out (signals, the docks' slots, the desktop's popups, waiting
/// calls). What the desktop reports comes back to the core as inputs
/// (``DesktopInputs``). One timer follows every deadline
/// (``followDeadlines()``). The parts with a life of their own are one
/// group (``DaemonParts``), started in order and stopped in reverse.
public final class Notifyd {
    let configuration: DaemonConfiguration
    let logger: Logger
    let clock: any DaemonClock
    let loop: EventLoop
    let connection: DBusConnection
    let committer: Committer
    let serverMonitor: NotificationServerMonitor
    let callers: CallerCheck
    let effects: EffectRunner
    let sessions: SessionService
    let tasks: TaskService
    let apps: AppService
    let deadlines: DeadlineTimer
    let fetchScheduler: FetchScheduler
    let object: DBusObject
    /// The UnifiedPush distributor, at `/org/unifiedpush/Distributor`.
    let distributor: DBusObject
    /// Its push server's connection.
    let pushConnection: PushConnection
    let transferRunner: TransferRunner
    /// An embedded daemon's desktop (nil otherwise).
    let recording: RecordingDesktop?
    /// What the desktop reports, handed to the core.
    let inputs: DesktopInputs
    /// The parts with a life of their own, in the order they start.
    private(set) var parts: DaemonParts!
    /// Commits rows applied when convenient that no other batch took
    /// (``Committer/applyWhenConvenient(_:)``); nil when none wait.
    private var waitingRowsTimer: EventLoop.TimerID?

    /// Opens the state, connects to the bus, exports the object and takes
    /// the bus name. `clock` is where the daemon reads the time and arms
    /// its deadlines (a test harness passes one it moves by hand).
    ///
    /// - Throws: ``StartupError`` with a code, and a message for the person starting it.
    public init(
        configuration: DaemonConfiguration, logger: Logger, clock: any DaemonClock = SystemClock()
    ) throws(StartupError) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        if !configuration.embedded, let limits = DescriptorLimit.raiseToHardLimit(), limits.after != limits.before {
            logger.debug("raised the descriptor limit from \(limits.before) to \(limits.after)")
        }
        do {
            loop = try EventLoop()
        } catch {
            throw StartupError(.eventLoop, "cannot create the event loop: \(error.message)")
        }
        let store: StateStore
        do {
            store = try StateStore(directory: configuration.stateDirectory)
        } catch {
            throw Self.stateError(error, configuration.stateDirectory)
        }
        let writer: StoreWriter
        do {
            writer = try StoreWriter(store: store, owner: loop, logger: logger)
        } catch {
            throw StartupError(.eventLoop, "cannot start the thread that writes the state: \(error.message)")
        }
        do {
            committer = try Committer(
                store: store, writer: writer, dockSlots: configuration.launcherEntryLimit, logger: logger)
        } catch {
            throw Self.stateError(error, configuration.stateDirectory)
        }
        do {
            connection = try DBusConnection.connect(to: configuration.bus, private: true, logger: logger)
            try connection.attach(to: loop)
        } catch {
            throw StartupError(
                .bus, "cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set? "
                    + "Outside a desktop session, `dbus-run-session notifyd` starts a bus of its own")
        }
        if !configuration.embedded, case .address(let address) = configuration.bus {
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)  // libnotify's own connection goes to the same bus
        }
        let ownName = connection.uniqueName ?? NotifydNames.busName
        let emitter = SignalEmitter(connection: connection, path: NotifydNames.objectPath)
        let inputs = DesktopInputs(committer: committer, clock: clock, ownName: ownName, logger: logger)
        self.inputs = inputs
        let launcher = LauncherEntryPublisher(bus: configuration.bus, loop: loop, logger: logger, report: inputs.slotReported)
        serverMonitor = NotificationServerMonitor(connection: connection, loop: loop, logger: logger)
        do {
            callers = try CallerCheck(bus: configuration.bus, loop: loop, clock: clock, logger: logger)
        } catch {
            throw StartupError(.callerIdentification, "cannot start identifying bus connections: \(error.message)")
        }
        let waiters = SessionWaiters()
        // The GLib side (libnotify, GIO), started on first use; an embedded
        // daemon records what it would post instead.
        let recording = configuration.embedded ? (configuration.recordingDesktop ?? RecordingDesktop()) : nil
        self.recording = recording
        let glib: LazyDesktop?
        let popups: any PopupDesktop
        if let recording {
            recording.attach(loop: loop, report: inputs.desktopReported)
            (glib, popups) = (nil, recording)
        } else {
            let lazy = LazyDesktop(logger: logger)
            glib = lazy
            popups = DesktopPopups(
                desktop: lazy, server: serverMonitor,
                jobs: PlasmaJobViews(connection: connection, logger: logger) { [launcher] in launcher.republishAll() },
                loop: loop, logger: logger, report: inputs.desktopReported)
        }
        let daemonService = DaemonService(
            committer: committer, server: { [serverMonitor] in recording?.server ?? serverMonitor.server }, emitter: emitter)
        fetchScheduler = FetchScheduler(
            committer: committer,
            planner: FetchPlanner(floor: configuration.fetchMinimum, timeZone: configuration.timeZone),
            loop: loop, clock: clock, followsSystem: !configuration.embedded, logger: logger)
        let inhibitor = Self.makeInhibitor(configuration, loop: loop, service: daemonService, logger: logger)
        apps = AppService(committer: committer, callers: callers, clock: clock, ownName: ownName)
        tasks = TaskService(committer: committer, callers: callers, clock: clock, seconds: configuration.taskSeconds)
        sessions = SessionService(committer: committer, waiters: waiters, callers: callers, clock: clock, logger: logger)
        deadlines = DeadlineTimer(loop: loop, clock: clock)
        let sleepLock = SleepLockDemands(inhibitor: inhibitor)
        let connectors = ConnectorCaller(connection: connection, logger: logger)
        pushConnection = PushConnection(
            committer: committer, loop: loop, clock: clock,
            delivery: PushDelivery(
                committer: committer, bodies: writer, connectors: connectors, sleepLock: sleepLock, logger: logger),
            passwords: PushPasswordKeeper(
                loop: loop, bus: configuration.bus, configDirectory: configuration.configDirectory, files: writer,
                logger: logger),
            logger: logger)
        transferRunner = TransferRunner(
            committer: committer, loop: loop, clock: clock, scheduler: fetchScheduler, partialFiles: writer,
            connection: connection, logger: logger)
        effects = EffectRunner(
            emitter: emitter, launcher: launcher, desktop: popups, waiters: waiters, scheduler: fetchScheduler,
            waker: FetchWaker(connection: connection, desktop: glib, loop: loop, logger: logger),
            sleepLock: sleepLock, logger: logger, connectors: connectors, push: pushConnection,
            transfers: transferRunner, propertiesChanged: daemonService.announce)
        let push = PushService(committer: committer, callers: callers, connection: pushConnection)
        // The object owns the interfaces, which own their services.
        let interfaces = [
            BadgeService.interface(BadgeService(committer: committer, callers: callers)), AppService.interface(apps),
            SessionService.interface(sessions),
            FetchService.interface(FetchService(committer: committer, callers: callers, clock: clock, scheduler: fetchScheduler)),
            TaskService.interface(tasks),
            TransferService.interface(
                TransferService(committer: committer, callers: callers, clock: clock, runner: transferRunner)),
            DaemonService.interface(daemonService), PushService.interface(push),
        ]
        object = DBusObject(
            path: NotifydNames.objectPath, interfaces: interfaces.map { [callers] in $0.admitting(through: callers) },
            // Property reads (PendingHandlers) are answered from the
            // committed state, as the other reads are.
            answerPropertyRead: { [committer, callers] call, read in
                try callers.admit(call) { call in try committer.read(call) { .reply(try read()) } }
            })
        distributor = DBusObject(
            path: NotifydNames.distributorPath,
            interfaces: [PushService.distributor2Interface(push), PushService.distributor1Interface(push)]
                .map { [callers] in $0.admitting(through: callers) })
        parts = DaemonParts(
            makeParts(launcher: launcher, glib: glib, inhibitor: inhibitor, daemonService: daemonService), logger: logger)
        do {
            try parts.start()
        } catch {
            // No thread may post to the loop now, and nothing posted may keep it alive.
            loop.discardPostedWork()
            throw error
        }
    }

    /// Runs until SIGTERM, SIGINT, SIGHUP or the loss of the bus; returns
    /// the exit status: 0, or 1 when the event loop itself failed.
    public func run() -> Int32 {
        loop.run()
        var exitStatus: Int32 = 0
        if let failure = loop.failure {
            logger.critical("the event loop failed, shutting down: \(failure.message)")
            exitStatus = 1
        }
        parts.stop()
        // The other threads have ended: what they posted too late would
        // keep the loop, and the state it holds, alive in a cycle.
        loop.discardPostedWork()
        return exitStatus
    }

    /// Stops the daemon, as SIGTERM does: ``run()`` commits the batch in
    /// progress and returns. Safe to call from any thread (the daemon
    /// itself stays on its own, where it must be released).
    public var stopFromAnyThread: @Sendable () -> Void {
        let loop = self.loop
        // Posted, not set directly: `run()` clears a stop asked before it started.
        return { loop.execute { loop.stop() } }
    }

    /// The start-up error for a state directory that cannot be opened or read.
    static func stateError(_ error: any Error, _ directory: String) -> StartupError {
        StartupError(
            .state, "cannot open the state in \(directory): \(error); "
                + "check that the directory is writable and the disk not full, or choose another with --state-dir")
    }

    /// Takes the commits the writer has done (their replies, then their
    /// effects, go out) and hands it the next batch.
    func commit() {
        committer.commit(carryingOut: effects.carryOut)
        guard committer.holdsWaitingRows, waitingRowsTimer == nil else { return }
        waitingRowsTimer = loop.scheduleTimer(afterNanoseconds: Committer.convenienceDelayNanoseconds) { [weak self] in
            guard let self else { return }
            waitingRowsTimer = nil
            committer.commitWaitingRows(carryingOut: effects.carryOut)
        }
    }
}
