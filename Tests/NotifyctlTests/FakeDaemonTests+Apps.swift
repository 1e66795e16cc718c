import DBus
import Foundation
import Testing
import NotifyTesting

/// `activate`, `state` and `apps` against the stand-in.
extension FakeDaemonTests {
    @Test func activateResetsTheBadgeAndTheStateEndsWithNotifyctl() throws {
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  3\n")
        let result = try notifyctl("activate", "firefox")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let calls = try daemon.appCalls()
        #expect(calls.map(\.member) == ["ListApps", "DidBecomeActive"])
        #expect(calls.last?.arguments == [.string("firefox")])
        // notifyctl's connection owned the state it reported: gone with it (SPEC, Apps).
        #expect(daemon.waitForState("firefox", "not-running"))
        #expect(try notifyctl("state", "firefox").stdout == "not-running\n")
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  0\n")
    }

    /// A state reported by a connection that stays (an app) is what
    /// `state` and `apps` show, until that connection leaves.
    @Test func stateAndAppsShowWhatARunningAppReported() throws {
        let app = try DBusConnection.connect(to: .address(bus.address))
        _ = try app.call(
            destination: FakeNotifyd.name, path: FakeNotifyd.path, interface: FakeNotifyd.apps,
            member: "DidEnterBackground", [.string("org.gnome.Nautilus")])
        let state = try notifyctl("state", "org.gnome.Nautilus")
        #expect(state.status == 0, "\(state.stderr)")
        #expect(state.stdout == "background\n")
        #expect(
            try notifyctl("state", "org.gnome.Nautilus", "--json").stdout
                == "{\"app\":\"org.gnome.Nautilus\",\"state\":\"background\"}\n")
        #expect(
            try notifyctl("apps").stdout
                == "APP                 STATE        BADGE\nfirefox             not-running  3\norg.gnome.Nautilus  background   0\n")
        let json = try notifyctl("apps", "--json")
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(array?.map { $0["app"] as? String } == ["firefox", "org.gnome.Nautilus"])
        #expect(array?.map { $0["state"] as? String } == ["not-running", "background"])
        #expect(array?.map { $0["badge"] as? Int } == [3, 0])
        #expect(try daemon.appCalls().map(\.member) == ["DidEnterBackground", "GetState", "GetState", "ListApps", "ListApps"])
        app.close()
        #expect(daemon.waitForState("org.gnome.Nautilus", "not-running"))
        #expect(try notifyctl("state", "org.gnome.Nautilus").stdout == "not-running\n")
    }

    @Test func appErrorsExit1WithTheirMessage() throws {
        let invalid = try notifyctl("activate", "a..b")
        #expect(invalid.status == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        let refused = try notifyctl("state", "org.example.Other", "--json")
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "notifyctl: a sandboxed app may only name itself, not 'org.example.Other'\n")
        #expect(try daemon.appCalls().isEmpty, "refused calls change nothing")
    }

    @Test func noAppsPrintNothing() throws {
        try daemon.forgetApps()
        let text = try notifyctl("apps")
        #expect(text.status == 0)
        #expect(text.stdout.isEmpty)
        #expect(try notifyctl("apps", "--json").stdout == "[]\n")
    }

    @Test func appCommandsWithoutNotifydExit3() throws {
        try daemon.leave()
        for arguments in [["activate", "firefox"], ["state", "firefox"], ["apps"]] {
            let result = try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.stderr.contains("notifyd is not running"))
        }
    }
}
