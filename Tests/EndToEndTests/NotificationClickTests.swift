import DBus
import Foundation
import Testing
import NotifyTesting

/// Clicking a notification (SPEC "Apps"): the default action activates the
/// app through GIO and counts as DidBecomeActive; Open opens the file with
/// the user's default handler. A fake DBusActivatable app records both.
@Suite struct NotificationClickTests {
    let fixture: Fixture
    let data: URL
    let app: FakeDBusActivatableApp
    let server: RecordingNotificationServer

    init() throws {
        data = try makeTemporaryDirectory(prefix: "notifyd-click")
        let applications = data.appendingPathComponent("share/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        let config = data.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[Default Applications]\ntext/plain=org.example.Fake.desktop\n"
            .write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        fixture = try Fixture(extraEnvironment: [
            "XDG_DATA_DIRS": data.appendingPathComponent("share").path + ":/usr/share",
            "XDG_CONFIG_HOME": config.path, "XDG_DATA_HOME": data.appendingPathComponent("home").path,
        ])
        app = try FakeDBusActivatableApp(address: fixture.bus.address)
        try app.writeDesktopFile(into: applications, mimeTypes: ["text/plain"])
        server = try RecordingNotificationServer(address: fixture.bus.address)
        try fixture.waitForNotificationServer()
    }

    @Test func theDefaultActionActivatesTheAppAndResetsItsBadge() throws {
        try fixture.event("c1", app: "org.example.Fake", ["title": .string("done.iso")])
        #expect(try fixture.badge("org.example.Fake") == 1)
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.actions.contains("default"))
        // xfce4-notifyd and lxqt-notificationd draw it as a button: it says what it does.
        #expect(popup.actionLabels["default"]?.hasPrefix("Show in ") == true)
        try server.invokeAction(id: popup.id, action: "default", activationToken: "token-1")
        let calls = try app.waitForCalls(count: 1)
        // lxqt-notificationd leaves the popup up after the action: notifyd closes it.
        #expect(try server.waitForCloseRequests(count: 1) == [popup.id])
        #expect(calls.first?.method == "Activate")
        try? waitUntil("the click reset the badge", seconds: 5) { try fixture.badge("org.example.Fake") == 0 }
        #expect(try fixture.badge("org.example.Fake") == 0, "a click counts as DidBecomeActive")
        let state: String = try fixture.call("org.notifyd.Notifyd1.Apps", "GetState", [.string("org.example.Fake")]).decode(0)
        #expect(state == "active")
    }

    @Test func openOpensTheFileWithTheDefaultHandler() throws {
        let file = data.appendingPathComponent("report.txt")
        try "hello".write(to: file, atomically: true, encoding: .utf8)
        try fixture.event("c2", app: "org.example.Fake", ["title": .string("report.txt"), "path": .string(file.path)])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.actions.contains("open"))
        try server.invokeAction(id: popup.id, action: "open")
        let call = try #require(try app.waitForCalls(count: 1).first)
        #expect(call.method == "Open")
        #expect(call.uris == [file.absoluteURL.absoluteString])
        #expect(try fixture.badge("org.example.Fake") == 1, "opening the file is not activating the app")
    }

    @Test func aClosedNotificationIsForgotten() throws {
        try fixture.event("c3", app: "org.example.Fake", ["title": .string("x")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        // The server's signals reach notifyd in the order it sends them.
        try server.close(id: popup.id)
        try server.invokeAction(id: popup.id, action: "default")
        // Barrier: "open" on a later popup, which notifyd handles after the
        // click above: a click that still counted would have reset the badge
        // by then, and sent its Activate to the app first.
        let file = data.appendingPathComponent("probe.txt")
        try "probe".write(to: file, atomically: true, encoding: .utf8)
        try fixture.event("c3-probe", app: "org.example.Fake", ["title": .string("probe.txt"), "path": .string(file.path)])
        let probe = try #require(try server.waitForNotifications(count: 2).last)
        try server.invokeAction(id: probe.id, action: "open")
        _ = try app.waitForCalls(count: 1)
        #expect(app.calls.map(\.method) == ["Open"], "a click on a closed notification does nothing")
        #expect(try fixture.badge("org.example.Fake") == 2)
    }
}
