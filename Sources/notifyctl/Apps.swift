import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl apps`: `ListApps`.
struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the apps notifyd knows with their states and badge counts.",
        discussion: """
            Calls ListApps. Prints a table sorted by app: the app, its state (active, inactive, \
            background or not-running) and its badge count; nothing when notifyd knows no app. \
            With --json, one array of {"app","state","badge"} objects, sorted by app. A state \
            lasts only while the connection that reported it is on the bus (see notifyctl \
            activate --help).

            Examples:
              notifyctl apps
              notifyctl apps --json
              notifyctl apps --json | jq -r '.[] | select(.state != "not-running") | .app'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let reply = try DaemonClient.connect().call(NotifydNames.appsInterface, "ListApps")
        let apps: [AppSummary]
        do {
            apps = try AppSummary.list(from: reply)
        } catch {
            throw DaemonClient.unexpectedReply("ListApps", error)
        }
        output.emit(text: AppSummary.table(apps), json: .array(apps.map(\.json)))
    }
}
