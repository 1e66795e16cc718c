import DBus
import Glibc
import Logging
import NotifyCore
import NotifyDesktop

/// The daemon's parts and the steps of start-up that talk to the system.
extension Notifyd {
    /// The parts, in the order they start (stopped in reverse):
    /// - timers: the loop's observers (a clock step taken, then the batch
    ///   committed and the deadline timer set, before each sleep), the
    ///   wall clock's steps, Unix signals; stopped last: the fetch
    ///   conditions' thread and the sleep lock's;
    /// - desktop: the GLib thread (started on the first popup), stopped
    ///   once the last batch's popups are out;
    /// - bus: the object exported, the subscriptions, the notification
    ///   server and the docks followed; stopped by flushing what is sent;
    /// - store: at stop, every batch decided is committed, waiting for the
    ///   writer thread (replies and effects go out), then that thread ends;
    /// - callers: caller identification, stopped first, so that no call is
    ///   admitted during shutdown;
    /// - name: the bus name taken last, once everything answers, then the
    ///   state's start-up decisions (badges on docks, overdue handlers,
    ///   fetches left running).
    /// - push: the push server's connection, made once the names are
    ///   taken, and the messages held delivered; stopped first (its thread
    ///   disconnects and ends).
    /// - transfers: those left from before planned again once the system's
    ///   conditions are known; the engine's thread is stopped before push.
    func makeParts(
        launcher: LauncherEntryPublisher, glib: LazyDesktop?, inhibitor: SleepInhibitor?, daemonService: DaemonService
    ) -> [DaemonPart] {
        [
            DaemonPart("timers", start: { [unowned self] () throws(StartupError) in try startTimers() },
                stop: { [fetchScheduler] in
                    fetchScheduler.stop()
                    inhibitor?.stop()
                }),
            DaemonPart("desktop", stop: { [effects] in
                effects.shutDown()
                glib?.shutDown()
            }),
            DaemonPart("bus", start: { [unowned self] () throws(StartupError) in try setUpOnBus(launcher: launcher) },
                stop: { [connection] in if connection.isConnected { connection.flush() } }),
            DaemonPart("store", stop: { [unowned self] in
                committer.drain(carryingOut: effects.carryOut)
                committer.stopWriter()
            }),
            DaemonPart("callers", stop: { [callers] in callers.stop() }),
            DaemonPart("name", start: { [unowned self] () throws(StartupError) in
                try requestName()
                requestDistributorName()
                takeStartupDecisions()
            }),
            DaemonPart("push", start: { [pushConnection] in pushConnection.start() }, stop: { [pushConnection] in pushConnection.stop() }),
            // The transfers left from before follow the system again (and
            // start once it says there is a network); stopped first: the
            // engine's thread ends, partial files kept for the next start.
            DaemonPart("transfers", start: { [transferRunner] in transferRunner.start() },
                stop: { [transferRunner] in transferRunner.shutDown() }),
        ]
    }

    private func startTimers() throws(StartupError) {
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
        } catch {
            throw StartupError(.eventLoop, "cannot watch signals and the wall clock: \(error)")
        }
    }

    private func setUpOnBus(launcher: LauncherEntryPublisher) throws(StartupError) {
        do {
            connection.onDisconnect { [weak self] in self?.busLost() }
            try connection.export(object)
            try connection.export(distributor)
            try connection.subscribe(
                DBusMatchRule(interface: NotifydNames.workerInterface, member: "EventsForBackgroundSession")
            ) { [weak self] message in self?.workerSignal(message) }
            // Every name that leaves the bus: its app states end, its identity is forgotten.
            try connection.subscribe(
                DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged")
            ) { [weak self] message in self?.nameOwnerChanged(message) }
            if recording == nil { try serverMonitor.start { [weak self] _ in self?.serverChanged() } }
            try launcher.followDocks(on: connection)
        } catch {
            throw StartupError(.busSetUp, "cannot set up on the bus: \(error)")
        }
    }

    /// What the state held at start-up brings: every badge shown on docks,
    /// the handlers whose deadline passed while notifyd was down invoked
    /// (a thousand per turn of the loop: calls are answered in between),
    /// fetches left running ended `expired` (SPEC).
    private func takeStartupDecisions() {
        committer.apply { $0.showBadgesAtStart() }
        if let recording { committer.apply { $0.notificationServerChanged(to: recording.server.profile, at: clock.now()) } }
        let overdue = committer.current.sessions.dueCount(at: clock.now())
        let pending = committer.current.sessions.pendingCount - overdue
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

    /// The sleep lock's keeper, reporting on the loop whether it holds the
    /// lock (then `Inhibiting` is announced); nil without a bus for it.
    static func makeInhibitor(
        _ configuration: DaemonConfiguration, loop: EventLoop, service: DaemonService, logger: Logger
    ) -> SleepInhibitor? {
        guard let bus = configuration.sleepLockBus else { return nil }
        let bound = LoopBound(service, loop: loop)
        do {
            return try SleepInhibitor(bus: bus, logger: logger) { held in bound.execute { $0.inhibitingChanged(to: held) } }
        } catch {
            logger.warning("cannot start the sleep lock's thread (\(error)); tasks run without it")
            return nil
        }
    }

    func requestName() throws(StartupError) {
        let reply: DBusNameReply
        do {
            reply = try connection.requestName(NotifydNames.busName)
        } catch {
            throw StartupError(.busSetUp, "cannot request \(NotifydNames.busName): \(error)")
        }
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            throw StartupError(.nameTaken, nameTakenMessage())
        }
    }

    /// Takes `org.unifiedpush.Distributor.notifyd` after notifyd's own name.
    /// Another process holding it (a second notifyd on another state
    /// directory) leaves notifyd without the distributor, said in the log,
    /// not unable to start.
    func requestDistributorName() {
        let name = NotifydNames.distributorBusName
        do {
            let reply = try connection.requestName(name)
            guard reply == .primaryOwner || reply == .alreadyOwner else {
                logger.warning("\(name) is taken by another process: notifyd serves no UnifiedPush registrations")
                return
            }
        } catch {
            logger.warning("cannot request \(name) (\(error)): notifyd serves no UnifiedPush registrations")
        }
    }

    /// Says who holds the name, so the person can stop it.
    func nameTakenMessage() -> String {
        let name = NotifydNames.busName
        guard let owner = try? connection.nameOwner(of: name),
            let pid = try? connection.unixProcessID(of: owner)
        else { return "\(name) is already taken on this bus by another process" }
        let command = ProcessInfoReader.commandLine(of: pid_t(pid)) ?? "unknown command"
        return "\(name) is already taken on this bus by process \(pid) (\(command)); stop it first, "
            + "e.g. `systemctl --user stop notifyd` or `kill \(pid)`"
    }

}

/// Reads facts about other processes from /proc.
enum ProcessInfoReader {
    /// The command line of a process, arguments joined by spaces.
    static func commandLine(of pid: pid_t) -> String? {
        guard let file = fopen("/proc/\(pid)/cmdline", "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        guard !bytes.isEmpty else { return nil }
        let parts = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return parts.joined(separator: " ")
    }
}
