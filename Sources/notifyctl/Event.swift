import ArgumentParser
import DBus
import Glibc
import NotifyCore

/// `notifyctl event SESSION --app APP ...`: what a download or fetch hook
/// runs when a transfer ends (`HandleEventsForBackgroundSession`).
struct Event: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report an event of a background session: a download finished or failed, progress, a fetch.",
        usage: """
            notifyctl event <session> --app <app> [--failed <error> | --progress <written/expected> | --fetch <result>]
                            [--title <title>] [--path <path>] [--sound <name>] [--badge <n>] [--no-notify]
                            [--timeout <seconds>] [--wait] [<options>]
            """,
        discussion: """
            Calls HandleEventsForBackgroundSession. Without --failed, --progress or --fetch the \
            event is a finished transfer. For every kind but progress, notifyd stores a pending \
            completion handler, posts a notification (unless --no-notify), plays its sound and adds \
            to the app's badge; the handler stays pending until the app completes the session \
            (notifyctl complete), it is cancelled, or its timeout passes. A progress event only \
            updates the session's progress.

            Prints the handler's ID (0 for a progress event). With --wait, notifyctl then waits \
            until the session has no pending handler (any of its events) and prints how it ended \
            on a second line: completed, cancelled or expired (none after a progress event \
            alone). A download hook can use --wait to hold on until the user has dealt with the \
            file, e.g. to remove a temporary copy.

            Exit status: 0 when notifyd stored the event (whatever the --wait result: it is \
            information, not an error); 1 when notifyd refused it (its message is printed: an \
            invalid app or session ID, a session of another app, too many pending handlers); 2 on \
            bad usage; 3 when notifyd is not running and cannot be activated.

            Examples:
              notifyctl event dl-42 --app firefox --title debian.iso --path debian.iso
              notifyctl event dl-42 --app firefox --progress 1048576/4194304
              notifyctl event dl-42 --app firefox --failed "$reason" --title debian.iso
              notifyctl event inbox --app thunderbird --fetch new-data --sound ''
              notifyctl event dl-42 --app firefox --title debian.iso --timeout 3600 --wait
              notifyctl event dl-42 --app firefox --no-notify --badge 0 --json
            """)

    @Argument(help: ArgumentHelp("The background session's ID, e.g. the download's.", valueName: "session"))
    var session: String

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("The app's desktop entry ID (the session belongs to it).", valueName: "app"))
    var app: String

    @OptionGroup var event: EventOptions

    @Flag(name: .long, help: "Then wait until the session has no pending handler and print how it ended.")
    var wait = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        let directory = event.hasRelativePath ? try Self.currentDirectory() : "/"
        let dictionary = event.dictionary(currentDirectory: directory)
        let client = try DaemonClient.connect()
        let handler = try client.call(
            NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession",
            [.string(session), .string(app), .vardict(dictionary)], returning: UInt64.self)
        guard wait else {
            output.emit(text: ["\(handler)"], json: .object([("handler_id", .uint(handler))]))
            return
        }
        if !output.json {
            // The ID first, before the wait, for a script reading the pipe.
            Output.line("\(handler)")
            Output.flush()
        }
        let result = try client.waitForSession(session)
        output.emit(text: [result], json: .object([("handler_id", .uint(handler)), ("result", .string(result))]))
    }

    /// The current directory, for a relative `--path`.
    static func currentDirectory() throws(NotifyctlError) -> String {
        guard let pointer = getcwd(nil, 0) else {
            throw NotifyctlError(
                .usage,
                "cannot make --path absolute: the current directory is unavailable "
                    + "(\(String(cString: strerror(errno)))); give an absolute path")
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
