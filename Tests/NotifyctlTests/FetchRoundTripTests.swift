import DBus
import Foundation
import NotifyCore
import NotifyTesting
import Testing

@testable import notifyctl

/// `notifyctl fetch` as a process against the real notifyd
/// (``InProcessDaemon``, its clock at 2027-01-15T08:00:00Z and moved by
/// hand for the 30-second handler): the setters change the schedule as
/// SPEC says, listings print as tables and JSON, and the exit statuses
/// are the SPEC's. `now --wait` is in FetchRoundTripTests+Wait.swift.
@Suite struct FetchRoundTripTests {
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    static let second: Microseconds = 1_000_000
    let daemon: InProcessDaemon
    let recorder: SignalRecorder
    /// Local time is UTC, whatever the machine's zone.
    let notifyctl: NotifyctlRunner
    let app = "org.example.Reader"

    init() throws {
        let bus = try TestBus()
        recorder = try SignalRecorder(address: bus.address, rules: [DBusMatchRule(interface: Self.fetch)])
        daemon = try InProcessDaemon(bus: bus)
        notifyctl = NotifyctlRunner(bus: bus, environment: ["TZ": "UTC"])
    }

    /// notifyd's `GetFetchSchedule` for `app`.
    func schedule(_ app: String) throws -> [String: DBusValue] {
        try [String: DBusValue](dbusValue: try #require(try daemon.call(Self.fetch, "GetFetchSchedule", [.string(app)]).first))
    }

    /// The fetch ID of the `occurrence`-th `PerformFetch` of `app`.
    func performed(_ app: String, occurrence: Int = 1) throws -> UInt64 {
        let signals = recorder.wait(seconds: 10, forCount: occurrence) {
            $0.member == "PerformFetch" && $0.arguments.first == .string(app)
        }
        guard case .uint64(let id)? = signals?.last?.arguments[1] else {
            throw TestFailure("no PerformFetch \(occurrence) of \(app): \(recorder.received)")
        }
        return id
    }

    /// Sets the app's interval to the minimum, and ends the fetch that
    /// starts at once with `no-data`.
    func scheduleAtTheMinimum(_ app: String) throws {
        #expect(try notifyctl("fetch", "interval", app, "minimum").status == 0)
        #expect(try notifyctl("fetch", "complete", String(try performed(app)), "no-data").status == 0)
    }

    @Test func settersChangeTheSchedule() throws {
        for (arguments, key, value) in [
            (["fetch", "interval", app, "minimum"], "requested-interval", DBusValue.uint32(1)),
            (["fetch", "interval", app, "never"], "interval", .uint32(0)),
            (["fetch", "interval", app, "3600"], "interval", .uint32(3600)),
            (["fetch", "disable", app], "enabled", .boolean(false)),
            (["fetch", "enable", app], "enabled", .boolean(true)),
        ] {
            let result = try notifyctl.run(arguments)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(try schedule(app)[key] == value, "\(arguments)")
        }
        #expect(try schedule(app)["interval"] == .uint32(3600), "the switch keeps the interval")
    }

    @Test func listIsATableOrJSON() throws {
        try scheduleAtTheMinimum(app)
        try scheduleAtTheMinimum("org.example.Mail")
        let reason =
            "22 minutes 30 seconds after the last fetch at 08:00: the interval of 15 minutes, grown by half for "
            + "the last fetch, which found no new data"
        let table = try notifyctl("fetch", "list").stdout
        #expect(
            table == """
                APP                 INTERVAL          ENABLED  NEXT                       LAST RESULT  REASON
                org.example.Mail    minimum (15 min)  on       2027-01-15T08:22:30+00:00  no-data      \(reason)
                org.example.Reader  minimum (15 min)  on       2027-01-15T08:22:30+00:00  no-data      \(reason)

                """)
        let list = try #require(try notifyctl.json("fetch", "list", "--json") as? [[String: Any]])
        #expect(list.map { $0["app"] as? String } == ["org.example.Mail", "org.example.Reader"])
        #expect(list.first?["interval"] as? Int == 900 && list.first?["requested_interval"] as? Int == 1)
        #expect(list.first?["next"] as? String == "2027-01-15T08:22:30.000Z")
    }

