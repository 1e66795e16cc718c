import DBus
import NotifyCore

/// `org.notifyd.Notifyd1.Tasks`: finite-length background tasks (SPEC),
/// iOS's `beginBackgroundTask`. A task belongs to the connection that began
/// it; the core decides the cue, the expiry, the abandonment and the lock's
/// WHY, and the ``EffectRunner`` carries them out (the signals, the
/// ``SleepInhibitor``). Tasks are not stored: nothing waits for a commit.
final class TaskService {
    private let state: Committer
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    /// The length of every task (`notifyd --task-seconds`).
    private let seconds: UInt32

    init(state: Committer, callers: CallerCheck?, clock: any DaemonClock, seconds: UInt32) {
        self.state = state
        self.callers = callers
        self.clock = clock
        self.seconds = seconds
    }

    func begin(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        let name: String = try call.argument(1)
        try callers?.authorize(call, for: app)
        let (now, seconds, owner) = (clock.now(), self.seconds, call.sender)
        let begun = try state.mutate { (state) throws(NotifydError) in
            try state.beginTask(app, name: name, owner: owner, seconds: seconds, at: now)
        }
        state.carry(begun.outcome)
        return state.respond(call, [.uint64(begun.task.id), .uint32(seconds)])
    }

    func end(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        guard let task = state.current.tasks.tasks[id] else {
            throw NotifydError(.unknownTask, "background task \(id) is not running: it ended, expired, or never began")
        }
        try callers?.authorize(call, for: task.app)
        state.carry(try state.mutate { (state) throws(NotifydError) in try state.endTask(id) })
        return state.respond(call, [])
    }

    func timeRemaining(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        try callers?.authorize(call, for: app)
        return state.respond(call, [.double(state.current.tasks.timeRemaining(of: app, at: clock.now()))])
    }

    func list(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call)
        let now = clock.now()
        let rows: [DBusValue] = state.current.tasks.tasks.values.sorted { $0.id < $1.id }
            .filter { visibility?.shows($0.app) ?? true }
            .map { task in
                .structure([
                    .uint64(task.id), .string(task.app.rawValue), .string(task.name), .int64(task.deadline),
                    .vardict([
                        "began": .int64(task.began), "owner": .string(task.owner),
                        "seconds-left": .double(Double(max(0, task.deadline - now)) / 1_000_000),
                        "expiring": .boolean(task.cued),
                    ]),
                ])
            }
        return state.respond(call, [.array(element: Self.row, rows)])
    }

    /// Handled on the loop after every commit: cues and expiries due.
    func runDue() {
        let now = clock.now()
        guard let wake = state.current.tasks.nextWake, wake <= now else { return }
        state.carry(state.mutate { $0.runDueTasks(at: now) })
    }

    /// A connection left the bus: its tasks end `abandoned`.
    func ownerLeft(_ name: String) {
        guard state.current.tasks.tasks.values.contains(where: { $0.owner == name }) else { return }
        state.carry(state.mutate { $0.tasksOwnerLeft(name) })
    }

    /// `(tssxa{sv})`: task ID, app, name, deadline, details.
    static var row: DBusType { .structure([.uint64, .string, .string, .int64, .dictionary(key: .string, value: .variant)]) }
}
