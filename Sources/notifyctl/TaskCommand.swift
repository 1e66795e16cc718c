import ArgumentParser

/// `notifyctl task`: finite-length background tasks.
struct TaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "task",
        abstract: "Run a command inside a background task (sleep held off while it runs).",
        discussion: """
            A finite-length background task, as iOS's beginBackgroundTask: notifyd holds a \
            systemd-logind sleep lock while it runs, never longer than the task's limit.

            Examples:
              notifyctl task run --app org.example.Backup --name nightly -- ./backup.sh
            """,
        subcommands: [TaskRun.self])
}

/// `notifyctl task run --app APP --name NAME [--] COMMAND [ARG...]`.
struct TaskRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run COMMAND inside a background task and exit with its status.",
        discussion: """
            Begins a background task of APP named NAME (BeginBackgroundTask: notifyd then holds a \
            systemd-logind sleep lock), runs COMMAND with its arguments directly (no shell), forwards \
            SIGINT and SIGTERM to it, and sends it SIGTERM when the task is expiring (5 seconds before \
            its deadline, 3 minutes unless notifyd --task-seconds says otherwise). When COMMAND exits, \
            the task ends, and notifyctl exits with COMMAND's status (128 + N when signal N ended it). \
            If notifyd cannot be reached or refuses the task, one warning is printed and COMMAND runs \
            all the same. 127: COMMAND was not found; 126: it could not be run.

            Examples:
              notifyctl task run --app org.example.Backup --name nightly -- ./backup.sh
              notifyctl task run --app org.gnome.Terminal --name push -- git push
              notifyctl task run --app rsync --name photos -- rsync -a ~/Photos nas:
            """)

    @Option(help: ArgumentHelp("The app the task is for (a desktop entry ID).", valueName: "app"))
    var app: String

    @Option(help: ArgumentHelp("What the task does, shown in the sleep lock (1 to 255 bytes).", valueName: "name"))
    var name: String

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if command.first == "--" { return }
        guard !command.isEmpty else { throw ValidationError("give the command to run after the options (and --)") }
    }

    func run() throws {
        let words = command.first == "--" ? Array(command.dropFirst()) : command
        guard !words.isEmpty else { throw ValidationError("give the command to run after --") }
        let status = try TaskRunner(app: app, name: name, command: words).run()
        throw ExitCode(status)
    }
}
