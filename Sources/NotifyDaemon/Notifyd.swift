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
/// The parts, built once in ``init(configuration:logger:clock:)``, with
/// arrows that run one way: the interfaces own their services; a service
/// decodes and authorizes a call and applies the core's decision
/// (`NotifydState`'s operations) through the ``Committer``; after each
/// commit the ``EffectRunner`` carries the effects out (signals, docks,
/// popups as the core's ``NotifyCore/PopupBook`` decides them, through the
/// ``DesktopPopups`` adapter, waiting calls). A click comes back from the
/// desktop to the app service as an input like any other. One timer
/// follows every deadline (``followDeadlines()``).
public final class Notifyd {
    let configuration: DaemonConfiguration
    let logger: Logger
    let clock: any DaemonClock
    let loop: EventLoop
    let connection: DBusConnection
    let committer: Committer
    let launcher: LauncherEntryPublisher
    let serverMonitor: NotificationServerMonitor
    let callers: CallerCheck
    let apps: AppService
    let effects: EffectRunner
    /// The GLib side, started on first use (nil when embedded).
    let desktop: LazyDesktop?
    let sessions: SessionService
    let deadlines: DeadlineTimer
    let fetchScheduler: FetchScheduler
    let tasks: TaskService
    /// The sleep lock for running tasks (none without a bus for it).
    let inhibitor: SleepInhibitor?
    /// Whether the lock is held now (Daemon.Inhibiting), set on the loop.
    let inhibition: InhibitionStatus
    let object: DBusObject

