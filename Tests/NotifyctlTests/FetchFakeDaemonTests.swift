import DBus
import Foundation
import NotifyTesting
import Testing

@testable import notifyctl

/// `notifyctl fetch` as a process against ``FetchFakeDaemon`` on a private
/// bus: the calls go out with the SPEC's signatures, listings print as
/// tables and JSON, `now --wait` cannot miss a result that comes before
/// `FetchNow` replies, and the exit statuses are the SPEC's. (The real
/// daemon is tested in EndToEndTests/NotifyctlFetchTests.)
@Suite(.serialized) final class FetchFakeDaemonTests {
    let bus: TestBus
    let daemon: FetchFakeDaemon
    /// Local time is UTC, whatever the machine's zone.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address, "TZ": "UTC"] }
    let app = "org.example.Reader"

    init() throws {
        bus = try TestBus()
        daemon = try FetchFakeDaemon(address: bus.address)
    }

    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
    }

    func json(_ arguments: String...) throws -> Any {
        let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func settersSendTheContractsArguments() throws {
        for arguments in [
            ["fetch", "interval", app, "minimum"], ["fetch", "interval", app, "never"], ["fetch", "interval", app, "3600"],
            ["fetch", "disable", app], ["fetch", "enable", app],
        ] {
            let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
        let calls = try daemon.calls()
        #expect(calls.map(\.member) == ["SetFetchInterval", "SetFetchInterval", "SetFetchInterval", "SetFetchEnabled", "SetFetchEnabled"])
        #expect(
            calls.map(\.arguments) == [
                [.string(app), .uint32(1)], [.string(app), .uint32(0)], [.string(app), .uint32(3600)],
                [.string(app), .boolean(false)], [.string(app), .boolean(true)],
            ])
    }

    @Test func listIsATableOrJSON() throws {
        let reason = "22 minutes 30 seconds after the last fetch at 10:00"
        #expect(
            try notifyctl("fetch", "list").stdout == """
                APP                 INTERVAL          ENABLED  NEXT                       LAST RESULT  REASON
                org.example.Reader  minimum (15 min)  on       2026-11-21T10:22:30+00:00  no-data      \(reason)
                org.example.Mail    minimum (15 min)  on       2026-11-21T10:22:30+00:00  no-data      \(reason)

                """)
        let list = try #require(try json("fetch", "list", "--json") as? [[String: Any]])
        #expect(list.map { $0["app"] as? String } == ["org.example.Reader", "org.example.Mail"])
        #expect(list.first?["interval"] as? Int == 900 && list.first?["requested_interval"] as? Int == 1)
        #expect(list.first?["next"] as? String == "2026-11-21T10:22:30.000Z")
    }

    @Test func showIsTheScheduleThenTheHistory() throws {
        let shown = try notifyctl("fetch", "show", app)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout == """
                app: org.example.Reader
                interval: minimum (15 min)
                enabled: yes
                next: 2026-11-21T10:22:30+00:00
                reason: 22 minutes 30 seconds after the last fetch at 10:00
                running: no
                last run: 2026-11-21T10:00:00+00:00
                last result: no-data
                runs: 2

                FETCH  TRIGGER    STARTED                    TOOK    RESULT
                2      manual     2026-11-21T10:00:00+00:00  1.5 s   no-data
                1      scheduled  2026-11-21T09:45:00+00:00  30.0 s  expired

                """)
        let object = try #require(try json("fetch", "show", app, "--json") as? [String: Any])
        #expect(object["app"] as? String == app && object["runs"] as? Int == 2)
        let history = try #require(object["history"] as? [[String: Any]])
        #expect(history.map { $0["fetch_id"] as? Int } == [2, 1])
        #expect(history.first?["trigger"] as? String == "manual")
        #expect(try daemon.calls().map(\.member) == ["GetFetchSchedule", "GetFetchHistory", "GetFetchSchedule", "GetFetchHistory"])
    }

    @Test func nowPrintsTheFetchID() throws {
        #expect(try notifyctl("fetch", "now", app).stdout == "41\n")
        #expect(try notifyctl("fetch", "now", "org.example.Mail", "--json").stdout == "{\"fetch_id\":42}\n")
        #expect(try daemon.running() == [41, 42])
        #expect(try daemon.calls().map(\.arguments) == [[.string(app)], [.string("org.example.Mail")]])
        let complete = try notifyctl("fetch", "complete", "41", "new-data")
        #expect(complete.status == 0 && complete.stdout.isEmpty, "\(complete.stderr)")
        #expect(try daemon.calls().last?.arguments == [.uint64(41), .string("new-data")])
        #expect(try daemon.running() == [42])
    }

    /// The fake ends these fetches before FetchNow replies: `--wait` was
    /// subscribed first, and takes its own fetch's result, not another's.
    @Test(arguments: [
        ("org.example.Quick", "no-data", ExitStatus.success), ("org.example.Stale", "expired", ExitStatus.daemonError),
        ("org.example.Broken", "failed", ExitStatus.daemonError),
    ])
    func nowWaitTakesAResultThatComesBeforeTheReply(_ app: String, _ result: String, _ status: Int32) throws {
        let waited = try notifyctl("fetch", "now", app, "--wait")
        #expect(waited.stdout == "\(result)\n")
        #expect(waited.status == status)
        #expect(waited.stderr.isEmpty, "the result is the message: \(waited.stderr)")
        let json = try notifyctl("fetch", "now", app, "--wait", "--json")
        #expect(json.stdout == "{\"fetch_id\":42,\"result\":\"\(result)\"}\n")
        #expect(json.status == status)
    }

    /// `now --wait` waits for the app's answer, here from another process.
    @Test func nowWaitPrintsAResultThatComesLater() throws {
        let waiting = try OutputProcess(FakeNotifyd.notifyctl, ["fetch", "now", app, "--wait"], environment)
        try waitUntil("the fetch runs", seconds: 10) { try daemon.running() == [41] }
        #expect(waiting.isRunning && waiting.output.isEmpty)
        #expect(try notifyctl("fetch", "complete", "41", "new-data").status == 0)
        #expect(waiting.finish() == 0)
        #expect(waiting.output == "new-data\n")
    }

    @Test func nowWaitStopsOnSIGINT() throws {
        let waiting = try OutputProcess(FakeNotifyd.notifyctl, ["fetch", "now", app, "--wait"], environment)
        try waitUntil("the fetch runs", seconds: 10) { try daemon.running() == [41] }
        #expect(waiting.interrupt() == ExitStatus.daemonError)
        #expect(waiting.errors == "notifyctl: interrupted before the fetch ended\n")
    }

    @Test func daemonErrorsExit1WithTheirMessage() throws {
        for (arguments, message) in [
            (["fetch", "interval", app, "604801"], "604801 seconds is longer than a week (604800)"),
            (["fetch", "complete", "999", "no-data"], "fetch 999 is not running"),
            (["fetch", "now", "org.example.Busy"], "a fetch of org.example.Busy is running (fetch 3)"),
            (["fetch", "now", "org.example.Busy", "--wait"], "a fetch of org.example.Busy is running (fetch 3)"),
            (["fetch", "show", "a..b"], "invalid app ID 'a..b': it may not contain '..'"),
            (["fetch", "enable", "a..b"], "invalid app ID 'a..b': it may not contain '..'"),
        ] {
            let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
            #expect(result.status == ExitStatus.daemonError, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr == "notifyctl: \(message)\n", "\(arguments)")
        }
    }

    @Test func badUsageExits2BeforeCallingNotifyd() throws {
        let result = try notifyctl("fetch", "interval", app, "soon")
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains("the interval is a number of seconds, minimum or never, not 'soon'"))
        #expect(try notifyctl("fetch", "complete", "1", "expired").status == ExitStatus.usage)
        #expect(try daemon.calls().isEmpty)
    }

    @Test func withoutNotifydEveryFetchCommandExits3() throws {
        try daemon.leave()
        for arguments in [
            ["fetch", "list"], ["fetch", "show", app], ["fetch", "interval", app, "minimum"], ["fetch", "enable", app],
            ["fetch", "disable", app], ["fetch", "now", app], ["fetch", "now", app, "--wait"],
            ["fetch", "complete", "1", "no-data"],
        ] {
            let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
            #expect(result.status == ExitStatus.notRunning, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("notifyd is not running"), "\(arguments)")
        }
    }
}
