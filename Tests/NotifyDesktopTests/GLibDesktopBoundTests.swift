import Testing
import NotifyTesting

@testable import NotifyDesktop

extension LibnotifyTests {
    /// What the GLib side keeps stays bounded whatever the server does.
    @Suite struct Bounds {
        /// A server that never says "closed" (the soak's counting server;
        /// GNOME's tray until the user clears it) cannot make the known
        /// popups grow: past the bound the oldest is forgotten, and the
        /// newest still update in place.
        @Test func popupsAServerNeverClosesAreForgottenOldestFirst() throws {
            let harness = try DesktopHarness(popupsKept: 5)
            let app = "org.example.Busy"
            let keys = (1...8).map { NotificationKey(app: app, slot: "handler:\($0)") }
            var ids: [UInt32] = []
            for key in keys {
                harness.notifier.post(NotificationRequest(key: key, appID: app, summary: "Download complete"))
                ids.append(try harness.events.posted(key).id)
            }
            #expect(harness.notifier.withTable { $0.count } == 5)

            harness.notifier.post(NotificationRequest(key: keys[7], appID: app, summary: "Download failed"))
            try harness.events.posted(keys[7], occurrence: 2)
            harness.notifier.post(NotificationRequest(key: keys[0], appID: app, summary: "Download complete"))
            try harness.events.posted(keys[0], occurrence: 2)
            let recorded = try harness.server.waitForNotifications(count: 10)
            #expect(recorded[8].replacesID == ids[7], "the newest is still known: its popup is replaced")
            #expect(recorded[9].replacesID == 0, "the oldest was forgotten: posting it again makes a new popup")
            #expect(harness.notifier.withTable { $0.count } == 5)
        }
    }
}
