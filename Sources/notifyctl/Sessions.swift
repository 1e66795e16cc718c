import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl sessions`: the background sessions notifyd knows.
struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the background sessions with their pending handlers and progress.",
        discussion: """
            Calls ListSessions. Prints a table, sorted by session: the session, its app, how many \
            completion handlers are pending, how many events it had, its progress when known, the \
            time of its last event (local time, ISO 8601) and any other details notifyd gives; \
            nothing when there is no session. With --json, one array of objects (keys in \
            snake_case; last_event in UTC, last_event_us in Unix microseconds).

            Examples:
              notifyctl sessions
              notifyctl sessions --json
              notifyctl sessions --json | jq -r '.[] | select(.pending > 0) | .session'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try DaemonClient.connect()
        let reply = try client.call(NotifydNames.sessionsInterface, "ListSessions")
        let sessions: [SessionSummary]
        do {
            sessions = try SessionSummary.list(from: reply)
        } catch {
            throw DaemonClient.unexpectedReply("ListSessions", error)
        }
        output.emit(
            text: SessionSummary.table(sessions) { Timestamp.local(unixMicroseconds: $0) },
            json: .array(sessions.map(\.json)))
    }
}
