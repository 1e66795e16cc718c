import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl fetch`: background fetch (SPEC "Background fetch").
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Background fetch: schedules and their reasons, the user's switch, fetches on demand.",
        discussion: """
            Apps ask notifyd to wake them now and then to fetch new content; notifyd plans each fetch \
            and says why it is when it is.

            Examples:
              notifyctl fetch list
              notifyctl fetch show org.example.Reader
              notifyctl fetch interval org.example.Reader 3600
              notifyctl fetch disable org.example.Reader
              notifyctl fetch now org.example.Reader --wait
            """,
        subcommands: [
            FetchList.self, FetchShow.self, FetchInterval.self, FetchEnable.self, FetchDisable.self, FetchNow.self,
            FetchComplete.self,
        ])

    static var interface: String { NotifydNames.fetchInterface }
}

/// `notifyctl fetch list`.
struct FetchList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every app with a fetch interval or history: interval, switch, next fetch, last result, why.",
        discussion: """
            Calls ListFetchSchedules. NEXT is local time (ISO 8601), or running (with the fetch ID), \
            or - when none is planned; REASON says why. With --json, an array of objects (next and \
            times in UTC, *_us in Unix microseconds).

            Examples:
              notifyctl fetch list
              notifyctl fetch list --json | jq -r '.[] | select(.enabled) | .app'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let reply = try DaemonClient.connect().call(FetchCommand.interface, "ListFetchSchedules")
        guard case .array(_, let rows)? = reply.first else {
            throw NotifyctlError(.daemon, "notifyd answered ListFetchSchedules with \(reply)")
        }
        var schedules: [FetchScheduleSummary] = []
        for row in rows {
            guard case .structure(let fields) = row, fields.count == 2, case .string(let app) = fields[0] else { continue }
            schedules.append(try FetchScheduleSummary(app: app, fields[1]))
        }
        let table = [FetchScheduleSummary.header] + schedules.map { $0.row { Timestamp.local(unixMicroseconds: $0) } }
        output.emit(text: schedules.isEmpty ? [] : TextTable.lines(table), json: .array(schedules.map(\.json)))
    }
}

/// `notifyctl fetch show APP`.
struct FetchShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show an app's fetch schedule, the reason for its next fetch, and its recent fetches.",
        discussion: """
            Calls GetFetchSchedule and GetFetchHistory (the newest first, at most 100).

            Examples:
              notifyctl fetch show org.example.Reader
              notifyctl fetch show org.example.Reader --json | jq -r .reason
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try DaemonClient.connect()
        let reply = try client.call(FetchCommand.interface, "GetFetchSchedule", [.string(app)])
        let schedule = try FetchScheduleSummary(app: app, reply.first ?? .vardict([:]))
        let historyReply = try client.call(FetchCommand.interface, "GetFetchHistory", [.string(app)])
        var history: [FetchHistoryEntry] = []
        if case .array(_, let rows)? = historyReply.first { history = rows.compactMap(FetchHistoryEntry.init) }
        let time = { (value: Int64) in Timestamp.local(unixMicroseconds: value) }
        var lines = [
            "app: \(app)", "interval: \(schedule.intervalText)", "enabled: \(schedule.enabled ? "yes" : "no")",
            "next: \(schedule.next == 0 ? "none planned" : time(schedule.next))", "reason: \(schedule.reason)",
            "running: \(schedule.running == 0 ? "no" : "fetch \(schedule.running)")",
            "last run: \(schedule.lastRun == 0 ? "never" : time(schedule.lastRun))",
            "last result: \(schedule.lastResult.isEmpty ? "-" : schedule.lastResult)", "runs: \(schedule.runs)",
        ]
        if !schedule.waitingFor.isEmpty { lines.append("waiting for: \(schedule.waitingFor)") }
        if !history.isEmpty {
            lines.append("")
            lines += TextTable.lines([FetchHistoryEntry.header] + history.map { $0.row(time: time) })
        }
        guard case .object(let fields) = schedule.json else { return }
        output.emit(text: lines, json: .object(fields + [("history", .array(history.map(\.json)))]))
    }
}
