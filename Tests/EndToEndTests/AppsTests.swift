import DBus
import Foundation
import Testing
import NotifyTesting

/// The Apps interface (SPEC "Apps") against the real daemon.
@Suite struct AppsTests {
    let fixture: Fixture
    let recorder: SignalRecorder
    static let apps = "org.notifyd.Notifyd1.Apps"

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [
                DBusMatchRule(interface: Self.apps, member: "StateChanged"),
                DBusMatchRule(interface: Fixture.badges, member: "BadgeChanged"),
                DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"),
            ])
    }

    func state(_ app: String, via connection: DBusConnection? = nil) throws -> String {
        try (connection ?? fixture.client).call(
            destination: Fixture.busName, path: Fixture.path, interface: Self.apps, member: "GetState", [.string(app)]
        ).decode(0)
    }

    func report(_ member: String, _ app: String, via connection: DBusConnection) throws {
        _ = try connection.call(destination: Fixture.busName, path: Fixture.path, interface: Self.apps, member: member, [.string(app)])
    }

    @Test func statesFollowTheReportsAndEndWithTheConnection() throws {
        let app = try DBusConnection.connect(to: .address(fixture.bus.address))
        #expect(try state("org.example.App") == "not-running")
        try report("DidBecomeActive", "org.example.App", via: app)
        #expect(try state("org.example.App") == "active")
        try report("WillResignActive", "org.example.App", via: app)
        #expect(try state("org.example.App") == "inactive")
        try report("DidEnterBackground", "org.example.App", via: app)
        #expect(try state("org.example.App") == "background")
        try report("DidEnterBackground", "org.example.App", via: app)  // no change, no signal
        app.close()
        let changes = try #require(recorder.wait { $0.member == "StateChanged" && $0.arguments.last == .string("not-running") })
            .filter { $0.member == "StateChanged" }.map(\.arguments)
        #expect(changes == [
            [.string("org.example.App"), .string("active")], [.string("org.example.App"), .string("inactive")],
            [.string("org.example.App"), .string("background")], [.string("org.example.App"), .string("not-running")],
        ])
        #expect(try state("org.example.App") == "not-running")
    }

    @Test func theLastReporterOwnsTheState() throws {
        let first = try DBusConnection.connect(to: .address(fixture.bus.address))
        let second = try DBusConnection.connect(to: .address(fixture.bus.address))
        try report("DidBecomeActive", "app", via: first)
        try report("DidEnterBackground", "app", via: second)
        let firstName = try #require(first.uniqueName)
        let departures = try SignalRecorder(address: fixture.bus.address, rules: [.nameOwnerChanged(firstName)])
        first.close()
        // Barrier: the bus has sent notifyd the first connection's departure
        // (a NameOwnerChanged it routes to every subscriber at once), and
        // notifyd answers this call only after handling it.
        #expect(departures.wait { $0.arguments == [.string(firstName), .string(firstName), .string("")] } != nil)
        try fixture.badges("GetBadge", [.string("app")])
        #expect(try state("app") == "background", "the first connection no longer owns it")
        second.close()
        #expect(recorder.wait { $0.member == "StateChanged" && $0.arguments.last == .string("not-running") } != nil)
    }

    @Test func becomingActiveResetsTheBadgeWithItsSignals() throws {
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(5)])
        let app = try DBusConnection.connect(to: .address(fixture.bus.address))
        try report("DidBecomeActive", "org.example.Mail", via: app)
        #expect(try fixture.badge("org.example.Mail") == 0)
        // Both, in either order: the dock's Update goes out on the app's own
        // connection, BadgeChanged on notifyd's, and the bus keeps no order
        // between two senders.
        #expect(recorder.wait {
            $0.member == "Update" && (try? [String: DBusValue](dbusValue: $0.arguments.last ?? .boolean(false)))?["count"] == .int64(0)
        } != nil)
        #expect(recorder.wait { $0.member == "BadgeChanged" && $0.arguments == [.string("org.example.Mail"), .uint32(0)] } != nil)
    }

    @Test func listAppsShowsEveryKnownApp() throws {
        let app = try DBusConnection.connect(to: .address(fixture.bus.address))
        try report("DidBecomeActive", "org.example.Active", via: app)
        try fixture.badges("SetBadge", [.string("org.example.Badged"), .uint32(2)])
        try fixture.event("s", app: "org.example.Sessioned", ["notify": .boolean(false)])
        guard case .array(_, let rows)? = try fixture.call(Self.apps, "ListApps").first else {
            Issue.record("ListApps is not an array")
            return
        }
        #expect(rows == [
            .structure([.string("org.example.Active"), .string("active"), .uint32(0)]),
            .structure([.string("org.example.Badged"), .string("not-running"), .uint32(2)]),
            .structure([.string("org.example.Sessioned"), .string("not-running"), .uint32(1)]),
        ])
    }

    @Test func activationsArePersistedStatesAreNot() throws {
        let app = try DBusConnection.connect(to: .address(fixture.bus.address))
        try report("DidBecomeActive", "org.example.Used", via: app)
        try fixture.daemon.crashAndRestart()
        #expect(try state("org.example.Used") == "not-running", "a restart cannot know the old connections")
        guard case .array(_, let rows)? = try fixture.call(Self.apps, "ListApps").first else { return }
        #expect(rows.contains(.structure([.string("org.example.Used"), .string("not-running"), .uint32(0)])),
            "the activation history still knows the app")
    }

    @Test func invalidAppIDs() {
        for member in ["DidBecomeActive", "WillResignActive", "DidEnterBackground", "GetState"] {
            #expect(fixture.error(Self.apps, member, [.string("bad app")])?.name == Fixture.errorPrefix + "InvalidAppId")
        }
    }

    @Test func notifyctlActivateResetsTheBadgeButTheStateEndsWithIt() throws {
        try fixture.badges("SetBadge", [.string("org.example.Cli"), .uint32(3)])
        #expect(try fixture.notifyctl("activate", "org.example.Cli").status == 0)
        #expect(try fixture.badge("org.example.Cli") == 0)
        #expect(recorder.wait { $0.member == "StateChanged" && $0.arguments.last == .string("not-running") } != nil)
        #expect(try fixture.notifyctl("state", "org.example.Cli").stdout == "not-running\n")
        let apps = try fixture.notifyctl("apps", "--json")
        #expect(apps.stdout.contains("org.example.Cli"))
    }
}