    /// A scheduled fetch that expired (30 s), then a manual one that took 1.5 s.
    @Test func showIsTheScheduleThenTheHistory() throws {
        #expect(try notifyctl("fetch", "interval", app, "minimum").status == 0)
        _ = try performed(app)
        daemon.clock.advance(by: 30 * Self.second)
        _ = try #require(recorder.wait(seconds: 10) { $0.member == "FetchCompleted" })
        #expect(try notifyctl("fetch", "now", app).stdout == "2\n")
        daemon.clock.advance(by: 1_500_000)
        #expect(try notifyctl("fetch", "complete", "2", "no-data").status == 0)
        let shown = try notifyctl("fetch", "show", app)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout == """
                app: org.example.Reader
                interval: minimum (15 min)
                enabled: yes
                next: 2027-01-15T08:23:00+00:00
                reason: 22 minutes 30 seconds after the last fetch at 08:00: the interval of 15 minutes, grown by half for the last fetch, which found no new data
                running: no
                last run: 2027-01-15T08:00:30+00:00
                last result: no-data
                runs: 2

                FETCH  TRIGGER    STARTED                    TOOK    RESULT
                2      manual     2027-01-15T08:00:30+00:00  1.5 s   no-data
                1      scheduled  2027-01-15T08:00:00+00:00  30.0 s  expired

                """)
        let object = try #require(try notifyctl.json("fetch", "show", app, "--json") as? [String: Any])
        #expect(object["app"] as? String == app && object["runs"] as? Int == 2)
        let history = try #require(object["history"] as? [[String: Any]])
        #expect(history.map { $0["fetch_id"] as? Int } == [2, 1])
        #expect(history.first?["trigger"] as? String == "manual")
    }

    @Test func nowPrintsTheFetchID() throws {
        #expect(try notifyctl("fetch", "now", app).stdout == "1\n")
        #expect(try notifyctl("fetch", "now", "org.example.Mail", "--json").stdout == "{\"fetch_id\":2}\n")
        #expect(try schedule(app)["running"] == .uint64(1))
        #expect(try schedule("org.example.Mail")["running"] == .uint64(2))
        let complete = try notifyctl("fetch", "complete", "1", "new-data")
        #expect(complete.status == 0 && complete.stdout.isEmpty, "\(complete.stderr)")
        let completed = recorder.wait(seconds: 10) { $0.member == "FetchCompleted" }?.last
        #expect(completed?.arguments == [.string(app), .uint64(1), .string("new-data")])
        #expect(try schedule(app)["running"] == .uint64(0))
        #expect(try schedule("org.example.Mail")["running"] == .uint64(2))
    }

    @Test func daemonErrorsExit1WithTheirMessage() throws {
        #expect(try notifyctl("fetch", "now", "org.example.Busy").stdout == "1\n")
        let busy =
            "fetch 1 of org.example.Busy is still running; it ends when the app completes it or within 30 seconds of its start"
        for (arguments, message) in [
            (["fetch", "interval", app, "604801"],
             "a fetch interval of 604801 seconds is longer than a week (604800 seconds); use 0 for never"),
            (["fetch", "complete", "999", "no-data"],
             "fetch 999 is not running: it was completed or expired (after 30 seconds), or never started"),
            (["fetch", "now", "org.example.Busy"], busy),
            (["fetch", "now", "org.example.Busy", "--wait"], busy),
            (["fetch", "show", "a..b"], "invalid app ID 'a..b': it may not contain '..'"),
            (["fetch", "enable", "a..b"], "invalid app ID 'a..b': it may not contain '..'"),
        ] {
            let result = try notifyctl.run(arguments)
            #expect(result.status == ExitStatus.daemonError, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr == "notifyctl: \(message)\n", "\(arguments)")
        }
    }

    /// Bad usage is found before notifyd is called: the same without it.
    @Test func badUsageExits2BeforeCallingNotifyd() throws {
        let result = try notifyctl("fetch", "interval", app, "soon")
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains("the interval is a number of seconds, minimum or never, not 'soon'"))
        #expect(try notifyctl("fetch", "complete", "1", "expired").status == ExitStatus.usage)
        try daemon.sync()
        #expect(try notifyctl("fetch", "list").stdout.isEmpty, "nothing changed")
        #expect(recorder.received.isEmpty)
        daemon.stop()
        #expect(try notifyctl("fetch", "interval", app, "soon").status == ExitStatus.usage)
    }

    @Test func withoutNotifydEveryFetchCommandExits3() throws {
        daemon.stop()
        for arguments in [
            ["fetch", "list"], ["fetch", "show", app], ["fetch", "interval", app, "minimum"], ["fetch", "enable", app],
            ["fetch", "disable", app], ["fetch", "now", app], ["fetch", "now", app, "--wait"],
            ["fetch", "complete", "1", "no-data"],
        ] {
            let result = try notifyctl.run(arguments)
            #expect(result.status == ExitStatus.notRunning, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("notifyd is not running"), "\(arguments)")
        }
    }
}
