import DBus
import Foundation
import NotifyTesting
import Testing

/// Issue 19's defect: on many desktops no notification server runs until
/// the first notification, and D-Bus starts it from an activation file
/// (dunst and mako on i3 or sway, xfce4-notifyd, MATE's server, GNOME
/// Shell's helper after a crash). notifyd used to hold every popup for
/// ever there; and a server that answered its first query with an error
/// (GNOME Shell's helper owns the name a moment before it exports its
/// object) was taken for none.
@Suite struct OnDemandServerTests {
    /// dunst's own activation file on the bus, dunst not running, and the
    /// display in the activation environment, as a session at login sets
    /// it: the first event starts dunst, and its popup shows.
    @Test func anActivatableServerIsStartedByTheFirstPopup() throws {
        let fixture = try Fixture()
        let screen = try XvfbDisplay(directory: fixture.bus.directory, width: 800, height: 600)
        try fixture.bus.updateActivationEnvironment(["DISPLAY": screen.display])
        try fixture.bus.installActivationFile(from: "/usr/share/dbus-1/services/org.knopwob.dunst.service")
        #expect(try fixture.property("NotificationServer") == .string(""), "nothing runs before the first popup")

        let posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
        // A short-lived sender, as a download tool's hook is.
        let emit = try runProcess(
            "/usr/bin/gdbus",
            [
                "emit", "--session", "--object-path", "/org/example/Worker", "--signal",
                "\(Fixture.worker).EventsForBackgroundSession", "dl-1", "org.example.OnDemand",
                "{'title': <'debian-12.iso'>}",
            ], environment: fixture.daemon.environment)
        #expect(emit.status == 0, "\(emit.stderr)")
        let signal = try #require(posted.wait(seconds: 20) { _ in true }?.last, "no popup was posted: \(fixture.daemon.log)")
        #expect(signal.arguments.first == .string("org.example.OnDemand"))
        guard case .string(let server) = try fixture.property("NotificationServer") else { throw TestFailure("no name") }
        #expect(server.hasPrefix("dunst"), "the server D-Bus started is the one notifyd posted to: \(server)")

        // What the user sees: dunst shows it (its history, once closed).
        let dunstctl = { (arguments: [String]) in
            try runProcess(
                "/usr/bin/dunstctl", arguments,
                environment: ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address, "DISPLAY": screen.display])
        }
        _ = try dunstctl(["close-all"])
        let history = try dunstctl(["history"]).stdout
        #expect(history.contains("Download complete") && history.contains("debian-12.iso"), "\(history)")
        #expect(fixture.daemon.log.contains("started the notification server on demand"))
    }

    /// No server runs and none can be started: the popup waits, D-Bus is
    /// asked once (not at every popup), and a server that comes later gets
    /// what waited.
    @Test func withNoServerToStartPopupsWaitForOne() throws {
        let fixture = try Fixture()
        for index in 0..<3 {
            try fixture.event("wait-\(index)", app: "org.example.Waiting", ["title": .string("f\(index)")])
        }
        try waitUntil("notifyd asked the bus for a server", seconds: 10) {
            fixture.daemon.log.contains("D-Bus can start none")
        }
        #expect(fixture.daemon.log.components(separatedBy: "D-Bus can start none").count == 2, "asked once")
        let server = try RecordingNotificationServer(address: fixture.bus.address)
        defer { server.stop() }
        let popups = try server.waitForNotifications(count: 3, seconds: 10)
        #expect(Set(popups.map(\.body)) == ["f0", "f1", "f2"])
    }

    /// A server that owns the name before it exports its object (GNOME
    /// Shell's helper) is asked again, not taken for none: it is named,
    /// and the popup that waited reaches it.
    @Test func aServerThatAnswersLateIsAskedAgain() throws {
        let fixture = try Fixture()
        try fixture.event("late-1", app: "org.example.Late", ["title": .string("report.pdf")])
        let server = try RecordingNotificationServer(
            address: fixture.bus.address, name: "late-helper", exportsLate: 0.7)
        defer { server.stop() }
        try waitUntil("notifyd names the late server", seconds: 10) {
            try fixture.property("NotificationServer") == .string("late-helper 1.0")
        }
        let popup = try #require(try server.waitForNotifications(count: 1, seconds: 10).first)
        #expect(popup.body == "report.pdf")
        #expect(fixture.daemon.log.contains("did not answer GetServerInformation"), "the first query failed")
    }
}
