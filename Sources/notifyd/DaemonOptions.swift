import Glibc
import NotifyDaemon

/// notifyd's command line: a handful of options, parsed by hand.
///
/// notifyd keeps no ArgumentParser: it would link FoundationEssentials into
/// a daemon that otherwise needs none of it, and a larger executable costs
/// resident memory for as long as the daemon runs (the dynamic loader
/// relocates, and the kernel maps around, every page it touches).
/// notifyctl, a short-lived program with a rich command tree, does use it.
struct DaemonOptions: Equatable {
    var stateDirectory: String?
    var address: String?
    var verbose = false
    var quiet = false
    var launcherEntries: Int?
    /// `--fetch-minimum`: the floor of fetch intervals, in seconds.
    var fetchMinimum: Int?
    /// `--task-seconds`: how long a background task may run.
    var taskSeconds: Int?
    var action = Action.serve

    enum Action: Equatable { case serve, help, version, printIntrospection, printWorkerIntrospection, printDistributorIntrospection }

    /// A usage error, for standard error and exit status 2.
    struct UsageError: Error, Equatable {
        let message: String
    }

    /// The synopsis: every option, as `--help` and a usage error print it.
    static let usage = """
        notifyd [--state-dir <dir>] [--address <address>] [--launcher-entries <n>] [--fetch-minimum <s>]
                       [--task-seconds <s>] [--verbose | --quiet]
        """

    static let help = """
        USAGE: \(usage)

        Background completion, notifications and badges for the Linux desktop, on the session bus.

        notifyd serves org.notifyd.Notifyd1 on the D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS). It is
        normally started by D-Bus activation or by systemd (notifyd.service); run it by hand to watch its
        log. Use notifyctl to talk to it.

        State: $NOTIFYD_STATE_DIR, else $XDG_STATE_HOME/notifyd, else ~/.local/state/notifyd. \
        The push server's password, without a Secret Service: push-password in $NOTIFYD_CONFIG_DIR, \
        else $XDG_CONFIG_HOME/notifyd, else ~/.config/notifyd.

        OPTIONS:
          --state-dir <dir>            Keep state in this directory.
          --address <address>          Serve the bus at this address instead of the session bus.
          --launcher-entries <n>       Show at most n apps' badges on docks at once, those changed most
                                       recently, each from a bus connection of its own (1 to 1024;
                                       default: 64).
          --fetch-minimum <s>          The shortest interval between two scheduled background fetches of an
                                       app, in seconds (1 to 900; default: 900, SPEC's 15 minutes). Lower
                                       it to try an app's fetches while writing it.
          --task-seconds <s>           How long a background task may run, in seconds (10 to 3600;
                                       default: 180, as on iOS).
          -v, --verbose                Log debug messages too.
          -q, --quiet                  Log only warnings and errors.
          --print-introspection        Print the introspection XML of notifyd's interfaces and exit.
          --print-worker-introspection Print the introspection XML of the worker signal interface and exit.
          --print-distributor-introspection
                                       Print the introspection XML of the UnifiedPush distributor and exit.
          --version                    Show the version.
          -h, --help                   Show help information.

        EXAMPLES:
          notifyd                                  # serve the session bus, state in ~/.local/state/notifyd
          notifyd --verbose --state-dir /tmp/nd    # a second state directory, with debug logging
          notifyd --fetch-minimum 10               # scheduled fetches as often as every 10 s (development)
          notifyd --print-introspection > dbus/org.notifyd.Notifyd1.xml

        """

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var index = 0
        func value(of option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" else {
                throw UsageError(message: "\(option) needs a value.")
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            let (name, inlineValue) = split(argument)
            switch name {
            case "--state-dir":
                if let inlineValue { options.stateDirectory = inlineValue } else { options.stateDirectory = try value(of: name) }
            case "--address":
                if let inlineValue { options.address = inlineValue } else { options.address = try value(of: name) }
            case "--launcher-entries":
                let text: String
                if let inlineValue { text = inlineValue } else { text = try value(of: name) }
                guard let count = Int(text), DaemonConfiguration.launcherEntryLimitRange.contains(count) else {
                    throw UsageError(message: "--launcher-entries takes a number from 1 to 1024, not '\(text)'.")
                }
                options.launcherEntries = count
            case "--fetch-minimum":
                let text: String
                if let inlineValue { text = inlineValue } else { text = try value(of: name) }
                guard let seconds = Int(text), (1...900).contains(seconds) else {
                    throw UsageError(message: "--fetch-minimum takes a number of seconds from 1 to 900, not '\(text)'.")
                }
                options.fetchMinimum = seconds
            case "--task-seconds":
                let text: String
                if let inlineValue { text = inlineValue } else { text = try value(of: name) }
                guard let seconds = Int(text), (10...3600).contains(seconds) else {
                    throw UsageError(message: "--task-seconds takes a number of seconds from 10 to 3600, not '\(text)'.")
                }
                options.taskSeconds = seconds
            case "-v", "--verbose": options.verbose = true
            case "-q", "--quiet": options.quiet = true
            case "-h", "--help": options.action = .help
            case "--version": options.action = .version
            case "--print-introspection": options.action = .printIntrospection
            case "--print-worker-introspection": options.action = .printWorkerIntrospection
            case "--print-distributor-introspection": options.action = .printDistributorIntrospection
            default: throw UsageError(message: "Unknown option '\(argument)'.")
            }
            if inlineValue != nil && !["--state-dir", "--address", "--launcher-entries", "--fetch-minimum", "--task-seconds"].contains(name) {
                throw UsageError(message: "\(name) takes no value.")
            }
            index += 1
        }
        if options.verbose && options.quiet {
            throw UsageError(message: "--verbose and --quiet cannot be used together.")
        }
        if options.stateDirectory?.isEmpty == true { throw UsageError(message: "--state-dir needs a directory.") }
        return options
    }

    /// `--name=value` into its parts.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
