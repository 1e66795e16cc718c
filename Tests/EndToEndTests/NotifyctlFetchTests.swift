import DBus
import Foundation
import NotifyTesting
import Testing

/// `notifyctl fetch` as a whole process against the real daemon: the
/// schedule and its reason, the switch, `now --wait` with the result from
/// another process's `fetch complete`, and bad input.
@Suite struct NotifyctlFetchTests {
    let fixture: Fixture
    let recorder: SignalRecorder
    let app = "org.example.Reader"

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: "org.notifyd.Notifyd1.Fetch")])
    }

    func json(_ arguments: String...) throws -> Any {
        let result = try runProcess(Executables.notifyctl, arguments, environment: fixture.daemon.environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func intervalListShowAndTheSwitch() throws {
        #expect(try fixture.notifyctl("fetch", "list").stdout == "", "nothing scheduled: nothing printed")
        #expect(try fixture.notifyctl("fetch", "interval", app, "minimum").status == 0)
        // The first fetch starts at once; let it end so the plan is about the next one.
        let perform = try #require(recorder.wait(seconds: 10, forCount: 1) { $0.member == "PerformFetch" })
        guard case .uint64(let id) = perform[0].arguments[1] else { throw TestFailure("\(perform)") }
        #expect(try fixture.notifyctl("fetch", "complete", String(id), "no-data").status == 0)
        let list = try #require(try json("fetch", "list", "--json") as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["interval"] as? Int == 900 && list.first?["requested_interval"] as? Int == 1)
        #expect(list.first?["last_result"] as? String == "no-data")
        #expect((list.first?["reason"] as? String)?.hasPrefix("22 minutes 30 seconds after the last fetch at ") == true)
        let table = try fixture.notifyctl("fetch", "list").stdout
        #expect(table.hasPrefix("APP"), "\(table)")
        #expect(table.contains("minimum (15 min)") && table.contains("no-data"), "\(table)")
        #expect(try fixture.notifyctl("fetch", "disable", app).status == 0)
        let shown = try #require(try json("fetch", "show", app, "--json") as? [String: Any])
        #expect(shown["enabled"] as? Bool == false)
        #expect(shown["reason"] as? String == "no fetch is planned: background fetch is switched off for this app")
        #expect((shown["history"] as? [[String: Any]])?.first?["result"] as? String == "no-data")
        let text = try fixture.notifyctl("fetch", "show", app).stdout
        #expect(text.contains("enabled: no") && text.contains("FETCH  TRIGGER"), "\(text)")
        #expect(try fixture.notifyctl("fetch", "enable", app).status == 0)
        #expect((try json("fetch", "show", app, "--json") as? [String: Any])?["enabled"] as? Bool == true)
    }

    /// `fetch now --wait` prints what the app answered; here another
    /// short-lived process answers, as a desktop action's script would.
    @Test func nowWaitPrintsTheResult() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Executables.notifyctl)
        process.arguments = ["fetch", "now", app, "--wait"]
        process.environment = childEnvironment(fixture.daemon.environment)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let perform = try #require(recorder.wait(seconds: 10, forCount: 1) { $0.member == "PerformFetch" })
        guard case .uint64(let id) = perform[0].arguments[1] else { throw TestFailure("\(perform)") }
        #expect(try fixture.notifyctl("fetch", "complete", String(id), "new-data").status == 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(printed == "new-data\n")
        #expect(process.terminationStatus == 0)
    }

    @Test func badInputIsUsageOrTheDaemonsError() throws {
        let word = try fixture.notifyctl("fetch", "interval", app, "soon")
        #expect(word.status == 2)
        #expect(word.stderr.contains("the interval is a number of seconds, minimum or never, not 'soon'"))
        let long = try fixture.notifyctl("fetch", "interval", app, "604801")
        #expect(long.status == 1 && long.stderr.contains("longer than a week"), "\(long.stderr)")
        let unknown = try fixture.notifyctl("fetch", "complete", "999", "new-data")
        #expect(unknown.status == 1 && unknown.stderr.contains("fetch 999 is not running"), "\(unknown.stderr)")
        #expect(try fixture.notifyctl("fetch", "complete", "1", "expired").status == 2, "expired is notifyd's to say")
        let running = try fixture.notifyctl("fetch", "now", app)
        #expect(running.status == 0 && running.stdout == "1\n")
        #expect(try fixture.notifyctl("fetch", "now", app).status == 1, "one at a time")
    }
}
