import DBus
import Foundation
import Testing
import TestSupport

/// The whole path with a real notification server: dunst under Xvfb.
@Suite struct DunstEndToEndTests {
    @Test func aFinishedDownloadReachesDunst() throws {
        let fixture = try Fixture()
        let dunst = try DunstSession(busAddress: fixture.bus.address, directory: fixture.bus.directory)
        try fixture.waitForNotificationServer()
        guard case .string(let server) = try fixture.property("NotificationServer") else { throw TestFailure("no server name") }
        #expect(server.hasPrefix("dunst"))
        let posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
        try fixture.event("dunst-1", app: "org.example.Dunst", ["title": .string("ubuntu.iso")])
        let signal = try #require(posted.wait(seconds: 10) { _ in true }?.last)
        let details = try [String: DBusValue](dbusValue: signal.arguments[3])
        // dunst has no `sound` capability, so notifyd played the sound itself (or failed to, without a sound card).
        #expect(details["sound-backend"] == .string("canberra") || details["sound-backend"] == .string("failed"))
        let history = try dunst.closeAllAndReadHistory()
        let entry = try #require(history.first { $0.summary == "Download complete" })
        #expect(entry.body == "ubuntu.iso")
        #expect(entry.app == "org.example.Dunst")
    }
}
