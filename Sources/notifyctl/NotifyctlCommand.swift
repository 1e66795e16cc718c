import ArgumentParser
import Glibc
import NotifyCore

/// `notifyctl`: the command-line client of notifyd.
///
/// Every subcommand is a small type in its own file; shared flags live in
/// ``OutputOptions`` and the connection in ``DaemonClient``. `main()` is
/// ArgumentParser's with one change: the SPEC's exit statuses (usage errors
/// exit 2, not `EX_USAGE` 64; see ``ExitStatus``).
@main
struct NotifyctlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifyctl",
        abstract: "Control notifyd: badges, app states and background sessions on the Linux desktop.",
        discussion: """
            notifyctl talks to notifyd (org.notifyd.Notifyd1) on the D-Bus session bus \
            ($DBUS_SESSION_BUS_ADDRESS). If notifyd is installed for D-Bus activation, the first \
            command starts it.

            Examples:
              notifyctl status
              notifyctl badge set org.gnome.Nautilus 3
              notifyctl badge list --json
              notifyctl activate org.gnome.Nautilus
              notifyctl apps
              notifyctl event dl-42 --app firefox --title debian.iso --path debian.iso
              notifyctl sessions
              notifyctl complete dl-42
              notifyctl monitor
              notifyctl fetch list
              notifyctl fetch now org.example.Reader --wait
              notifyctl task run --app org.example.Backup --name nightly -- ./backup.sh
              notifyctl download https://example.org/debian.iso --wait
              notifyctl transfers

            Exit status: 0 success; 1 notifyd answered with an error (printed); 2 bad usage; \
            3 notifyd is not running and cannot be activated, or there is no session bus.

            Shell completions for bash, zsh and fish are built in, e.g.:
              notifyctl --generate-completion-script bash > notifyctl.bash
            """,
        version: "notifyctl \(NotifydNames.version)",
        subcommands: [
            Status.self, Badge.self, Activate.self, State.self, Apps.self, Event.self, Sessions.self, Complete.self,
            Cancel.self, Wait.self, Monitor.self, FetchCommand.self, TaskCommand.self, Tasks.self, Download.self,
            Upload.self, Transfers.self, TransferCommand.self, PushCommand.self, BrowserCommand.self,
        ])

    /// "notifyctl: ..." on every error, usage errors included.
    static var _errorPrefix: String { "notifyctl: " }

    /// Parses, runs, and exits with the SPEC's status.
    static func main() {
        var status = ExitStatus.success
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            var command = try FastPath.command(arguments) ?? parseAsRoot(arguments)
            try command.run()
        } catch {
            status = Self.status(reporting: error)
        }
        // A result that could not be written (a full disk, a closed pipe
        // when SIGPIPE is ignored) is not a success.
        if fflush(nil) != 0 && status == ExitStatus.success {
            Output.error("cannot write the output: \(String(cString: strerror(errno)))")
            status = ExitStatus.daemonError
        }
        Glibc.exit(status)
    }

    /// Prints what `error` means where it belongs and returns the exit status.
    ///
    /// A ``NotifyctlError`` is printed as `notifyctl: MESSAGE` on standard
    /// error; help, `--version` and completion scripts go to standard output;
    /// usage errors (with the usage) to standard error.
    static func status(reporting error: any Error) -> Int32 {
        if let error = error as? NotifyctlError {
            Output.error(error.message)
            return error.exitStatus
        }
        let text = fullMessage(for: error)
        let status = exitStatus(for: error)
        if status == ExitStatus.success {
            if !text.isEmpty { print(text) }
        } else if !text.isEmpty {
            Output.standardError(text)
        }
        return status
    }

    /// The exit status for an error thrown by parsing or running a command:
    /// a ``NotifyctlError``'s own; 0 for help, `--version` and completion
    /// scripts; 2 for usage errors (parsing, `validate()`, `ValidationError`)
    /// where ArgumentParser would exit `EX_USAGE` (64); an `ExitCode`'s code.
    static func exitStatus(for error: any Error) -> Int32 {
        if let error = error as? NotifyctlError { return error.exitStatus }
        let code = exitCode(for: error)
        return code == .validationFailure ? ExitStatus.usage : code.rawValue
    }
}
