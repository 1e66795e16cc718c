import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl complete SESSION`: the app has handled the session's events.
struct Complete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Invoke a session's pending handlers as completed, and print how many there were.",
        discussion: """
            Calls CompleteSession, as an app does once it has processed the session's events: \
            every pending handler of the session is invoked with the result completed (waiting \
            `notifyctl wait` and `event --wait` calls return). Prints how many were invoked; 0 when \
            none was pending. When notifyd refuses (e.g. a session it does not know), its message is \
            printed and the exit status is 1.

            Examples:
              notifyctl complete dl-42
              notifyctl complete dl-42 --json
            """)

    @Argument(help: ArgumentHelp("The background session's ID.", valueName: "session"))
    var session: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let invoked = try DaemonClient.connect().call(
            NotifydNames.sessionsInterface, "CompleteSession", [.string(session)], returning: UInt32.self)
        output.emit(text: ["\(invoked)"], json: .invoked(invoked))
    }
}

extension JSON {
    /// How many handlers `complete` or `cancel` invoked: `{"invoked":2}`.
    static func invoked(_ count: UInt32) -> JSON {
        .object([("invoked", .uint(UInt64(count)))])
    }
}
