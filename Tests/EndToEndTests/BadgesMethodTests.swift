import DBus
import Foundation
import Testing
import NotifyTesting

/// Every Badges method and error of SPEC, against the real daemon.
@Suite struct BadgesMethodTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func unknownAppIsZero() throws {
        #expect(try fixture.badge("never.seen") == 0)
    }

    @Test func setGetAndList() throws {
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(7)])
        try fixture.badges("SetBadge", [.string("firefox"), .uint32(2147483647)])
        try fixture.badges("SetBadge", [.string("zero"), .uint32(0)])
        #expect(try fixture.badge("org.example.Mail") == 7)
        let list: [String: UInt32] = try fixture.badges("ListBadges").decode(0)
        #expect(list == ["org.example.Mail": 7, "firefox": 2147483647])
    }

    @Test func setAboveMaximumIsOutOfRangeAndChangesNothing() throws {
        try fixture.badges("SetBadge", [.string("app"), .uint32(3)])
        let error = fixture.error(Fixture.badges, "SetBadge", [.string("app"), .uint32(2147483648)])
        #expect(error?.name == Fixture.errorPrefix + "OutOfRange")
        #expect(error?.message.contains("2147483647") == true)
        #expect(try fixture.badge("app") == 3)
    }

    @Test func incrementReturnsTheNewCountAndClampsAtZero() throws {
        #expect(try fixture.badges("IncrementBadge", [.string("app"), .int32(5)]) == [.uint32(5)])
        #expect(try fixture.badges("IncrementBadge", [.string("app"), .int32(-2)]) == [.uint32(3)])
        #expect(try fixture.badges("IncrementBadge", [.string("app"), .int32(-100)]) == [.uint32(0)])
        #expect(try fixture.badge("app") == 0)
    }

    @Test func incrementPastMaximumIsOutOfRangeAndChangesNothing() throws {
        try fixture.badges("SetBadge", [.string("app"), .uint32(2147483640)])
        let error = fixture.error(Fixture.badges, "IncrementBadge", [.string("app"), .int32(8)])
        #expect(error?.name == Fixture.errorPrefix + "OutOfRange")
        #expect(try fixture.badge("app") == 2147483640)
        #expect(try fixture.badges("IncrementBadge", [.string("app"), .int32(7)]) == [.uint32(2147483647)])
    }

    @Test func clearAndClearAll() throws {
        try fixture.badges("SetBadge", [.string("a"), .uint32(1)])
        try fixture.badges("SetBadge", [.string("b"), .uint32(2)])
        try fixture.badges("SetBadge", [.string("c"), .uint32(3)])
        try fixture.badges("ClearBadge", [.string("a")])
        #expect(try fixture.badge("a") == 0)
        #expect(try fixture.badges("ClearAllBadges") == [.uint32(2)])
        #expect(try fixture.badges("ClearAllBadges") == [.uint32(0)])
        let list: [String: UInt32] = try fixture.badges("ListBadges").decode(0)
        #expect(list.isEmpty)
    }

    @Test(arguments: ["", ".hidden", "-x", "a..b", "has space", "x/y", String(repeating: "a", count: 256)])
    func invalidAppIDIsRefusedByEveryMethod(_ app: String) throws {
        let calls: [(String, [DBusValue])] = [
            ("GetBadge", [.string(app)]), ("SetBadge", [.string(app), .uint32(1)]),
            ("IncrementBadge", [.string(app), .int32(1)]), ("ClearBadge", [.string(app)]),
        ]
        for (member, arguments) in calls {
            let error = fixture.error(Fixture.badges, member, arguments)
            #expect(error?.name == Fixture.errorPrefix + "InvalidAppId", "\(member)")
            #expect(error?.message.isEmpty == false)
        }
        let list: [String: UInt32] = try fixture.badges("ListBadges").decode(0)
        #expect(list.isEmpty)
    }

    @Test func wrongSignatureIsInvalidArgs() {
        let error = fixture.error(Fixture.badges, "SetBadge", [.string("app"), .int32(1)])
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error?.message.contains("'su'") == true)
        let missing = fixture.error(Fixture.badges, "GetBadge")
        #expect(missing?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func unknownMemberIsUnknownMethod() {
        #expect(fixture.error(Fixture.badges, "Explode")?.name == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(fixture.error("org.notifyd.Notifyd1.Nope", "GetBadge", [.string("a")])?.name == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test func daemonProperties() throws {
        #expect(try fixture.property("Version") == .string(try Executables.releaseVersion()))
        #expect(try fixture.property("StateDirectory") == .string(fixture.daemon.stateDirectory.path))
        #expect(try fixture.property("PendingHandlers") == .uint32(0))
        #expect(try fixture.property("NotificationServer") == .string(""))
        #expect(try fixture.property("ServerCapabilities") == .strings([]))
    }
}
