import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl cancel SESSION`: give up on the session's pending handlers.
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Invoke a session's pending handlers as cancelled, and print how many there were.",
        discussion: """
            Calls CancelSession: every pending handler of the session is invoked with the result \
            cancelled (waiting `notifyctl wait` and `event --wait` calls return). Prints how many \
            were invoked; 0 when none was pending. When notifyd refuses (e.g. a session it does \
            not know), its message is printed and the exit status is 1.

            Examples:
              notifyctl cancel dl-42
              notifyctl cancel dl-42 --json
            """)

    @Argument(help: ArgumentHelp("The background session's ID.", valueName: "session"))
    var session: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let invoked = try DaemonClient.connect().call(
            NotifydNames.sessionsInterface, "CancelSession", [.string(session)], returning: UInt32.self)
        output.emit(text: ["\(invoked)"], json: .invoked(invoked))
    }
}
