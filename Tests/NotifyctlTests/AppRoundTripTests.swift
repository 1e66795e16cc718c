import DBus
import Foundation
import NotifyTesting
import Testing

/// `activate`, `state` and `apps` as processes against the real notifyd
/// (``InProcessDaemon``): what they print, the state notifyctl itself
/// reports ending with it (SPEC, Apps), the daemon's refusals (exit 1) and
/// no notifyd (exit 3).
@Suite struct AppRoundTripTests {
    static let apps = "org.notifyd.Notifyd1.Apps"
    let daemon: InProcessDaemon
    let recorder: SignalRecorder
    let notifyctl: NotifyctlRunner

    /// notifyd knowing `firefox` by its badge, 3.
    init() throws {
        let bus = try TestBus()
        recorder = try SignalRecorder(address: bus.address, rules: [DBusMatchRule(interface: Self.apps)])
        daemon = try InProcessDaemon(bus: bus)
        notifyctl = NotifyctlRunner(bus: bus)
        try daemon.call("org.notifyd.Notifyd1.Badges", "SetBadge", [.string("firefox"), .uint32(3)])
    }

    /// The `StateChanged` signals so far, as "app state".
    var stateChanges: [String] {
        recorder.received.filter { $0.member == "StateChanged" }.map {
            $0.arguments.map { if case .string(let text) = $0 { text } else { "\($0)" } }.joined(separator: " ")
        }
    }

    @Test func activateResetsTheBadgeAndTheStateEndsWithNotifyctl() throws {
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  3\n")
        let result = try notifyctl("activate", "firefox")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        // notifyctl's connection owned the state it reported: gone with it (SPEC, Apps).
        try waitUntil("firefox is not running again", seconds: 10) { stateChanges.count == 2 }
        #expect(stateChanges == ["firefox active", "firefox not-running"])
        #expect(try notifyctl("state", "firefox").stdout == "not-running\n")
        #expect(try notifyctl("apps").stdout == "APP      STATE        BADGE\nfirefox  not-running  0\n")
    }

    /// A state reported by a connection that stays (an app) is what
    /// `state` and `apps` show, until that connection leaves; reading
    /// them changes nothing.
    @Test func stateAndAppsShowWhatARunningAppReported() throws {
        let app = try DBusConnection.connect(to: .address(daemon.bus.address))
        _ = try app.call(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: Self.apps,
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
        let array = try #require(try notifyctl.json("apps", "--json") as? [[String: Any]])
        #expect(array.map { $0["app"] as? String } == ["firefox", "org.gnome.Nautilus"])
        #expect(array.map { $0["state"] as? String } == ["not-running", "background"])
        #expect(array.map { $0["badge"] as? Int } == [3, 0])
        try daemon.sync()
        #expect(stateChanges == ["org.gnome.Nautilus background"], "reading a state changes none")
        app.close()
        try waitUntil("Nautilus is not running", seconds: 10) { stateChanges.count == 2 }
        #expect(try notifyctl("state", "org.gnome.Nautilus").stdout == "not-running\n")
    }

    @Test func appErrorsExit1WithTheirMessage() throws {
        let invalid = try notifyctl("activate", "a..b")
        #expect(invalid.status == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        if let reason = SandboxedClient.unavailableReason {
            Issue.record("cannot run notifyctl as a Flatpak app here: \(reason)")
            return
        }
        let refused = try SandboxedClient.run(
            appID: "org.example.Reader", notifyctl.executable, ["activate", "org.example.Other"],
            environment: notifyctl.environment, scratch: daemon.bus.directory)
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "notifyctl: the caller is the sandboxed app org.example.Reader (Flatpak); it may act for "
                + "org.example.Reader only, not for org.example.Other\n")
        try daemon.sync()
        #expect(stateChanges.isEmpty, "refused calls change nothing")
        #expect(try notifyctl("state", "org.example.Other").stdout == "not-running\n")
    }

    @Test func noAppsPrintNothing() throws {
        // A notifyd that has never heard of an app.
        let fresh = try InProcessDaemon()
        let notifyctl = NotifyctlRunner(bus: fresh.bus)
        let text = try notifyctl("apps")
        #expect(text.status == 0)
        #expect(text.stdout.isEmpty)
        #expect(try notifyctl("apps", "--json").stdout == "[]\n")
    }

    @Test func appCommandsWithoutNotifydExit3() throws {
        daemon.stop()
        for arguments in [["activate", "firefox"], ["state", "firefox"], ["apps"]] {
            let result = try notifyctl.run(arguments)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.stderr.contains("notifyd is not running"), "\(arguments): \(result.stderr)")
        }
    }
}
