import DBus
import Foundation
import Testing
import NotifyTesting

/// notifyctl as a whole process against the real daemon: output, --json,
/// exit statuses and activation.
@Suite struct NotifyctlEndToEndTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func badgeCommandsRoundTrip() throws {
        #expect(try fixture.notifyctl("badge", "list").stdout == "")
        #expect(try fixture.notifyctl("badge", "set", "org.example.Mail", "3").status == 0)
        #expect(try fixture.notifyctl("badge", "increment", "firefox").stdout == "1\n")
        #expect(try fixture.notifyctl("badge", "increment", "firefox", "5").stdout == "6\n")
        #expect(try fixture.notifyctl("badge", "increment", "firefox", "-2").stdout == "4\n")
        #expect(try fixture.notifyctl("badge", "increment", "firefox", "--", "-100").stdout == "0\n")
        #expect(try fixture.notifyctl("badge", "get", "org.example.Mail").stdout == "3\n")
        _ = try fixture.notifyctl("badge", "set", "aaa", "2")
        #expect(try fixture.notifyctl("badge", "list").stdout == "aaa 2\norg.example.Mail 3\n")
        #expect(try fixture.badge("org.example.Mail") == 3, "notifyctl and D-Bus see the same state")
        #expect(try fixture.notifyctl("badge", "clear", "aaa").status == 0)
        #expect(try fixture.notifyctl("badge", "clear", "--all").stdout == "1\n")
        #expect(try fixture.badge("org.example.Mail") == 0)
    }

    @Test func jsonOutputs() throws {
        _ = try fixture.notifyctl("badge", "set", "firefox", "2")
        _ = try fixture.notifyctl("badge", "set", "q\"uote", "1")  // refused by notifyd; nothing stored
        #expect(try fixture.notifyctl("badge", "list", "--json").stdout == "{\"firefox\":2}\n")
        #expect(try fixture.notifyctl("badge", "get", "firefox", "--json").stdout == "{\"app\":\"firefox\",\"count\":2}\n")
        let status = try fixture.notifyctl("status", "--json")
        #expect(status.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["version"] as? String == (try Executables.releaseVersion()))
        #expect(object?["state_directory"] as? String == fixture.daemon.stateDirectory.path)
        #expect(object?["pending_handlers"] as? Int == 0)
        #expect(object?["badged_apps"] as? Int == 1)
        #expect(object?["running_tasks"] as? Int == 0)
        #expect(object?["inhibiting"] as? Bool == false)
    }

    @Test func statusInText() throws {
        let result = try fixture.notifyctl("status")
        #expect(result.status == 0)
        #expect(result.stdout.contains(try Executables.releaseVersion()))
        #expect(result.stdout.contains(fixture.daemon.stateDirectory.path))
        #expect(result.stdout.contains("Background tasks:     0\n"))
        #expect(result.stdout.contains("Sleep held off:       no\n"))
    }

    @Test func daemonErrorsExitOneWithTheDaemonsMessage() throws {
        let range = try fixture.notifyctl("badge", "set", "x", "2147483648")
        #expect(range.status == 1)
        #expect(range.stdout.isEmpty)
        #expect(range.stderr.contains("above the maximum 2147483647"))
        let app = try fixture.notifyctl("badge", "get", "a..b")
        #expect(app.status == 1)
        #expect(app.stderr.contains("invalid app ID 'a..b'"))
    }

    @Test(arguments: [
        ["badge", "set", "x", "-1"], ["badge", "set", "x", "4294967296"], ["badge", "set", "x", "abc"],
        ["badge", "increment", "x", "2147483648"], ["badge", "clear"], ["badge", "clear", "x", "--all"], ["bogus"],
        ["badge", "get"],
    ])
    func badUsageExitsTwo(_ arguments: [String]) throws {
        let result = try runProcess(Executables.notifyctl, arguments, environment: fixture.daemon.environment)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("notifyctl: "))
    }

    @Test func helpTeachesByExampleAndExitsZero() throws {
        for arguments in [["--help"], ["badge", "--help"], ["help", "badge", "set"], ["--version"]] {
            let result = try runProcess(Executables.notifyctl, arguments, environment: fixture.daemon.environment)
            #expect(result.status == 0, "\(arguments)")
            #expect(!result.stdout.isEmpty)
        }
        #expect(try fixture.notifyctl("badge", "--help").stdout.contains("Examples:"))
        let completion = try fixture.notifyctl("--generate-completion-script", "bash")
        #expect(completion.status == 0 && completion.stdout.contains("notifyctl"))
    }

    @Test func noDaemonAndNoActivationExitsThree() throws {
        fixture.daemon.stop()
        try fixture.daemon.waitForName(present: false)
        let result = try fixture.notifyctl("badge", "list")
        #expect(result.status == 3)
        #expect(result.stderr.contains("notifyd &"))
    }

    @Test func noBusAtAllExitsThree() throws {
        let result = try runProcess(
            Executables.notifyctl, ["status"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "DISPLAY": ""])
        #expect(result.status == 3)
    }

    @Test func dbusActivationStartsTheDaemon() throws {
        fixture.daemon.stop()
        try fixture.daemon.waitForName(present: false)
        let state = fixture.bus.directory.appendingPathComponent("activated-state").path
        try fixture.bus.installService(
            name: "org.notifyd.Notifyd1", executable: Executables.notifyd, arguments: ["--state-dir", state])
        let result = try fixture.notifyctl("badge", "set", "activated", "9")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.badge("activated") == 9)
        let owner = try #require(try fixture.client.nameOwner(of: Fixture.busName))
        let pid = try fixture.client.unixProcessID(of: owner)
        kill(pid_t(pid), SIGTERM)
    }

    @Test func aFailingActivationExitsThreeWithTheReason() throws {
        fixture.daemon.stop()
        try fixture.daemon.waitForName(present: false)
        try fixture.bus.installService(name: "org.notifyd.Notifyd1", executable: "/bin/false")
        let result = try fixture.notifyctl("status")
        #expect(result.status == 3)
        #expect(!result.stderr.isEmpty)
    }

    @Test func eachChangeThroughNotifyctlEmitsOneSignal() throws {
        let recorder = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.badges, member: "BadgeChanged")])
        _ = try fixture.notifyctl("badge", "set", "a", "1")
        _ = try fixture.notifyctl("badge", "set", "a", "1")
        _ = try fixture.notifyctl("badge", "clear", "b")
        _ = try fixture.notifyctl("badge", "set", "end", "1")
        let signals = try #require(recorder.wait { $0.arguments.first == .string("end") })
        #expect(signals.map(\.arguments) == [[.string("a"), .uint32(1)], [.string("end"), .uint32(1)]])
    }
}
