import DBus
import Foundation
import Testing
import NotifyTesting

/// An app with a desktop file in `$XDG_DATA_DIRS/applications`: its Name
/// and Icon are used, and its notifications have a default action.
@Suite struct DesktopFileTests {
    @Test func nameIconAndDefaultActionComeFromTheDesktopFile() throws {
        let data = try makeTemporaryDirectory(prefix: "notifyd-xdg")
        defer { try? FileManager.default.removeItem(at: data) }
        let applications = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try """
            [Desktop Entry]
            Type=Application
            Name=Example Mail
            Icon=mail-client
            Exec=/bin/true
            """.write(to: applications.appendingPathComponent("org.example.Mail.desktop"), atomically: true, encoding: .utf8)
        let fixture = try Fixture(extraEnvironment: ["XDG_DATA_DIRS": data.path])
        let server = try RecordingNotificationServer(address: fixture.bus.address)
        try fixture.waitForNotificationServer()
        try fixture.event("m", app: "org.example.Mail", ["title": .string("inbox")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.appName == "Example Mail")
        #expect(popup.appIcon == "mail-client")
        #expect(popup.actions.contains("default"))
        #expect(popup.hints["desktop-entry"] == .string("org.example.Mail"))
    }
}