    /// Opens the state, connects to the bus, exports the object and takes
    /// the bus name. `clock` is where the daemon reads the time and arms
    /// its deadlines (a test harness passes one it moves by hand).
    ///
    /// - Throws: ``StartupError`` with a message for the person starting it.
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
            throw StartupError("cannot create the event loop: \(error.message)")
        }
        do {
            committer = try Committer(store: StateStore(directory: configuration.stateDirectory), logger: logger)
        } catch {
            throw StartupError("cannot open the state in \(configuration.stateDirectory): \(error)")
        }
        do {
            connection = try DBusConnection.connect(to: configuration.bus, private: true, logger: logger)
            try connection.attach(to: loop)
        } catch {
            throw StartupError(
                "cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        if !configuration.embedded, case .address(let address) = configuration.bus {
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)  // libnotify's own connection goes to the same bus
        }
        launcher = LauncherEntryPublisher(
            bus: configuration.bus, loop: loop, logger: logger, connectionLimit: configuration.launcherEntryLimit)
        serverMonitor = NotificationServerMonitor(connection: connection, loop: loop, logger: logger)
        do {
            callers = try CallerCheck(bus: configuration.bus, loop: loop, clock: clock, logger: logger)
        } catch {
            throw StartupError("cannot start identifying bus connections: \(error.message)")
        }
        let emitter = SignalEmitter(connection: connection, path: NotifydNames.objectPath)
        let waiters = SessionWaiters()
        inhibition = InhibitionStatus()
        apps = AppService(
            committer: committer, callers: callers, clock: clock,
            ownName: connection.uniqueName ?? NotifydNames.busName)
        // The GLib side (libnotify, GIO), started on first use; none when embedded.
        let desktop = configuration.embedded ? nil : LazyDesktop(logger: logger)
        let popups = desktop.map { [connection, launcher, serverMonitor, apps, loop] desktop in
            DesktopPopups(
                desktop: desktop, server: serverMonitor, actions: NotificationActions(apps: apps, logger: logger),
                jobs: PlasmaJobViews(connection: connection, logger: logger) { [launcher] in launcher.republishAll() },
                loop: loop, logger: logger)
        }
        fetchScheduler = FetchScheduler(
            committer: committer,
            planner: FetchPlanner(floor: configuration.fetchMinimum, timeZone: configuration.timeZone),
            loop: loop, clock: clock, followsSystem: !configuration.embedded, logger: logger)
        inhibitor = Self.makeInhibitor(configuration, loop: loop, status: inhibition, logger: logger)
        effects = EffectRunner(
            emitter: emitter, launcher: launcher, desktop: popups, waiters: waiters, scheduler: fetchScheduler,
            waker: FetchWaker(connection: connection, desktop: desktop, loop: loop, logger: logger),
            inhibitor: inhibitor, clock: clock, logger: logger)
        self.desktop = desktop
        tasks = TaskService(committer: committer, callers: callers, clock: clock, seconds: configuration.taskSeconds)
        sessions = SessionService(committer: committer, waiters: waiters, callers: callers, clock: clock, logger: logger)
        deadlines = DeadlineTimer(loop: loop, clock: clock)
        // The object owns the interfaces, which own their services.
        let interfaces = [
            BadgeService.interface(BadgeService(committer: committer, callers: callers)), AppService.interface(apps),
            SessionService.interface(sessions),
            FetchService.interface(FetchService(committer: committer, callers: callers, clock: clock, scheduler: fetchScheduler)),
            TaskService.interface(tasks),
            DaemonService.interface(DaemonService(committer: committer, server: serverMonitor, inhibition: inhibition)),
        ]
        object = DBusObject(
            path: NotifydNames.objectPath, interfaces: interfaces.map { [callers] in $0.admitting(through: callers) },
            // Property reads (PendingHandlers) keep their place behind the
            // sender's calls and wait for the batch in progress, as replies do.
            answerPropertyRead: { [committer, callers] call, read in
                try callers.admit(call) { call in committer.respond(call, try read()) }
            })
        // Weakly: the object owns the Daemon interface, whose inhibition
        // status reports to the effect runner.
        effects.propertiesChanged = { [weak connection, weak object, logger] names in
            guard let connection, let object else { return }
            do {
                try connection.emitPropertiesChanged(of: object, interface: NotifydNames.daemonInterface, names: names)
            } catch {
                logger.warning("cannot announce the change of \(names.joined(separator: ", ")): \(error)")
            }
        }
        inhibition.onChange = { [weak effects] in effects?.propertiesChanged(["Inhibiting"]) }
        do {
            try start()
        } catch {
            // As at the end of run(): no thread may post to the loop, and
            // nothing posted may keep it alive.
            callers.stop()
            fetchScheduler.stop()
            inhibitor?.stop()
            loop.discardPostedWork()
            throw error
        }
    }

    private func start() throws(StartupError) {
        // A step of the wall clock is taken before the batch commits, so it
        // is stored with it; then the deadline timer follows.
        loop.addBeforeSleepObserver { [weak self] in self?.takeClockStep() }
        // The batch is stored, then replies and effects go out (Committer),
        // then the deadline timer follows the state.
        loop.addBeforeSleepObserver { [weak self] in
            guard let self else { return }
            commit()
            followDeadlines()
        }
        do {
            if !configuration.embedded {
                try loop.handleSignals([SIGTERM, SIGINT, SIGHUP]) { [weak self] in self?.shutDown(signal: $0) }
            }
            try loop.watchWallClockSet { [weak self] in self?.takeClockStep() }
            connection.onDisconnect { [weak self] in self?.busLost() }
            try connection.export(object)
            try connection.subscribe(
                DBusMatchRule(interface: NotifydNames.workerInterface, member: "EventsForBackgroundSession")
            ) { [weak self] message in self?.workerSignal(message) }
            // Every name that leaves the bus: its app states end, its identity is forgotten.
            try connection.subscribe(
                DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged")
            ) { [weak self] message in self?.nameOwnerChanged(message) }
            try serverMonitor.start { [weak self] _ in self?.serverChanged() }
            try launcher.followDocks(on: connection)
        } catch {
            throw StartupError("cannot set up on the bus: \(error)")
        }
        try requestName()
        for (app, count) in committer.current.badges.nonZero { launcher.setCount(count, for: app) }
        // Handlers whose deadline passed while notifyd was down are invoked
        // now, a thousand per turn of the loop (calls are answered in between):
        // the ready line counts them apart from those left pending.
        let overdue = committer.current.sessions.dueCount(at: clock.now())
        let pending = committer.current.sessions.pendingCount - overdue
        // Fetches that ran when notifyd stopped end `expired` (SPEC).
        let leftRunning = committer.current.fetches.running.count
        committer.apply { $0.expireFetchesLeftRunning(at: clock.now()) }
        runDue()
        logger.info(
            "notifyd \(NotifydNames.version) ready as \(NotifydNames.busName)",
            metadata: [
                "state": "\(committer.directory)", "unique-name": "\(connection.uniqueName ?? "?")",
                "pending-handlers": "\(pending)", "expired-at-start": "\(overdue)",
                "fetches-expired-at-start": "\(leftRunning)",
            ])
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
        callers.stop()
        commit()
        if connection.isConnected { connection.flush() }
        effects.shutDown()
        desktop?.shutDown()
        fetchScheduler.stop()
        inhibitor?.stop()
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

    /// Commits the batch; replies, then the effects, go out after it.
    func commit() {
        committer.commit(carryingOut: effects.carryOut)
    }
}
