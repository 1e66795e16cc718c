import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl tasks`: `ListBackgroundTasks`.
struct Tasks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the running background tasks.",
        discussion: """
            Calls ListBackgroundTasks. Prints a table: task ID, app, name, seconds left, and whether \
            its expiration cue went out; nothing when no task runs. With --json, an array of \
            {"id","app","name","deadline","seconds_left","expiring","owner"} objects (deadline in Unix \
            µs). `systemd-inhibit --list` shows notifyd's sleep lock while tasks run.

            Examples:
              notifyctl tasks
              notifyctl tasks --json | jq -r '.[].name'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let reply = try DaemonClient.connect().call(NotifydNames.tasksInterface, "ListBackgroundTasks")
        guard case .array(_, let rows)? = reply.first else {
            throw NotifyctlError(.daemon, "notifyd answered ListBackgroundTasks with \(reply)")
        }
        let tasks = rows.compactMap(TaskRow.init)
        var lines = [["ID", "APP", "NAME", "LEFT", "EXPIRING"]]
        lines += tasks.map { [String($0.id), $0.app, $0.name, "\(Int($0.secondsLeft.rounded())) s", $0.expiring ? "yes" : "no"] }
        output.emit(text: tasks.isEmpty ? [] : TextTable.lines(lines), json: .array(tasks.map(\.json)))
    }
}

/// One row of `ListBackgroundTasks` (`(tssxa{sv})`).
struct TaskRow {
    let id: UInt64
    let app: String
    let name: String
    let deadline: Int64
    let secondsLeft: Double
    let expiring: Bool
    let owner: String

    init?(_ value: DBusValue) {
        guard case .structure(let fields) = value, fields.count == 5, case .uint64(let id) = fields[0],
            case .string(let app) = fields[1], case .string(let name) = fields[2], case .int64(let deadline) = fields[3],
            let details = fields[4].vardictEntries
        else { return nil }
        self.id = id
        self.app = app
        self.name = name
        self.deadline = deadline
        if case .double(let left)? = details["seconds-left"] { secondsLeft = left } else { secondsLeft = 0 }
        if case .boolean(let cued)? = details["expiring"] { expiring = cued } else { expiring = false }
        if case .string(let owner)? = details["owner"] { self.owner = owner } else { owner = "" }
    }

    var json: JSON {
        .object([
            ("id", .uint(id)), ("app", .string(app)), ("name", .string(name)),
            ("deadline", .int(deadline)), ("seconds_left", .double(secondsLeft)),
            ("expiring", .bool(expiring)), ("owner", .string(owner)),
        ])
    }
}
