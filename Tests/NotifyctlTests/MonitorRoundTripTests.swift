import DBus
import Foundation
import NotifyTesting
import Testing

/// `monitor` as a process against the real notifyd (``InProcessDaemon``):
/// one line per signal notifyd emits, and nothing another connection
/// emits on notifyd's interfaces; how it ends (Ctrl-C, SIGTERM, notifyd
/// leaving, the bus going away, no notifyd).
@Suite struct MonitorRoundTripTests {
    let daemon: InProcessDaemon
    let notifyctl: NotifyctlRunner

    init() throws {
        daemon = try InProcessDaemon()
        notifyctl = NotifyctlRunner(bus: daemon.bus)
    }

    func monitor(_ arguments: String...) throws -> OutputProcess {
        try OutputProcess(notifyctl.executable, ["monitor"] + arguments, notifyctl.environment)
    }

    /// Changes the badge of the app `probe` until the monitor prints it:
    /// the monitor is listening.
    func waitUntilListening(_ monitor: OutputProcess) throws {
        for _ in 0..<100 {
            try daemon.call("org.notifyd.Notifyd1.Badges", "IncrementBadge", [.string("probe"), .int32(1)])
            if monitor.waitForOutput(seconds: 0.1, { $0.contains("probe") }) { return }
        }
        Issue.record("monitor does not print: \(monitor.errors)")
    }

    /// The complete lines of the output that are not about the probe.
    static func lines(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .filter { !$0.contains("probe") }.map(String.init)
    }

    @Test func monitorPrintsTheOwnersSignalsUntilInterrupted() throws {
        let monitor = try monitor()
        try waitUntilListening(monitor)
        // Someone else's signal of the same interface is not notifyd's.
        let other = try DBusConnection.connect(to: .address(daemon.bus.address))
        try other.emitSignal(
            path: "/org/notifyd/Notifyd1", interface: "org.notifyd.Notifyd1.Badges", member: "BadgeChanged",
            [.string("impostor"), .uint32(9)])
        other.flush()
        try daemon.call("org.notifyd.Notifyd1.Badges", "SetBadge", [.string("firefox"), .uint32(3)])
        try daemon.call(
            "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession",
            [.string("dl 1"), .string("firefox"),
             .vardict(["kind": .string("finished"), "title": .string("a b"), "badge": .int32(0)])])
        try daemon.call("org.notifyd.Notifyd1.Sessions", "CompleteSession", [.string("dl 1")])
        // The popup's NotificationPosted comes once the (recording) server
        // and the sound have answered: before or after SessionCompleted.
        #expect(monitor.waitForOutput { Self.lines($0).count == 4 }, "\(monitor.output)")
        #expect(monitor.isRunning)
        #expect(monitor.interrupt() == 0)
        let lines = Self.lines(monitor.output).map { String($0.dropFirst(25)) }
        #expect(
            lines.filter { !$0.hasPrefix("NotificationPosted") } == [
                "BadgeChanged app=firefox count=3",
                "HandleEventsForBackgroundSession session=\"dl 1\" app=firefox handler=1 event={badge=0,kind=finished,title=\"a b\"}",
                "SessionCompleted session=\"dl 1\" app=firefox handler=1 result=completed",
            ])
        #expect(lines.filter { $0.hasPrefix("NotificationPosted") } == [
            "NotificationPosted app=firefox session=\"dl 1\" notification=1 details={app-name=firefox,body=\"a b\",kind=finished,merged=0,sound-backend=canberra,summary=\"Download complete\"}"
        ], "\(lines)")
        #expect(monitor.output.hasPrefix("20"), "stamped with the time: \(monitor.output)")
        #expect(!monitor.output.contains("impostor"))
        #expect(!monitor.output.contains("NameAcquired"))
    }

    @Test func monitorJSONAndTheDaemonLeaving() throws {
        let monitor = try monitor("--json")
        try waitUntilListening(monitor)
        try daemon.call("org.notifyd.Notifyd1.Apps", "DidBecomeActive", [.string("firefox")])
        #expect(monitor.waitForOutput { Self.lines($0).count == 1 }, "\(monitor.output)")
        let line = try #require(Self.lines(monitor.output).first)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["interface"] as? String == "org.notifyd.Notifyd1.Apps")
        #expect(object?["member"] as? String == "StateChanged")
        #expect(object?["args"] as? [String] == ["firefox", "active"])
        #expect((object?["time"] as? String)?.hasSuffix("Z") == true)
        daemon.stop()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors.contains("notifyd left the bus"), "\(monitor.errors)")
    }

    @Test func monitorEndsWithTheBus() throws {
        let monitor = try monitor()
        try waitUntilListening(monitor)
        daemon.bus.stop()
        #expect(monitor.finish() == 3)
        #expect(monitor.errors == "notifyctl: the session bus went away.\n")
    }

    @Test func monitorStopsOnSIGTERM() throws {
        let monitor = try monitor()
        try waitUntilListening(monitor)
        #expect(monitor.terminate() == 0)
        #expect(monitor.errors.isEmpty)
    }

    @Test func monitorWithoutNotifydExits3() throws {
        daemon.stop()
        let result = try notifyctl("monitor")
        #expect(result.status == 3)
        #expect(result.stderr.contains("notifyd is not running"), "\(result.stderr)")
    }
}
