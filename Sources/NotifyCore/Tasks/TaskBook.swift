/// A finite-length background task (SPEC "Finite-length background tasks"):
/// iOS's `beginBackgroundTask`, owned by the connection that began it.
public struct BackgroundTask: Sendable, Hashable, Identifiable {
    public let id: UInt64
    public let app: AppID
    /// 1 to 255 bytes, shown in the lock's WHY.
    public let name: String
    /// The unique bus name of the connection that began it.
    public let owner: String
    public let began: Microseconds
    /// Wall clock, µs; moved when the clock is set.
    public let deadline: Microseconds
    /// Whether `BackgroundTaskExpiring` went out.
    public let cued: Bool

    public init(
        id: UInt64, app: AppID, name: String, owner: String, began: Microseconds, deadline: Microseconds,
        cued: Bool = false
    ) {
        self.id = id
        self.app = app
        self.name = name
        self.owner = owner
        self.began = began
        self.deadline = deadline
        self.cued = cued
    }

    func with(deadline: Microseconds? = nil, cued: Bool? = nil) -> BackgroundTask {
        BackgroundTask(
            id: id, app: app, name: name, owner: owner, began: began, deadline: deadline ?? self.deadline,
            cued: cued ?? self.cued)
    }
}

/// How a task ended (`BackgroundTaskEnded`'s result).
public enum TaskEnding: String, Sendable, Hashable {
    /// `EndBackgroundTask`.
    case ended
    /// Its deadline passed.
    case expired
    /// Its connection left the bus first (a leaked task).
    case abandoned
}

/// The running tasks, without I/O or a clock. Tasks are not stored: they
/// belong to connections, which do not survive a restart.
public struct TaskBook: Sendable, Hashable {
    /// The expiration handler's cue comes this long before the deadline.
    public static let expiringLead: Microseconds = 5_000_000
    /// A task's time unless `notifyd --task-seconds` says otherwise.
    public static let defaultSeconds: UInt32 = 180
    /// Running tasks per app at most.
    public static let maximumPerApp = 16
    /// Running tasks over all apps at most (any well-formed string is an app ID).
    public static let maximum = 4_096

    public private(set) var tasks: [UInt64: BackgroundTask] = [:]
    public private(set) var lastTaskID: UInt64 = 0

    public init() {}

    /// Begins a task of `seconds` for `app`, owned by `owner`.
    public mutating func begin(
        _ app: AppID, name: String, owner: String, seconds: UInt32, at now: Microseconds
    ) throws(NotifydError) -> BackgroundTask {
        let length = name.utf8.count
        guard (1...255).contains(length), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        else {
            throw NotifydError(
                .invalidArgs,
                "a task name is 1 to 255 bytes without control characters; '\(AppID.printable(name))' is \(length) bytes")
        }
        let running = tasks.values.filter { $0.app == app }.count
        guard running < Self.maximumPerApp else {
            throw NotifydError(
                .limitExceeded, "\(app) has \(running) background tasks running, the most an app may; end one first")
        }
        guard tasks.count < Self.maximum else {
            throw NotifydError(.limitExceeded, "notifyd runs at most \(Self.maximum) background tasks at once")
        }
        lastTaskID &+= 1
        let task = BackgroundTask(
            id: lastTaskID, app: app, name: name, owner: owner, began: now,
            deadline: now &+ Int64(seconds) * 1_000_000)
        tasks[task.id] = task
        return task
    }

    /// The running task `id`; `UnknownTask` when it is not running.
    public func running(_ id: UInt64) throws(NotifydError) -> BackgroundTask {
        guard let task = tasks[id] else {
            throw NotifydError(.unknownTask, "background task \(id) is not running: it ended, expired, or never began")
        }
        return task
    }

    /// Ends task `id`; `UnknownTask` when it is not running.
    public mutating func end(_ id: UInt64) throws(NotifydError) -> BackgroundTask {
        let task = try running(id)
        tasks[id] = nil
        tasks.shrinkIfSparse()
        return task
    }

    /// The connection `owner` left the bus: its tasks end `abandoned`, oldest first.
    public mutating func ownerLeft(_ owner: String) -> [BackgroundTask] {
        let left = tasks.values.filter { $0.owner == owner }.sorted { $0.id < $1.id }
        for task in left { tasks[task.id] = nil }
        tasks.shrinkIfSparse()
        return left
    }

    /// At `now`: the tasks whose cue is due (marked cued), and those whose
    /// deadline passed (removed), oldest first.
    public mutating func due(at now: Microseconds) -> (expiring: [BackgroundTask], expired: [BackgroundTask]) {
        let expired = tasks.values.filter { $0.deadline <= now }.sorted { $0.id < $1.id }
        for task in expired { tasks[task.id] = nil }
        tasks.shrinkIfSparse()
        var expiring: [BackgroundTask] = []
        for task in tasks.values.sorted(by: { $0.id < $1.id }) where !task.cued && task.deadline - Self.expiringLead <= now {
            tasks[task.id] = task.with(cued: true)
            expiring.append(task)
        }
        return (expiring, expired)
    }

    /// When to look again: the next cue or deadline; nil without tasks.
    public var nextWake: Microseconds? {
        tasks.values.map { $0.cued ? $0.deadline : $0.deadline - Self.expiringLead }.min()
    }

    /// Seconds until the app's first running task expires; 0 without one.
    public func timeRemaining(of app: AppID, at now: Microseconds) -> Double {
        guard let first = tasks.values.filter({ $0.app == app }).map(\.deadline).min() else { return 0 }
        return Double(max(0, first - now)) / 1_000_000
    }

    /// The inhibitor lock's WHY: every running task as `app: name`, in the
    /// order begun; nil when none runs (no lock).
    public var lockReason: String? {
        guard !tasks.isEmpty else { return nil }
        return tasks.values.sorted { $0.id < $1.id }.map { "\($0.app): \($0.name)" }.joined(separator: ", ")
    }

    /// The wall clock was set by `delta`: deadlines move with it.
    public mutating func shift(by delta: Microseconds) {
        guard delta != 0 else { return }
        for (id, task) in tasks { tasks[id] = task.with(deadline: task.deadline &+ delta) }
    }
}
