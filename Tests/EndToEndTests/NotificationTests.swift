import DBus
import Foundation
import Testing
import NotifyTesting

/// What notifyd posts (SPEC "Notifications"), recorded by a notification
/// server written for the tests, with and without `sound` and `actions`.
@Suite struct NotificationTests {
    let fixture: Fixture
    let posted: SignalRecorder

    init() throws {
        fixture = try Fixture()
        posted = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "NotificationPosted")])
    }

    func server(_ capabilities: [String] = ["actions", "body", "sound"], name: String = "recorder") throws
        -> RecordingNotificationServer
    {
        let server = try RecordingNotificationServer(address: fixture.bus.address, capabilities: capabilities, name: name)
        try fixture.waitForNotificationServer()
        return server
    }

    /// The details of the NotificationPosted signal for a session.
    func postedDetails(_ session: String) throws -> (id: UInt32, details: [String: DBusValue]) {
        let signals = try #require(posted.wait { $0.arguments.count == 4 && $0.arguments[1] == .string(session) })
        let signal = try #require(signals.last)
        guard case .uint32(let id) = signal.arguments[2] else { throw TestFailure("no notification id") }
        return (id, try [String: DBusValue](dbusValue: signal.arguments[3]))
    }

    @Test func finishedFollowsTheTableWithTheServersSound() throws {
        let server = try server()
        try fixture.event("f", app: "org.example.App", ["title": .string("a.iso"), "path": .string("/tmp/a.iso")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.summary == "Download complete")
        #expect(popup.body == "a.iso")
        #expect(popup.appName == "org.example.App", "no desktop file: the app ID is the app name")
        #expect(popup.hints["desktop-entry"] == .string("org.example.App"))
        #expect(popup.hints["category"] == .string("transfer.complete"))
        #expect(popup.hints["sound-name"] == .string("complete-download"))
        #expect(popup.actions.contains("open"), "a path gives an Open action")
        #expect(!popup.actions.contains("default"), "no desktop file: no default action")
        let (id, details) = try postedDetails("f")
        #expect(id == popup.id)
        #expect(details["summary"] == .string("Download complete"))
        #expect(details["body"] == .string("a.iso"))
        #expect(details["sound-backend"] == .string("server"))
        #expect(details["merged"] == .uint32(0))
    }

    @Test func failedAndFetchFollowTheTable() throws {
        let server = try server()
        try fixture.event("x", app: "app", ["kind": .string("failed"), "title": .string("b.iso"), "error": .string("disk full")])
        try fixture.event("y", app: "app", ["kind": .string("fetch"), "result": .string("new-data"), "title": .string("Feed")])
        let popups = try server.waitForNotifications(count: 2)
        #expect(popups[0].summary == "Download failed")
        #expect(popups[0].body.contains("b.iso") && popups[0].body.contains("disk full"))
        #expect(popups[0].hints["category"] == .string("transfer.error"))
        #expect(popups[0].hints["sound-name"] == .string("dialog-error"))
        #expect(popups[1].summary == "New content")
        #expect(popups[1].body == "Feed")
        #expect(popups[1].hints["category"] == nil)
        #expect(popups[1].hints["sound-name"] == .string("message-new-instant"))
    }

    @Test func fetchWithoutNewDataAndNotifyFalsePostNothing() throws {
        let server = try server()
        try fixture.event("n1", app: "app", ["kind": .string("fetch"), "result": .string("no-data")])
        try fixture.event("n2", app: "app", ["kind": .string("fetch"), "result": .string("failed")])
        try fixture.event("n3", app: "app", ["notify": .boolean(false)])
        try fixture.event("marker", app: "app", ["title": .string("marker")])
        let popups = try server.waitForNotifications(count: 1)
        #expect(popups.map(\.body) == ["marker"])
        #expect(try fixture.pending("n3") == 1, "the handler still applies")
        #expect(try fixture.badge("app") == 2, "notify=false still counts; no-data and failed fetches do not")
    }

    @Test func overridesAndSilence() throws {
        let server = try server()
        try fixture.event("o", app: "app", ["summary": .string("Backup done"), "body": .string("3 files"), "sound": .string("")])
        try fixture.event("p", app: "app", ["sound": .string("/usr/share/sounds/freedesktop/stereo/bell.oga")])
        let popups = try server.waitForNotifications(count: 2)
        #expect(popups[0].summary == "Backup done" && popups[0].body == "3 files")
        #expect(popups[0].hints["suppress-sound"] == .boolean(true))
        #expect(popups[0].hints["sound-name"] == nil)
        #expect(popups[1].hints["sound-file"] == .string("/usr/share/sounds/freedesktop/stereo/bell.oga"))
        #expect(try postedDetails("o").details["sound-backend"] == .string("none"))
    }

    @Test func withoutTheSoundCapabilityNotifydPlaysItWithCanberra() throws {
        let server = try server(["actions", "body"])
        try fixture.event("c", app: "app", ["title": .string("t")])
        let popup = try #require(try server.waitForNotifications(count: 1).first)
        #expect(popup.hints["sound-name"] == nil && popup.hints["suppress-sound"] == nil)
        let backend = try postedDetails("c").details["sound-backend"]
        // Without an audio device canberra fails; either way it was notifyd's own player.
        #expect(backend == .string("canberra") || backend == .string("failed"))
    }

    @Test func withoutTheActionsCapabilityThereAreNoActions() throws {
        let server = try server(["body", "sound"])
        try fixture.event("a", app: "app", ["path": .string("/tmp/file")])
        #expect(try server.waitForNotifications(count: 1).first?.actions == [])
    }

    @Test func floodsMergeIntoOneSummaryUpdatedInPlace() throws {
        let server = try server()
        for index in 0..<12 {
            let message = try DBusMessage.methodCall(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.sessions,
                member: "HandleEventsForBackgroundSession",
                arguments: [.string("flood-\(index)"), .string("org.example.Flood"), .vardict(["title": .string("file\(index)")])])
            try fixture.client.send(message)
        }
        #expect(try fixture.property("PendingHandlers") == .uint32(12))
        #expect(try fixture.badge("org.example.Flood") == 12)
        let last = try #require(posted.wait { signal in
            guard signal.arguments.count == 4, case .dictionary = signal.arguments[3],
                let details = try? [String: DBusValue](dbusValue: signal.arguments[3])
            else { return false }
            return details["summary"] == .string("12 downloads complete")
        }?.last)
        let details = try [String: DBusValue](dbusValue: last.arguments[3])
        #expect(details["merged"] == .uint32(9))
        let popups = server.notifications
        let singles = popups.filter { $0.summary == "Download complete" }
        let summaries = popups.filter { $0.summary.hasSuffix("downloads complete") }
        #expect(singles.count == 3)
        #expect(summaries.count <= 3, "in-place updates are coalesced, not one per event")
        #expect(Set(summaries.map(\.id)).count == 1, "one summary notification, updated in place")
        #expect(summaries.dropFirst().allSatisfy { $0.replacesID == summaries[0].id })
    }

    @Test func withoutAServerPopupsWaitForOne() throws {
        try fixture.event("q1", app: "app", ["title": .string("first")])
        try fixture.event("q2", app: "app", ["title": .string("second")])
        #expect(try fixture.pending("q1") == 1, "handlers work without a server")
        let server = try RecordingNotificationServer(address: fixture.bus.address)
        let popups = try server.waitForNotifications(count: 2)
        #expect(popups.map(\.body) == ["first", "second"])
        #expect(try postedDetails("q2").details["summary"] == .string("Download complete"))
    }

    @Test func progressShowsAThrottledBarThatTheFinishedEventCloses() throws {
        let server = try server(["actions", "body", "sound"], name: "dunst")
        let docks = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update")])
        for written in stride(from: UInt64(5), through: 100, by: 5) {
            try fixture.event(
                "dl", app: "app",
                ["kind": .string("progress"), "title": .string("big.iso"), "bytes-written": .uint64(written), "bytes-expected": .uint64(200)])
        }
        let bars = try server.waitForNotifications(count: 1)
        #expect(bars[0].hints["value"] != nil)
        #expect(bars[0].hints["transient"] == .boolean(true))
        try? waitUntil("the bar shows the latest value", seconds: 5) { server.notifications.last?.hints["value"] == .int32(50) }
        let updates = server.notifications
        #expect(updates.count <= 3, "20 events within moments: at most one update per half second")
        #expect(updates.last?.hints["value"] == .int32(50), "the latest value is shown")
        #expect(updates.dropFirst().allSatisfy { $0.replacesID == updates[0].id })
        let update = try #require(docks.wait { signal in
            guard let properties = try? [String: DBusValue](dbusValue: signal.arguments.last ?? .boolean(false)) else { return false }
            return properties["progress"] == .double(0.5)
        }?.last)
        let properties = try [String: DBusValue](dbusValue: update.arguments[1])
        #expect(properties["progress-visible"] == .boolean(true))
        try fixture.event("dl", app: "app", ["title": .string("big.iso")])
        #expect(try server.waitForCloseRequests(count: 1) == [updates[0].id])
        #expect(try server.waitForNotifications(count: updates.count + 1).last?.summary == "Download complete")
    }
}
