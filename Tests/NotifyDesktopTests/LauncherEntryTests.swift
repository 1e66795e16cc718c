import DBus
import NotifyCore
import Testing

@testable import NotifyDesktop

@Suite struct LauncherEntryTests {
    @Test func propertiesCarryCountAsInt64AndVisibility() throws {
        let entry = LauncherEntry(count: 3)
        #expect(entry.properties == .vardict([
            "count": .int64(3), "count-visible": .boolean(true), "progress": .double(0), "progress-visible": .boolean(false),
        ]))
        #expect(LauncherEntry(count: 0).isVisible == false)
        #expect(LauncherEntry(count: 0, progress: 0.5).isVisible)
    }

    @Test func appURIAndPathFollowLibunity() throws {
        let app = try AppID("org.example.Mail")
        #expect(LauncherEntry.appURI(app) == "application://org.example.Mail.desktop")
        #expect(LauncherEntry.objectPath(app).hasPrefix("/com/canonical/unity/launcherentry/"))
        #expect(DBusNames.isValidObjectPath(LauncherEntry.objectPath(app)))
        #expect(LauncherEntry.objectPath(app) != LauncherEntry.objectPath(try AppID("firefox")))
    }
}
