import DBus
import Foundation
import Testing
import NotifyTesting

extension FaultTests {
    /// 300 events stream in (one every 2 ms, 8 in flight: popups are on
    /// their way when the server goes) while the notification server leaves
    /// the bus 4 times, a new one coming each time. Every third event is of an app that floods (its popups merge);
    /// the others are spread over 67 apps with at most 3 events each, never
    /// merged (a flood starts at the fourth), so each must be a popup of
    /// its own on some server, and those reported while there was none on
    /// a later one. (A server leaving the bus, by exit or kill -9, is the
    /// same to notifyd: the name loses its owner and its calls fail.)
    @Test(.timeLimit(.minutes(1))) func theNotificationServerRestartingMidStreamLosesNothing() throws {
        let fixture = try Fixture()
        let client = FaultClient(fixture.client)
        var servers = [try RecordingNotificationServer(address: fixture.bus.address)]
        try fixture.waitForNotificationServer()
        let flood = "org.example.Flood"
        let events = (0..<300).map { index -> (session: String, app: String) in
            if index % 3 == 2 { return ("flood-\(index)", flood) }
            return ("single-\(index)", "org.example.Single\((index - index / 3) % 67)")
        }
        let stream = try CallStream(address: fixture.bus.address)
        stream.start(CallStream.Plan(
            count: events.count, window: 8, interval: 0.002, timeoutMilliseconds: 20_000,
            makeCall: { index in
                try FaultClient.event(events[index].session, app: events[index].app, ["title": .string(events[index].session)])
            }))
        // The events sent while no server ran, and the first server that may show them.
        var gaps: [(sent: Range<Int>, server: Int)] = []
        for cycle in 0..<4 {
            // Right after an event of a single app (50, 110, ...: index % 3 == 1),
            // whose popup is posted at once (a flood's waits to be merged).
            try stream.waitUntilSent(50 + cycle * 60, seconds: 10)
            servers[servers.count - 1].stop()
            let gone = stream.sentCount
            // Asks the bus, not notifyd: a call would wake notifyd and make
            // it notice the server left sooner than it would on its own.
            try client.waitUntilUnowned(RecordingNotificationServer.busName)
            try stream.waitUntilSent(80 + cycle * 60, seconds: 10)
            servers.append(try RecordingNotificationServer(address: fixture.bus.address))
            gaps.append((gone..<stream.sentCount, servers.count - 1))
        }
        let outcomes = try stream.waitUntilDone(seconds: 20)

        // No hang: every call answered, quickly, server or not.
        #expect(outcomes.count == events.count)
        let failures = outcomes.filter { $0.error != nil }
        #expect(failures.isEmpty, "failed calls: \(failures.prefix(5).map { "\($0.index): \($0.error!)" })")
        let slowest = outcomes.map(\.seconds).max() ?? 0
        #expect(slowest < 2, "the slowest call took \(slowest) s")
        #expect(gaps.allSatisfy { !$0.sent.isEmpty }, "events were reported while there was no server: \(gaps)")

        // Popups resume, and none is lost.
        var missing: [String] = []
        try? waitUntil("every popup is shown", seconds: 10) {
            let shown = servers.map { Set($0.notifications.map(\.body)) }
            missing = events.indices.filter { events[$0].app != flood }.compactMap { index in
                let session = events[index].session
                let first = gaps.first { $0.sent.contains(index) }?.server ?? 0
                return shown[first...].contains { $0.contains(session) } ? nil : session
            }
            return missing.isEmpty
        }
        #expect(
            missing.isEmpty,
            "popups never shown (or not after a server came back): \(missing); log:\n\(fixture.daemon.log.suffix(4000))")
        // The flood's summary is updated in place at most twice a second: wait for its next update.
        var floodPopups: [RecordingNotificationServer.Recorded] = []
        try? waitUntil("the flood's summary reached the last server", seconds: 3) {
            floodPopups = servers.last!.notifications.filter { $0.hints["desktop-entry"] == .string(flood) }
            return !floodPopups.isEmpty
        }
        #expect(!floodPopups.isEmpty, "the flooding app's summary reached the last server")

        // Every handler and badge counted.
        #expect(try client.property("PendingHandlers") == .uint32(UInt32(events.count)))
        var expectedBadges: [String: UInt32] = [:]
        for event in events { expectedBadges[event.app, default: 0] += 1 }
        let badges: [String: UInt32] = try client.call(FaultClient.badges, "ListBadges").decode(0)
        #expect(badges == expectedBadges)
    }
}
