import DBus
import Foundation
import Testing
import NotifyTesting

/// What each server is sent is decided when it is sent, for that server:
/// actions, escaped text, sound hints (issue "Right on every desktop").
@Suite struct NotificationRenderingTests {
    let fixture: Fixture
    let posted: SignalRecorder

    init() throws {
        fixture = try Fixture()
        posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
    }

    func details(_ session: String) throws -> [String: DBusValue] {
        let signals = try #require(posted.wait { $0.arguments.count == 4 && $0.arguments[1] == .string(session) })
        return try [String: DBusValue](dbusValue: try #require(signals.last).arguments[3])
    }

    /// Issue 9, defect 1: a popup held while no server ran lost its actions.
    @Test func aPopupHeldAcrossAServerRestartKeepsItsActions() throws {
        var server: RecordingNotificationServer? = try RecordingNotificationServer(address: fixture.bus.address)
        try fixture.waitForNotificationServer()
        server?.stop()
        server = nil
        try fixture.waitForNotificationServer(false)
        try fixture.event("held", app: "app", ["title": .string("a.iso"), "path": .string("/tmp/a.iso")])
        let restarted = try RecordingNotificationServer(address: fixture.bus.address)
        let popup = try #require(try restarted.waitForNotifications(count: 1).first)
        #expect(popup.body == "a.iso")
        #expect(popup.actions.contains("open"))
        #expect(popup.actionLabels["open"] == "Open")
    }

    /// Defect 2: file names are text, never markup, on servers that read markup.
    @Test(arguments: [
        ("<untitled>.pdf", "&lt;untitled&gt;.pdf"),
        (#"R&D <b>notes</b> "v2" <draft>.pdf"#, #"R&amp;D &lt;b&gt;notes&lt;/b&gt; "v2" &lt;draft&gt;.pdf"#),
        (#"<a href="https://example.com/">invoice.pdf</a>"#, #"&lt;a href="https://example.com/"&gt;invoice.pdf&lt;/a&gt;"#),
    ])
    func bodyTextIsEscapedForServersThatReadMarkup(title: String, escaped: String) throws {
        let server = try RecordingNotificationServer(
            address: fixture.bus.address, capabilities: ["actions", "body", "body-markup", "body-hyperlinks"])
        try fixture.waitForNotificationServer()
        try fixture.event("m", app: "app", ["title": .string(title), "summary": .string("<i>Done</i>")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.body == escaped)
        #expect(popup.summary == "<i>Done</i>", "the summary is plain text by the specification")
        #expect(try details("m")["body"] == .string(title), "the signal says what the user reads")
    }

    @Test func bodyTextIsSentAsIsToServersWithoutMarkup() throws {
        let server = try RecordingNotificationServer(address: fixture.bus.address, capabilities: ["actions", "body"])
        try fixture.waitForNotificationServer()
        try fixture.event("p", app: "app", ["title": .string("R&D <b>.pdf")])
        #expect(try server.waitForNotifications(count: 1).first?.body == "R&D <b>.pdf")
    }

    /// Defect 3: GNOME's daemon lists `sound` and plays nothing; notifyd
    /// plays it and keeps the server quiet.
    @Test func onGnomesDaemonNotifydPlaysTheSound() throws {
        let server = try RecordingNotificationServer(
            address: fixture.bus.address, capabilities: ["actions", "body", "sound"], name: "Notification Daemon",
            vendor: "GNOME")
        try fixture.waitForNotificationServer()
        try fixture.event("g", app: "app", ["title": .string("x")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.hints["sound-name"] == nil)
        #expect(popup.hints["suppress-sound"] == .boolean(true))
        let backend = try details("g")["sound-backend"]
        #expect(backend == .string("canberra") || backend == .string("failed"))
    }

    /// MATE's daemon plays `sound-file` only: files go to it, names are
    /// played by notifyd.
    @Test func onMatesDaemonFilesGoToTheServerAndNamesToCanberra() throws {
        let server = try RecordingNotificationServer(
            address: fixture.bus.address, capabilities: ["actions", "body", "sound"], name: "Notification Daemon",
            vendor: "MATE")
        try fixture.waitForNotificationServer()
        try fixture.event("file", app: "a", ["title": .string("x"), "sound": .string("/usr/share/sounds/x.oga")])
        try fixture.event("name", app: "b", ["title": .string("y")])
        let popups = try server.waitForNotifications(count: 2)
        let byFile = try #require(popups.first { $0.body == "x" })
        let byName = try #require(popups.first { $0.body == "y" })
        #expect(byFile.hints["sound-file"] == .string("/usr/share/sounds/x.oga"))
        #expect(try details("file")["sound-backend"] == .string("server"))
        #expect(byName.hints["sound-name"] == nil && byName.hints["suppress-sound"] == .boolean(true))
        let backend = try details("name")["sound-backend"]
        #expect(backend == .string("canberra") || backend == .string("failed"))
    }

    /// Defect 7: "25%", no space before the sign.
    @Test func progressReadsAsAPercentage() throws {
        let server = try RecordingNotificationServer(address: fixture.bus.address, name: "dunst")
        try fixture.waitForNotificationServer()
        try fixture.event(
            "dl", app: "app", ["kind": .string("progress"), "bytes-written": .uint64(25), "bytes-expected": .uint64(100)])
        #expect(try server.waitForNotifications(count: 1).first?.body == "25%")
    }

    /// Defect 4: notify-osd closes unseen a queued bubble replaced in
    /// place, so there the flood's summary is posted once, settled.
    @Test func onNotifyOSDTheFloodSummaryIsPostedOnceWhenTheBurstIsOver() throws {
        let server = try RecordingNotificationServer(
            address: fixture.bus.address, capabilities: ["body", "body-markup", "x-canonical-append"], name: "notify-osd",
            vendor: "Canonical Ltd")
        try fixture.waitForNotificationServer()
        for index in 0..<10 {
            let message = try DBusMessage.methodCall(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.sessions,
                member: "HandleEventsForBackgroundSession",
                arguments: [.string("osd-\(index)"), .string("org.example.Flood"), .vardict(["title": .string("file\(index)")])])
            try fixture.client.send(message)
        }
        let popups = try server.waitForNotifications(count: 4, seconds: 10)
        let summaries = popups.filter { $0.summary.hasSuffix("downloads complete") }
        #expect(popups.count == 4, "three single popups and one summary")
        #expect(summaries.map(\.summary) == ["10 downloads complete"])
        #expect(summaries.first?.replacesID == 0)
        #expect(summaries.first?.body == "file9\nfile8\nfile7\nfile6\nfile5\nand 5 more")
        #expect(server.notifications.count == 4, "never replaced afterwards")
    }
}
