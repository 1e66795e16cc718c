import DBus
import Foundation
import Testing
import NotifyTesting

/// BadgeChanged and the Unity LauncherEntry signals really go out, once
/// per change and never for a no-op.
@Suite struct BadgeSignalTests {
    let fixture: Fixture
    let recorder: SignalRecorder

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [
                DBusMatchRule(interface: Fixture.badges, member: "BadgeChanged"),
                DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"),
            ])
    }

    func badgeChanges(until app: String) throws -> [[DBusValue]] {
        let signals = try #require(recorder.wait { $0.member == "BadgeChanged" && $0.arguments.first == .string(app) })
        return signals.filter { $0.member == "BadgeChanged" }.map(\.arguments)
    }

    @Test func badgeChangedOncePerRealChange() throws {
        try fixture.badges("SetBadge", [.string("a"), .uint32(2)])
        try fixture.badges("SetBadge", [.string("a"), .uint32(2)])  // no-op
        try fixture.badges("IncrementBadge", [.string("a"), .int32(0)])  // no-op
        try fixture.badges("IncrementBadge", [.string("a"), .int32(3)])
        try fixture.badges("ClearBadge", [.string("b")])  // no-op
        try fixture.badges("ClearBadge", [.string("a")])
        try fixture.badges("IncrementBadge", [.string("a"), .int32(-1)])  // clamps: no-op
        _ = fixture.error(Fixture.badges, "SetBadge", [.string("a"), .uint32(4_000_000_000)])  // refused
        try fixture.badges("SetBadge", [.string("end"), .uint32(1)])
        #expect(try badgeChanges(until: "end") == [
            [.string("a"), .uint32(2)], [.string("a"), .uint32(5)], [.string("a"), .uint32(0)],
            [.string("end"), .uint32(1)],
        ])
    }

    @Test func clearAllEmitsOnePerClearedApp() throws {
        try fixture.badges("SetBadge", [.string("a"), .uint32(1)])
        try fixture.badges("SetBadge", [.string("b"), .uint32(1)])
        try fixture.badges("ClearAllBadges")
        try fixture.badges("ClearAllBadges")  // no-op
        try fixture.badges("SetBadge", [.string("end"), .uint32(1)])
        let changes = try badgeChanges(until: "end")
        #expect(changes.count == 5)
        #expect(Set(changes[2...3].map { $0[0] }) == [.string("a"), .string("b")])
        #expect(changes[2...3].allSatisfy { $0[1] == .uint32(0) })
    }

    @Test func launcherEntryFromADistinctConnectionPerApp() throws {
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(3)])
        try fixture.badges("SetBadge", [.string("firefox"), .uint32(1)])
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(4)])
        // Each app's connection opens on its own, so only each app's own
        // updates keep their order.
        var sawMail4 = false
        var sawFirefox = false
        let updates = try #require(recorder.wait { signal in
            guard signal.member == "Update" else { return false }
            if signal.arguments.first == .string("application://org.example.Mail.desktop"),
                signal.arguments.last == .vardictValue(count: 4)
            {
                sawMail4 = true
            }
            if signal.arguments.first == .string("application://firefox.desktop") { sawFirefox = true }
            return sawMail4 && sawFirefox
        }).filter { $0.member == "Update" }
        #expect(updates.count == 3)
        for update in updates { #expect(update.signature == "sa{sv}") }
        let mail = updates.filter { $0.arguments[0] == .string("application://org.example.Mail.desktop") }
        let firefox = updates.filter { $0.arguments[0] == .string("application://firefox.desktop") }
        #expect(mail.count == 2 && firefox.count == 1)
        #expect(Set(mail.map(\.sender)).count == 1, "one connection per app")
        #expect(mail[0].sender != firefox[0].sender, "each app from a connection of its own")
        let daemonName = try fixture.client.nameOwner(of: Fixture.busName)
        #expect(mail[0].sender != daemonName && firefox[0].sender != daemonName)
        guard case .dictionary(_, _, let entries) = firefox[0].arguments[1] else {
            Issue.record("properties are not a dictionary")
            return
        }
        let properties = Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) })
        #expect(properties[.string("count")] == .variant(.int64(1)))
        #expect(properties[.string("count-visible")] == .variant(.boolean(true)))
    }

    @Test func launcherEntryHidesTheBadgeAtZero() throws {
        try fixture.badges("SetBadge", [.string("app"), .uint32(3)])
        try fixture.badges("ClearBadge", [.string("app")])
        let updates = try #require(recorder.wait { $0.member == "Update" && $0.arguments.last == .vardictValue(count: 0) })
        #expect(updates.filter { $0.member == "Update" }.count == 2)
    }

    @Test func entriesAreSentAgainAtStartUpAndWhenADockAppears() throws {
        try fixture.badges("SetBadge", [.string("a"), .uint32(2)])
        try fixture.badges("SetBadge", [.string("b"), .uint32(5)])
        #expect(recorder.wait { $0.member == "Update" && $0.arguments.first == .string("application://b.desktop") } != nil)
        try fixture.daemon.crashAndRestart()
        recorder.reset()
        // Start-up: both again (the restart began before reset, so look again after a dock appears too).
        let dock = try DBusConnection.connect(to: .address(fixture.bus.address))
        #expect(try dock.requestName("com.canonical.Unity") == .primaryOwner)
        // The start-up re-send may straddle the reset; the dock's re-send
        // must bring both entries afterwards.
        let wanted: Set<DBusValue> = [.string("application://a.desktop"), .string("application://b.desktop")]
        var apps: Set<DBusValue> = []
        try? waitUntil("the dock got both entries", seconds: 5) {
            apps = Set(recorder.received.filter { $0.member == "Update" }.compactMap(\.arguments.first))
            return apps.isSuperset(of: wanted)
        }
        #expect(apps.isSuperset(of: wanted))
    }
}

extension DBusValue {
    /// The LauncherEntry properties for a badge count and no progress.
    static func vardictValue(count: Int64) -> DBusValue {
        .vardict([
            "count": .int64(count), "count-visible": .boolean(count > 0),
            "progress": .double(0), "progress-visible": .boolean(false),
        ])
    }
}
