import ArgumentParser
import Testing

@testable import notifyctl

/// `notifyctl fetch`'s command lines: what parses, what is bad usage
/// (exit 2, with a message saying what is expected), and the help.
@Suite struct FetchCommandTests {
    static let app = "org.example.Reader"

    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try NotifyctlCommand.parseAsRoot(arguments)
    }

    /// The exit status and message of a command line that does not parse
    /// (status 0 and no message when it does).
    static func refusal(_ arguments: [String]) -> (status: Int32, message: String) {
        do {
            // validate() runs in parseAsRoot; nothing is run here.
            _ = try parse(arguments)
            return (ExitStatus.success, "")
        } catch {
            return (NotifyctlCommand.exitStatus(for: error), NotifyctlCommand.fullMessage(for: error))
        }
    }

    @Test func listAndShow() throws {
        #expect((try Self.parse(["fetch", "list"]) as? FetchList)?.output.json == false)
        #expect((try Self.parse(["fetch", "list", "--json"]) as? FetchList)?.output.json == true)
        let show = try #require(try Self.parse(["fetch", "show", Self.app, "--json"]) as? FetchShow)
        #expect(show.app == Self.app && show.output.json)
        // notifyd is the authority on app IDs: "a..b" is its InvalidAppId (exit 1), not bad usage.
        #expect((try Self.parse(["fetch", "show", "a..b"]) as? FetchShow)?.app == "a..b")
    }

    @Test(arguments: [
        ("never", 0), ("minimum", 1), ("0", 0), ("1", 1), ("900", 900), ("3600", 3600),
        // Above a week but inside UInt32: notifyd answers OutOfRange (exit 1).
        ("604801", 604_801), ("4294967295", UInt32.max),
    ] as [(String, UInt32)])
    func intervalWordsAndSeconds(_ word: String, _ seconds: UInt32) throws {
        let command = try #require(try Self.parse(["fetch", "interval", Self.app, word]) as? FetchInterval)
        #expect(command.app == Self.app)
        #expect(try command.seconds() == seconds)
    }

    @Test(arguments: ["soon", "15m", "Minimum", "NEVER", "1.5", "", " 60", "4294967296", "0x10"])
    func otherIntervalsAreBadUsage(_ word: String) {
        let (status, message) = Self.refusal(["fetch", "interval", Self.app, word])
        #expect(status == ExitStatus.usage, "\(word)")
        #expect(message.contains("the interval is a number of seconds, minimum or never, not '\(word)'"), "\(message)")
    }

    @Test func aNegativeIntervalIsBadUsage() {
        #expect(Self.refusal(["fetch", "interval", Self.app, "-1"]).status == ExitStatus.usage)
        #expect(Self.refusal(["fetch", "interval", Self.app, "--", "-1"]).status == ExitStatus.usage)
    }

    @Test func enableDisableAndNow() throws {
        #expect((try Self.parse(["fetch", "enable", Self.app]) as? FetchEnable)?.app == Self.app)
        #expect((try Self.parse(["fetch", "disable", Self.app]) as? FetchDisable)?.app == Self.app)
        let now = try #require(try Self.parse(["fetch", "now", Self.app]) as? FetchNow)
        #expect(now.app == Self.app && !now.wait && !now.output.json)
        let waiting = try #require(try Self.parse(["fetch", "now", "--wait", Self.app, "--json"]) as? FetchNow)
        #expect(waiting.app == Self.app && waiting.wait && waiting.output.json)
    }

    @Test(arguments: [
        (["42", "new-data"], 42, FetchComplete.Result.newData),
        (["1", "no-data"], 1, .noData),
        (["18446744073709551615", "failed"], UInt64.max, .failed),
    ] as [([String], UInt64, FetchComplete.Result)])
    func complete(_ arguments: [String], _ id: UInt64, _ result: FetchComplete.Result) throws {
        let command = try #require(try Self.parse(["fetch", "complete"] + arguments) as? FetchComplete)
        #expect(command.fetchID == id && command.result == result)
    }

    @Test(arguments: [
        ["fetch", "complete", "1", "expired"],  // notifyd's to say, never the app's
        ["fetch", "complete", "1", "New-Data"],
        ["fetch", "complete", "1"],
        ["fetch", "complete", "x", "new-data"],
        ["fetch", "complete", "-1", "new-data"],
        ["fetch", "complete", "18446744073709551616", "no-data"],
        ["fetch", "show"], ["fetch", "enable"], ["fetch", "disable"], ["fetch", "now"],
        ["fetch", "interval", "org.example.Reader"],
        ["fetch", "interval", "org.example.Reader", "60", "extra"],
        ["fetch", "list", "extra"],
        ["fetch", "frobnicate"],
        ["fetch", "now", "org.example.Reader", "--wait=yes"],
    ])
    func badUsageExits2(_ arguments: [String]) {
        #expect(Self.refusal(arguments).status == ExitStatus.usage, "\(arguments)")
    }

    @Test func completeNamesTheResults() {
        let message = Self.refusal(["fetch", "complete", "1", "expired"]).message
        #expect(message.contains("new-data") && message.contains("no-data") && message.contains("failed"), "\(message)")
    }

    // MARK: Help

    @Test func fetchListsItsSubcommandsWithExamples() {
        let help = NotifyctlCommand.helpMessage(for: FetchCommand.self, columns: 1000)
        for name in ["list", "show", "interval", "enable", "disable", "now", "complete"] {
            #expect(help.contains("\n  \(name) "), "\(name) is not listed")
        }
        #expect(help.contains("Examples:\n  notifyctl fetch list\n"))
    }

    @Test(arguments: [
        (FetchList.self, "USAGE: notifyctl fetch list [--json]"),
        (FetchShow.self, "USAGE: notifyctl fetch show <app> [--json]"),
        (FetchInterval.self, "USAGE: notifyctl fetch interval <app> <interval>"),
        (FetchEnable.self, "USAGE: notifyctl fetch enable <app>"),
        (FetchDisable.self, "USAGE: notifyctl fetch disable <app>"),
        (FetchNow.self, "USAGE: notifyctl fetch now <app> [--wait] [--json]"),
        (FetchComplete.self, "USAGE: notifyctl fetch complete <fetch-id> <result>"),
    ] as [(any ParsableCommand.Type, String)])
    func everySubcommandHasItsUsageAndExamples(_ command: any ParsableCommand.Type, _ usage: String) {
        let help = NotifyctlCommand.helpMessage(for: command, columns: 1000)
        #expect(help.contains(usage), "\(help)")
        #expect(help.contains("Examples:\n  notifyctl fetch \(command._commandName)"), "\(help)")
    }

    @Test func nowDocumentsItsExitStatuses() {
        let help = NotifyctlCommand.helpMessage(for: FetchNow.self, columns: 1000)
        #expect(help.contains("new-data or no-data (exit 0), failed or expired (exit 1)"))
        #expect(help.contains("--wait"))
    }

    @Test func intervalExplainsItsWords() {
        let help = NotifyctlCommand.helpMessage(for: FetchInterval.self, columns: 1000)
        #expect(help.contains("minimum means as often as notifyd allows"))
        #expect(help.contains("never (0) stops scheduled fetches"))
        #expect(help.contains("604800"))
    }

    @Test func completeListsTheResults() {
        let help = NotifyctlCommand.helpMessage(for: FetchComplete.self, columns: 1000)
        #expect(help.contains("(values: new-data, no-data, failed)"), "\(help)")
        #expect(help.contains("NOTIFYD_FETCH_ID"))
    }
}
