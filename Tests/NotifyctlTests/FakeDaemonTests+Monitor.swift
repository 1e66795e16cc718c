import DBus
import Foundation
import Testing
import NotifyTesting

/// `monitor` against the stand-in: what the owner emits, and how it ends.
extension FakeDaemonTests {
    @Test func monitorPrintsTheOwnersSignalsUntilInterrupted() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        // Someone else's signal of the same interface is not notifyd's.
        let other = try DBusConnection.connect(to: .address(bus.address))
        try other.emitSignal(
            path: "/org/notifyd/Notifyd1", interface: "org.notifyd.Notifyd1.Badges", member: "BadgeChanged",
            [.string("impostor"), .uint32(9)])
        other.flush()
        try daemon.emit("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("firefox"), .uint32(3)])
        try daemon.emit(
            "org.notifyd.Notifyd1.Sessions", "SessionCompleted",
            [.string("dl 1"), .string("firefox"), .uint64(7), .string("completed")])
        try daemon.emit(
            "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession",
            [.string("dl-1"), .string("firefox"), .uint64(8), .vardict(["kind": .string("finished"), "title": .string("a b")])])
        #expect(monitor.waitForOutput { Self.lines($0).count == 3 }, "\(monitor.output)")
        #expect(monitor.isRunning)
        #expect(monitor.interrupt() == 0)
        let lines = Self.lines(monitor.output).map { String($0.dropFirst(25)) }
        #expect(
            lines == [
                "BadgeChanged app=firefox count=3",
                "SessionCompleted session=\"dl 1\" app=firefox handler=7 result=completed",
                "HandleEventsForBackgroundSession session=dl-1 app=firefox handler=8 event={kind=finished,title=\"a b\"}",
            ])
        #expect(monitor.output.hasPrefix("20"))
        #expect(!monitor.output.contains("impostor"))
        #expect(!monitor.output.contains("NameAcquired"))
    }

    @Test func monitorJSONAndTheDaemonLeaving() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor", "--json"], environment)
        try waitUntilListening(monitor)
        try daemon.emit(
            "org.notifyd.Notifyd1.Apps", "StateChanged", [.string("firefox"), .string("active")])
        #expect(monitor.waitForOutput { Self.lines($0).count == 1 }, "\(monitor.output)")
        let line = try #require(Self.lines(monitor.output).first)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["interface"] as? String == "org.notifyd.Notifyd1.Apps")
        #expect(object?["member"] as? String == "StateChanged")
        #expect(object?["args"] as? [String] == ["firefox", "active"])
        #expect((object?["time"] as? String)?.hasSuffix("Z") == true)
        try daemon.leave()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors.contains("notifyd left the bus"))
    }

    /// Emits a probe signal until the monitor prints one: it is listening.
    func waitUntilListening(_ monitor: OutputProcess) throws {
        for _ in 0..<100 {
            try daemon.emit("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("probe"), .uint32(0)])
            if monitor.waitForOutput(seconds: 0.1, { $0.contains("probe") }) { return }
        }
        Issue.record("monitor does not print: \(monitor.errors)")
    }

    /// The complete lines of the output that are not probes.
    static func lines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .filter { !$0.contains("probe") }.map(String.init)
    }

    @Test func monitorEndsWithTheBus() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        bus.stop()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors == "notifyctl: the session bus went away.\n")
    }

    @Test func monitorStopsOnSIGTERM() throws {
        let monitor = try OutputProcess(FakeNotifyd.notifyctl, ["monitor"], environment)
        try waitUntilListening(monitor)
        #expect(monitor.terminate() == 0)
        #expect(monitor.errors.isEmpty)
    }

    @Test func monitorWithoutNotifydExits3() throws {
        try daemon.leave()
        let result = try notifyctl("monitor")
        #expect(result.status == 3)
        #expect(result.stderr.contains("notifyd is not running"))
    }
}
