import ArgumentParser
import DBus

/// `notifyctl wait SESSION`: block until the session has no pending handler.
struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until a session has no pending handler, and print how it ended.",
        discussion: """
            Calls WaitForSession without a time limit. Returns at once when nothing is pending, \
            else once the last pending handler is invoked, and prints how the last handler ended: \
            completed (the app completed the session), cancelled, or expired (its timeout passed); \
            none when the session never had one (only progress events). Exits 0 whatever the \
            result is. A session notifyd never saw is an error (exit 1).

            Examples:
              notifyctl wait dl-42
              notifyctl wait dl-42 --json
              [ "$(notifyctl wait dl-42)" = completed ] || echo "the app did not handle dl-42"
            """)

    @Argument(help: ArgumentHelp("The background session's ID.", valueName: "session"))
    var session: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let result = try DaemonClient.connect().waitForSession(session)
        output.emit(text: [result], json: .object([("result", .string(result))]))
    }
}
