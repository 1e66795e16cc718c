import DBus
import Foundation
import Testing
import NotifyTesting

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

    /// Issue 9, defect 2, as the user reads it: dunst renders markup, and
    /// the file name shows exactly as written.
    @Test func hostileFileNamesShowAsWritten() throws {
        let fixture = try Fixture()
        let dunst = try DunstSession(busAddress: fixture.bus.address, directory: fixture.bus.directory)
        try fixture.waitForNotificationServer()
        let titles = ["<untitled>.pdf", #"R&D <b>notes</b> "v2" <draft>.pdf"#, #"<a href="https://example.com/">invoice.pdf</a>"#]
        let posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
        for (index, title) in titles.enumerated() {
            try fixture.event("hostile-\(index)", app: "org.example.App\(index)", ["title": .string(title)])
        }
        try waitUntil("three popups posted", seconds: 10) { posted.received.count >= 3 }
        try waitUntil("three popups in dunst", seconds: 10) { (try? dunst.dunstctl("count", "displayed").stdout)?.hasPrefix("3") == true }
        // dunst keeps the body as received and renders it as Pango markup:
        // its entities must decode to the title, and nothing else.
        let bodies = try dunst.closeAllAndReadHistory().map(\.body)
        let shown = bodies.map {
            $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        #expect(Set(shown) == Set(titles))
        #expect(bodies.allSatisfy { !$0.contains("<") }, "no tag reaches dunst's markup parser")
    }

    /// Defect 6: without a sound device, each sound used to print eight
    /// raw `ALSA lib` lines and a vague warning. Now libasound is silent
    /// and the real cause is said once.
    @Test func soundFailuresAreSaidOnceWithTheirCause() throws {
        let runtime = try makeTemporaryDirectory(prefix: "notifyd-runtime")
        defer { try? FileManager.default.removeItem(at: runtime) }
        let fixture = try Fixture(extraEnvironment: ["XDG_RUNTIME_DIR": runtime.path, "PULSE_SERVER": ""])
        let dunst = try DunstSession(busAddress: fixture.bus.address, directory: fixture.bus.directory)
        defer { withExtendedLifetime(dunst) {} }
        try fixture.waitForNotificationServer()
        let posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
        for index in 0..<3 {
            try fixture.event("sound-\(index)", app: "org.example.Sound\(index)", ["title": .string("f\(index)")])
        }
        try waitUntil("three popups posted", seconds: 10) { posted.received.count >= 3 }
        let log = fixture.daemon.log
        #expect(!log.contains("ALSA lib"), "libasound's own printing reached notifyd's stderr")
        let playback = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? [])
            .contains { $0.hasPrefix("pcmC") && $0.hasSuffix("p") }
        if !playback {
            let warnings = log.split(separator: "\n").filter { $0.contains("warning") && $0.contains("sound") }
            #expect(warnings.count == 1, "\(warnings)")
            #expect(warnings.first?.contains("no sound device") == true)
        }
    }
}
