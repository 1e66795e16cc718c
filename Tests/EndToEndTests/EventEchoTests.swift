import DBus
import Foundation
import Testing
import NotifyTesting

/// The `HandleEventsForBackgroundSession` signal passes an event on to
/// running apps: only the keys SPEC knows, so no worker can make notifyd
/// broadcast megabytes or thousands of keys to every subscriber.
@Suite struct EventEchoTests {
    @Test func theEchoCarriesOnlyTheKnownKeysTheWorkerSent() throws {
        let fixture = try Fixture()
        let recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [DBusMatchRule(interface: Fixture.sessions, member: "HandleEventsForBackgroundSession")])
        var event: [String: DBusValue] = [
            "title": .string("big.iso"), "path": .string("/tmp/big.iso"), "badge": .int32(2),
            "x-huge": .string(String(repeating: "x", count: 1 << 20)),
        ]
        for index in 0..<10_000 { event["x-key-\(index)"] = .uint32(UInt32(index)) }
        let handler = try fixture.event("big", app: "org.example.App", event)
        #expect(handler > 0)

        // And the same through the worker signal.
        try fixture.client.emitSignal(
            path: "/org/example/Worker", interface: Fixture.worker, member: "EventsForBackgroundSession",
            [.string("big-signal"), .string("org.example.App"), .vardict(event)])
        fixture.client.flush()

        let echoes = recorder.wait(seconds: 10) { $0.arguments.first == .string("big-signal") }
        let both = try #require(echoes).filter { $0.member == "HandleEventsForBackgroundSession" }
        #expect(both.count == 2)
        for echo in both {
            guard echo.arguments.count == 4, case .dictionary(_, _, let entries) = echo.arguments[3] else {
                Issue.record("unexpected echo \(echo)")
                continue
            }
            let keys = Set(entries.compactMap { entry -> String? in
                if case .string(let key) = entry.key { key } else { nil }
            })
            #expect(keys == ["title", "path", "badge"])
            #expect(entries.contains { $0.key == .string("title") && $0.value == .variant(.string("big.iso")) })
        }
        #expect(try fixture.badge("org.example.App") == 4)
    }
}
