import DBus
import Glibc
import Logging
import NotifyCore
import NotifyDaemon

/// `notifyd`: the per-user background completion service.
@main
enum NotifydMain {
    static func main() {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            let text = "notifyd: \(error.message)\nUsage: \(DaemonOptions.usage)\nSee 'notifyd --help'.\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(2)
        }
        switch options.action {
        case .help: print(DaemonOptions.help, terminator: "")
        case .version: print("notifyd \(NotifydNames.version)")
        case .printIntrospection: print(NotifydObject.documentedXML, terminator: "")
        case .printWorkerIntrospection: print(NotifydObject.workerXML, terminator: "")
        case .printDistributorIntrospection: print(NotifydObject.distributorXML, terminator: "")
        case .serve: exit(serve(options))
        }
    }

    static func serve(_ options: DaemonOptions) -> Int32 {
        let level: Logger.Level = options.verbose ? .debug : options.quiet ? .warning : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "notifyd")
        AllocatorPolicy.apply(environment: DaemonConfiguration.currentEnvironment())
        let configuration = DaemonConfiguration(
            stateDirectory: DaemonConfiguration.defaultStateDirectory(override: options.stateDirectory),
            bus: options.address.map { .address($0) } ?? .session,
            launcherEntryLimit: options.launcherEntries ?? DaemonConfiguration.defaultLauncherEntryLimit,
            fetchMinimum: options.fetchMinimum.map { Int64($0) * 1_000_000 } ?? FetchPlanner.standardFloor,
            taskSeconds: options.taskSeconds.map { UInt32($0) } ?? TaskBook.defaultSeconds)
        do {
            return try Notifyd(configuration: configuration, logger: logger).run()
        } catch {
            logger.critical("\(error.message)", metadata: ["code": "\(error.code)"])
            return 1
        }
    }
}
