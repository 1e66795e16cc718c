import DBus
import Foundation
import NotifyCore
import NotifyDaemon
import NotifyTesting
import Testing

/// Popups decided by the core, seen at the daemon level through the bus:
/// the in-process daemon posts to a recording desktop (no GLib, no
/// notification server), which answers as a server that shows everything.
@Suite struct PopupDecisionTests {
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    static let apps = "org.notifyd.Notifyd1.Apps"
    let app = try! AppID("org.example.Downloads")

    func event(_ daemon: InProcessDaemon, _ session: String, _ event: [String: DBusValue]) throws {
        let _: UInt64 = try daemon.call(
            Self.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app.rawValue), .vardict(event)]
        ).decode(0)
    }

    @Test func anEventsPopupIsPostedRenderedForTheServerAndAnnounced() throws {
        let daemon = try InProcessDaemon()
        let posted = try SignalRecorder(
            address: daemon.bus.address, rules: [DBusMatchRule(interface: Self.sessions, member: "NotificationPosted")])
        try event(daemon, "dl-1", ["title": .string("a <b>.iso"), "path": .string("/tmp/a.iso")])
        let signal = try #require(posted.wait(seconds: 10, forCount: 1) { _ in true }?.first)
        #expect(signal.arguments.prefix(3) == [.string(app.rawValue), .string("dl-1"), .uint32(1)])
        let request = try #require(daemon.desktop.requests.first)
        #expect(request.summary == "Download complete")
        #expect(request.body == "a &lt;b&gt;.iso", "the recording server reads markup: escaped by the core")
        #expect(request.withActions && request.openPath == "/tmp/a.iso")
        #expect(daemon.desktop.effects.contains { if case .playSound = $0 { true } else { false } },
                "a server without sounds: notifyd plays it")
    }

    @Test func aFloodIsMergedIntoASummaryWhileEveryEventCounts() throws {
        let daemon = try InProcessDaemon()
        for index in 1...8 { try event(daemon, "dl-\(index)", ["title": .string("f\(index)")]) }
        try daemon.sync()
        try waitUntil("a summary is posted", seconds: 10) {
            daemon.desktop.requests.contains { $0.summary.hasSuffix("downloads complete") }
        }
        #expect(daemon.desktop.requests.filter { $0.summary == "Download complete" }.count == 3)
        let badge: UInt32 = try daemon.call("org.notifyd.Notifyd1.Badges", "GetBadge", [.string(app.rawValue)]).decode(0)
        #expect(badge == 8)
    }

    @Test func clickingAPopupActivatesTheAppAndResetsItsBadge() throws {
        let daemon = try InProcessDaemon()
        let changed = try SignalRecorder(
            address: daemon.bus.address, rules: [DBusMatchRule(interface: Self.apps, member: "StateChanged")])
        try event(daemon, "dl-1", ["title": .string("x"), "path": .string("/tmp/x")])
        try waitUntil("the popup is posted", seconds: 10) { !daemon.desktop.requests.isEmpty }
        let key = try #require(daemon.desktop.requests.first).key
        daemon.desktop.click("default", on: key)
        #expect(changed.wait(seconds: 10, forCount: 1) { $0.arguments == [.string(app.rawValue), .string("active")] } != nil)
        let badge: UInt32 = try daemon.call("org.notifyd.Notifyd1.Badges", "GetBadge", [.string(app.rawValue)]).decode(0)
        #expect(badge == 0)
        try waitUntil("the app is launched and the popup closed", seconds: 10) {
            daemon.desktop.effects.suffix(2) == [.launchApp(app, activationToken: nil), .close(key)]
        }
    }

    @Test func theDaemonSaysWhichServerItPostsTo() throws {
        let daemon = try InProcessDaemon()
        let server: DBusValue = try daemon.call(
            "org.freedesktop.DBus.Properties", "Get", [.string("org.notifyd.Notifyd1.Daemon"), .string("NotificationServer")]
        ).decode(0)
        #expect(server == .string("recording 1"), "\(server)")
    }
}
