/// Finite-length background tasks' operations: nothing to store (tasks
/// belong to connections), only what follows: the signals and the sleep
/// lock, whose WHY changes with the set of tasks.
extension NotifydState {
    /// BeginBackgroundTask by connection `owner`: the task, and the lock
    /// that now covers it.
    public mutating func beginTask(
        _ app: AppID, name: String, owner: String, seconds: UInt32, at now: Microseconds
    ) throws(NotifydError) -> Decision<BackgroundTask> {
        let before = tasks.lockReason
        let task = try tasks.begin(app, name: name, owner: owner, seconds: seconds, at: now)
        return Decision(task, NotifydOutcome(effects: lockChange(from: before)))
    }

    /// EndBackgroundTask; `UnknownTask` when it is not running.
    public mutating func endTask(_ id: UInt64) throws(NotifydError) -> Decision<Void> {
        let before = tasks.lockReason
        let task = try tasks.end(id)
        return Decision(NotifydOutcome(effects: [.taskEnded(task, .ended)] + lockChange(from: before)))
    }

    /// The connection `owner` left the bus: its tasks end `abandoned`.
    public mutating func tasksOwnerLeft(_ owner: String) -> Decision<Void> {
        let before = tasks.lockReason
        let left = tasks.ownerLeft(owner)
        return Decision(NotifydOutcome(effects: left.map { .taskEnded($0, .abandoned) } + lockChange(from: before)))
    }

    /// At `now`: the cues due (5 s before each deadline), then the tasks
    /// whose deadline passed, then the lock.
    public mutating func runDueTasks(at now: Microseconds) -> Decision<Void> {
        let before = tasks.lockReason
        let due = tasks.due(at: now)
        let cues: [NotifydEffect] = due.expiring.map { task in
            .taskExpiring(task, secondsLeft: UInt32(clamping: max(0, (task.deadline - now + 999_999) / 1_000_000)))
        }
        return Decision(NotifydOutcome(effects: cues + due.expired.map { .taskEnded($0, .expired) } + lockChange(from: before)))
    }

    private func lockChange(from before: String?) -> [NotifydEffect] {
        let after = tasks.lockReason
        return after == before ? [] : [.inhibitionChanged(why: after)]
    }
}
