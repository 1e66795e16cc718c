import ArgumentParser
import DBus
import Glibc
import Logging
import NotifyDaemon

/// `notifyd`: the per-user background completion service.
@main
struct NotifydCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifyd",
        abstract: "Background completion, notifications and badges for the Linux desktop, on the session bus.",
        discussion: """
            notifyd serves org.notifyd.Notifyd1 on the D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS). \
            It is normally started by D-Bus activation or by systemd (notifyd.service); run it by hand \
            to watch its log. Use notifyctl to talk to it.

            State: $NOTIFYD_STATE_DIR, else $XDG_STATE_HOME/notifyd, else ~/.local/state/notifyd.
            """,
        version: "notifyd 0.1.0")

    @Option(name: .long, help: ArgumentHelp("Keep state in this directory.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("Serve the bus at this address instead of the session bus.", valueName: "address"))
    var address: String?

    @Flag(name: [.short, .long], help: "Log debug messages too.")
    var verbose = false

    @Flag(name: [.short, .long], help: "Log only warnings and errors.")
    var quiet = false

    @Flag(name: .long, help: "Print the introspection XML of notifyd's interfaces and exit.")
    var printIntrospection = false

    @Flag(name: .long, help: "Print the introspection XML of the worker signal interface and exit.")
    var printWorkerIntrospection = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet cannot be used together.") }
    }

    func run() throws {
        if printIntrospection || printWorkerIntrospection {
            print(printIntrospection ? NotifydObject.documentedXML : NotifydObject.workerXML, terminator: "")
            return
        }
        let level: Logger.Level = verbose ? .debug : quiet ? .warning : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "notifyd")
        let configuration = DaemonConfiguration(
            stateDirectory: DaemonConfiguration.defaultStateDirectory(override: stateDir),
            bus: address.map { .address($0) } ?? .session)
        let daemon: Notifyd
        do {
            daemon = try Notifyd(configuration: configuration, logger: logger)
        } catch {
            logger.critical("\(error.description)")
            throw ExitCode(1)
        }
        let status = daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}
