import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl fetch interval APP SECONDS|minimum|never`.
struct FetchInterval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interval",
        abstract: "Set how often an app may be fetched (SetFetchInterval), as the app itself would.",
        discussion: """
            SECONDS is the minimum time between two fetches (raised to notifyd's floor, 15 minutes \
            unless notifyd --fetch-minimum lowers it; at most 604800, a week); minimum means as often \
            as notifyd allows; never (0) stops scheduled fetches.

            Examples:
              notifyctl fetch interval org.example.Reader 3600
              notifyctl fetch interval org.example.Reader minimum
              notifyctl fetch interval org.example.Reader never
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    @Argument(help: ArgumentHelp("Seconds, minimum, or never.", valueName: "interval"))
    var interval: String

    func validate() throws { _ = try seconds() }

    func seconds() throws -> UInt32 {
        switch interval {
        case "never": return 0
        case "minimum": return 1
        default:
            guard let value = UInt32(interval) else {
                throw ValidationError("the interval is a number of seconds, minimum or never, not '\(interval)'")
            }
            return value
        }
    }

    func run() throws {
        _ = try DaemonClient.connect().call(
            FetchCommand.interface, "SetFetchInterval", [.string(app), .uint32(try seconds())])
    }
}

/// `notifyctl fetch enable APP`.
struct FetchEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Let notifyd run the app's scheduled fetches (the user's switch; the default).",
        discussion: """
            Calls SetFetchEnabled(app, true). The switch is kept whatever interval the app sets.

            Examples:
              notifyctl fetch enable org.example.Reader
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    func run() throws {
        _ = try DaemonClient.connect().call(FetchCommand.interface, "SetFetchEnabled", [.string(app), .boolean(true)])
    }
}

/// `notifyctl fetch disable APP`.
struct FetchDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Stop the app's scheduled fetches, whatever interval it asks for (the user's switch).",
        discussion: """
            Calls SetFetchEnabled(app, false), as iOS's Background App Refresh switch: no scheduled \
            fetch runs until it is enabled again; notifyctl fetch now still works.

            Examples:
              notifyctl fetch disable org.example.Reader
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    func run() throws {
        _ = try DaemonClient.connect().call(FetchCommand.interface, "SetFetchEnabled", [.string(app), .boolean(false)])
    }
}

/// `notifyctl fetch complete FETCH_ID RESULT`.
struct FetchComplete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Complete a fetch, as the app's completion handler does (CompleteFetch).",
        discussion: """
            For scripts started by a background-fetch desktop action: NOTIFYD_FETCH_ID is in their \
            environment.

            Examples:
              notifyctl fetch complete 42 new-data
              notifyctl fetch complete 42 failed

            In a script: notifyctl fetch complete "$NOTIFYD_FETCH_ID" no-data
            """)

    enum Result: String, CaseIterable, ExpressibleByArgument {
        case newData = "new-data", noData = "no-data", failed
    }

    @Argument(help: ArgumentHelp("The fetch's ID (from PerformFetch, or NOTIFYD_FETCH_ID).", valueName: "fetch-id"))
    var fetchID: UInt64

    @Argument(help: ArgumentHelp("new-data, no-data or failed.", valueName: "result"))
    var result: Result

    func run() throws {
        _ = try DaemonClient.connect().call(
            FetchCommand.interface, "CompleteFetch", [.uint64(fetchID), .string(result.rawValue)])
    }
}
