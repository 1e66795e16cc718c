import DBus
import Foundation
import Testing
import NotifyTesting

/// Persistence, refusal of a second instance, shutdown and introspection.
@Suite struct DaemonLifecycleTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func badgesSurviveKillNine() throws {
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(12)])
        try fixture.badges("IncrementBadge", [.string("firefox"), .int32(3)])
        try fixture.badges("SetBadge", [.string("gone"), .uint32(1)])
        try fixture.badges("ClearBadge", [.string("gone")])
        try fixture.daemon.crashAndRestart()
        let list: [String: UInt32] = try fixture.badges("ListBadges").decode(0)
        #expect(list == ["org.example.Mail": 12, "firefox": 3])
    }

    @Test func everyAnsweredCallOfABurstSurvivesKillNine() throws {
        // Many calls in flight at once land in one group commit each loop turn.
        for index in 0..<200 {
            let message = try DBusMessage.methodCall(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.badges, member: "IncrementBadge",
                arguments: [.string("burst\(index % 7)"), .int32(1)])
            try fixture.client.send(message)
        }
        // A blocking call after the burst is answered after all of it.
        let last = try fixture.badges("IncrementBadge", [.string("burst0"), .int32(1)])
        #expect(last == [.uint32(30)])
        try fixture.daemon.crashAndRestart()
        let list: [String: UInt32] = try fixture.badges("ListBadges").decode(0)
        #expect(list.values.reduce(0, +) == 201)
    }

    @Test func aSecondDaemonIsRefusedAndSaysWhoHasTheName() throws {
        let other = fixture.bus.directory.appendingPathComponent("other-state").path
        let result = try runProcess(Executables.notifyd, ["--state-dir", other], environment: fixture.daemon.environment)
        #expect(result.status != 0)
        #expect(result.stderr.contains("org.notifyd.Notifyd1 is already taken"))
        #expect(result.stderr.contains("process \(fixture.daemon.pid)"))
        #expect(try fixture.badge("still.served") == 0)
    }

    @Test func aSecondDaemonOnTheSameStateIsRefused() throws {
        let result = try runProcess(
            Executables.notifyd, ["--state-dir", fixture.daemon.stateDirectory.path],
            environment: fixture.daemon.environment)
        #expect(result.status != 0)
        #expect(result.stderr.contains("already using this state directory"))
    }

    @Test func sigtermExitsCleanly() throws {
        try fixture.badges("SetBadge", [.string("kept"), .uint32(4)])
        #expect(fixture.daemon.stop(signal: SIGTERM) == 0)
        try fixture.daemon.start()
        #expect(try fixture.badge("kept") == 4)
    }

    @Test func theLossOfTheBusEndsTheDaemon() throws {
        fixture.bus.stop()
        try? waitUntil("notifyd exits", seconds: 5) { fixture.daemon.process?.isRunning != true }
        #expect(fixture.daemon.process?.isRunning == false)
        #expect(fixture.daemon.process?.terminationStatus == 0)
        #expect(fixture.daemon.log.contains("the bus went away"))
    }

    @Test func introspectionMatchesTheCommittedFile() throws {
        let live: String = try fixture.call("org.freedesktop.DBus.Introspectable", "Introspect").decode(0)
        let file = try String(
            contentsOf: Executables.repositoryRoot().appendingPathComponent("dbus/org.notifyd.Notifyd1.xml"),
            encoding: .utf8)
        #expect(IntrospectionShape(live) == IntrospectionShape(file))
        #expect(IntrospectionShape(live).interfaces.contains("org.notifyd.Notifyd1.Badges"))
    }

    @Test func parentPathsAreIntrospectable() throws {
        let root: String = try fixture.client.call(
            destination: Fixture.busName, path: "/org/notifyd", interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect"
        ).decode(0)
        #expect(root.contains("<node name=\"Notifyd1\"/>"))
    }
}

/// The interfaces, members and signatures of an introspection document,
/// ignoring comments and layout.
struct IntrospectionShape: Equatable {
    var interfaces: [String] = []
    var lines: [String] = []

    init(_ xml: String) {
        var text = xml
        while let start = text.range(of: "<!--"), let end = text.range(of: "-->", range: start.upperBound..<text.endIndex) {
            text.removeSubrange(start.lowerBound..<end.upperBound)
        }
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("<interface") || trimmed.hasPrefix("<method") || trimmed.hasPrefix("<signal")
                || trimmed.hasPrefix("<property") || trimmed.hasPrefix("<arg")
            else { continue }
            lines.append(trimmed)
            if trimmed.hasPrefix("<interface name=\"") {
                interfaces.append(String(trimmed.dropFirst(17).prefix { $0 != "\"" }))
            }
        }
    }
}
