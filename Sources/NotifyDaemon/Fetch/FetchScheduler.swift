import DBus
import Logging
import NotifyDesktop
import NotifyCore

/// Starts scheduled fetches when the core's plan says they are due. It
/// arms no timer of its own: the daemon's one deadline timer follows
/// ``nextWake(at:)`` with every other deadline, and calls ``runDue(at:)``
/// (an idle daemon with every app fetched recently never wakes). The plan
/// is computed again only after a change that can move it (a schedule, a
/// result, an activation, the conditions, a clock step), once.
///
/// The network and power-saver mode come from GIO's monitors
/// (``SystemConditionsMonitor``), started when the first app asks for
/// fetches: a daemon nobody asks for fetches runs no monitor thread and
/// holds none of its memory. Until the monitors' first reading, scheduled
/// fetches wait.
final class FetchScheduler {
    let planner: FetchPlanner
    private let committer: Committer
    private let loop: EventLoop
    private let clock: any DaemonClock
    private let logger: Logger
    /// Whether to ask GIO for the conditions (not in an embedded daemon).
    private let followsSystem: Bool
    private var monitor: SystemConditionsMonitor?
    /// What the system says now (network, metered, power saver); nil
    /// while the monitors have not said yet.
    private var known: FetchConditions?
    private var needsPlanning = true
    /// When a scheduled fetch is next due, as last planned.
    private var planned: Microseconds?
    /// Others that go by the same readings (the transfers), told of each change.
    private var followers: [(FetchConditions) -> Void] = []

    init(
        committer: Committer, planner: FetchPlanner, loop: EventLoop, clock: any DaemonClock, followsSystem: Bool,
        logger: Logger
    ) {
        self.committer = committer
        self.planner = planner
        self.loop = loop
        self.clock = clock
        self.followsSystem = followsSystem
        self.logger = logger
        if !followsSystem { known = FetchConditions() }
    }

    /// What holds scheduled fetches now, as far as known (nothing, before the first reading).
    var conditions: FetchConditions { known ?? FetchConditions() }

    /// Stops the monitors' thread (at shutdown, or after a failed start-up).
    func stop() {
        monitor?.stop()
        monitor = nil
    }

    /// Tells `follower` of every reading from now on (of the one known now
    /// at once), starting the monitors if they do not run yet: the
    /// transfers wait for a network by the same readings as fetches.
    func follow(_ follower: @escaping (FetchConditions) -> Void) {
        followers.append(follower)
        if monitor == nil, followsSystem { followSystem() }
        if let known { follower(known) }
    }

    /// Something that may move a plan changed (an effect of the core).
    func planChanged() { needsPlanning = true }

    /// The system's conditions changed: held fetches may start, or due ones wait.
    func conditionsChanged(to conditions: FetchConditions) {
        guard conditions != known else { return }
        logger.info(
            "fetch conditions: \(conditions.hold.map { "scheduled fetches wait for \($0)" } ?? "nothing holds scheduled fetches")")
        known = conditions
        needsPlanning = true
        for follower in followers { follower(conditions) }
    }

    /// When a scheduled fetch is next due (now, when one already is); nil
    /// when none is planned or the conditions are not known yet. Planned
    /// again only when something changed.
    func nextWake(at now: Microseconds) -> Microseconds? {
        guard needsPlanning else { return planned }
        needsPlanning = false
        let current = committer.current
        if monitor == nil, followsSystem, current.fetches.schedules.values.contains(where: \.wantsFetches) {
            followSystem()
        }
        // Without a reading yet, nothing is planned: the first one plans again.
        guard let conditions = known else {
            planned = nil
            return nil
        }
        planned = current.nextFetchWake(planner: planner, conditions: conditions, at: now)
        return planned
    }

    /// Starts GIO's monitors; each reading comes back on the loop. Without
    /// them, nothing holds fetches (one log line says why).
    private func followSystem() {
        guard monitor == nil else { return }
        let scheduler = LoopBound(WeakReference(self), loop: loop)
        do {
            monitor = try SystemConditionsMonitor(logger: logger) { system in
                let conditions = FetchConditions(
                    networkAvailable: system.networkAvailable, networkMetered: system.networkMetered,
                    powerSaver: system.powerSaver, onBattery: system.onBattery)
                scheduler.execute { $0.value?.conditionsChanged(to: conditions) }
            }
        } catch {
            logger.warning("cannot follow the network and power-saver mode (\(error)); scheduled fetches and transfers ignore them")
            conditionsChanged(to: FetchConditions())
        }
    }

    /// Starts what is due at `now`; the batch commits before the loop
    /// sleeps, then `PerformFetch` and the wake-ups go out.
    func runDue(at now: Microseconds) {
        guard let planned, planned <= now, let conditions = known else { return }
        let planner = self.planner
        let started = committer.apply { $0.runDueFetches(planner: planner, conditions: conditions, at: now) }
        for fetch in started { logger.info("scheduled fetch \(fetch.id) of \(fetch.app) started") }
        needsPlanning = true
    }
}
