import DBus
import NotifyCore

/// `org.notifyd.Notifyd1.Tasks`: finite-length background tasks (SPEC),
/// iOS's `beginBackgroundTask`. A task belongs to the connection that began
/// it; the core decides the cue, the expiry, the abandonment and the lock's
/// WHY, and the ``EffectRunner`` carries them out (the signals, the
/// ``SleepInhibitor``). Tasks are not stored: nothing waits for a commit.
final class TaskService {
    private let committer: Committer
    private let callers: CallerCheck?
    private let clock: any DaemonClock
    /// The length of every task (`notifyd --task-seconds`).
    private let seconds: UInt32

    init(committer: Committer, callers: CallerCheck?, clock: any DaemonClock, seconds: UInt32) {
        self.committer = committer
        self.callers = callers
        self.clock = clock
        self.seconds = seconds
    }

    func begin(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        let name: String = try call.argument(1)
        try callers?.authorize(call, for: app)
        let (now, seconds, owner) = (clock.now(), self.seconds, call.sender)
        let task = try committer.apply { (state) throws(NotifydError) in
            try state.beginTask(app, name: name, owner: owner, seconds: seconds, at: now)
        }
        return committer.respond(call, [.uint64(task.id), .uint32(seconds)])
    }

    func end(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let id: UInt64 = try call.argument(0)
        try callers?.authorize(call, for: try committer.current.tasks.running(id).app)
        try committer.apply { (state) throws(NotifydError) in try state.endTask(id) }
        return committer.respond(call, [])
    }

    func timeRemaining(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try AppID(call.argument(0))
        try callers?.authorize(call, for: app)
        return committer.read(call) { [committer, clock] in
            .reply([.double(committer.committed.tasks.timeRemaining(of: app, at: clock.now()))])
        }
    }

    func list(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call)
        return committer.read(call) { [committer, clock] in
            let now = clock.now()
            let rows: [DBusValue] = committer.committed.tasks.tasks.values.sorted { $0.id < $1.id }
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
            return .reply([.array(element: Self.row, rows)])
        }
    }

    /// Handled on the loop after every commit: cues and expiries due.
    func runDue() {
        let now = clock.now()
        guard let wake = committer.current.tasks.nextWake, wake <= now else { return }
        committer.apply { $0.runDueTasks(at: now) }
    }

    /// A connection left the bus: its tasks end `abandoned`.
    func ownerLeft(_ name: String) {
        guard committer.current.tasks.tasks.values.contains(where: { $0.owner == name }) else { return }
        committer.apply { $0.tasksOwnerLeft(name) }
    }

    /// `(tssxa{sv})`: task ID, app, name, deadline, details.
    static var row: DBusType { .structure([.uint64, .string, .string, .int64, .dictionary(key: .string, value: .variant)]) }
}
