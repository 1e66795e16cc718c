import DBus
import Logging
import NotifyCore

/// Starts scheduled fetches when the core's plan says they are due: one
/// timer, for the next time anything is due, and none when nothing is
/// planned (an idle daemon with every app fetched recently never wakes).
/// It plans again after any change that can move a plan: a schedule, a
/// result, an activation, the conditions, a clock step.
final class FetchScheduler {
    let planner: FetchPlanner
    private let state: Committer
    private let clock: any DaemonClock
    private let timer: DeadlineTimer
    private let logger: Logger
    /// What the system says now (network, metered, power saver).
    private(set) var conditions = FetchConditions()
    private var needsPlanning = true

    init(state: Committer, planner: FetchPlanner, loop: EventLoop, clock: any DaemonClock, logger: Logger) {
        self.state = state
        self.planner = planner
        self.clock = clock
        self.timer = DeadlineTimer(loop: loop, clock: clock)
        self.logger = logger
    }

    /// Something that may move a plan changed (an effect of the core).
    func planChanged() { needsPlanning = true }

    /// The system's conditions changed: held fetches may start, or due ones wait.
    func conditionsChanged(to conditions: FetchConditions) {
        guard conditions != self.conditions else { return }
        logger.info(
            "fetch conditions: \(conditions.hold.map { "scheduled fetches wait for \($0)" } ?? "nothing holds scheduled fetches")")
        self.conditions = conditions
        needsPlanning = true
    }

    /// After every commit: when something changed, arms the timer for the
    /// next time a fetch is due (now, when one already is).
    func follow() {
        guard needsPlanning else { return }
        needsPlanning = false
        let now = clock.now()
        let current = state.current
        let due = planner.due(
            in: current.fetches, activations: { current.apps.activations(of: $0).map(\.at) },
            conditions: conditions, now: now)
        timer.follow(due.start.isEmpty ? due.wake : now) { [weak self] in self?.runTurn() }
    }

    /// Starts what is due; the batch commits before the loop sleeps, then
    /// `PerformFetch` and the wake-ups go out.
    private func runTurn() {
        let now = clock.now()
        let (planner, conditions) = (self.planner, self.conditions)
        let turn = state.mutate { $0.runDueFetches(planner: planner, conditions: conditions, at: now) }
        state.carry(turn.outcome)
        for fetch in turn.started { logger.info("scheduled fetch \(fetch.id) of \(fetch.app) started") }
        needsPlanning = true
    }

    /// GetFetchSchedule's dictionary for `app`.
    func dictionary(of app: AppID, in current: NotifydState, now: Microseconds) -> DBusValue {
        let schedule = current.fetches.schedule(of: app)
        let plan = current.fetchPlan(of: app, planner: planner, conditions: conditions, now: now)
        return .vardict([
            "interval": .uint32(planner.interval(of: schedule).map { UInt32(clamping: $0 / 1_000_000) } ?? 0),
            "requested-interval": .uint32(schedule.requestedInterval),
            "enabled": .boolean(schedule.enabled),
            "next": .int64(plan.next ?? 0),
            "reason": .string(plan.reason),
            "last-run": .int64(schedule.lastRun ?? 0),
            "last-result": .string(schedule.lastResult?.rawValue ?? ""),
            "runs": .uint32(schedule.runs),
            "running": .uint64(current.fetches.runningFetch(of: app)?.id ?? 0),
            "waiting-for": .string(plan.heldFor ?? ""),
        ])
    }
}
