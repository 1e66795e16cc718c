/// The exit statuses of notifyctl (SPEC "notifyctl"); scripts rely on them.
enum ExitStatus {
    /// The command did what it was asked.
    static let success: Int32 = 0
    /// notifyd answered with an error (its message is printed).
    static let daemonError: Int32 = 1
    /// The command line was wrong: unknown command or option, missing or
    /// malformed argument, a number out of range of its D-Bus type.
    static let usage: Int32 = 2
    /// notifyd is not running and cannot be activated, or there is no
    /// session bus at all.
    static let notRunning: Int32 = 3
}

/// Why a notifyctl command failed after its command line was accepted: a
/// message for the person at the terminal and the exit status for scripts.
///
/// Commands throw only this from `run()`; ``NotifyctlCommand/main()`` prints
/// it as `notifyctl: MESSAGE` on standard error and exits with its status.
/// Bad usage found while parsing is ArgumentParser's `ValidationError`.
struct NotifyctlError: Error, CustomStringConvertible, Equatable {
    /// What kind of failure, which fixes the exit status.
    struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The process exit status for this kind.
        let exitStatus: Int32
        private let name: String

        private init(_ name: String, _ exitStatus: Int32) {
            self.name = name
            self.exitStatus = exitStatus
        }

        /// notifyd (or the bus, on its behalf) refused the request: exit 1.
        static let daemon = Kind("daemon", ExitStatus.daemonError)
        /// The command line cannot be carried out as given (found only when
        /// running, e.g. a relative path without a current directory): exit 2.
        static let usage = Kind("usage", ExitStatus.usage)
        /// notifyd is not running and cannot be activated: exit 3.
        static let notRunning = Kind("notRunning", ExitStatus.notRunning)
        /// `task run`: the command was not found (127, as shells say).
        static let commandNotFound = Kind("commandNotFound", 127)
        /// `task run`: the command was found but could not be run (126).
        static let commandNotRun = Kind("commandNotRun", 126)

        var description: String { name }
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    var exitStatus: Int32 { kind.exitStatus }
    var description: String { message }
}

extension NotifyctlError {
    /// How to get notifyd running; every "not running" message ends with it.
    static let howToStart = """
        Start it with `notifyd &`, or install dbus/org.notifyd.Notifyd1.service \
        (see README) so that D-Bus starts it on demand.
        """

    /// notifyd has no owner on the bus and no activation file.
    static let notRunning = NotifyctlError(
        .notRunning, "notifyd is not running and cannot be activated on this bus. \(howToStart)")
}
