import DBus
import Foundation
import Testing
import NotifyTesting

/// Workers as users run them: one short-lived process per event, many at
/// once, with the tools the README shows. Each sender has left the bus (or
/// is leaving) by the time notifyd reads its signal; none may be lost.
@Suite struct ShortLivedSenderTests {
    static let events = 1000
    static let parallel = 50

    @Test func gdbusEmitFromAThousandProcessesLosesNothing() throws {
        try expectEveryEventStored(sender: """
            gdbus emit --session --object-path /org/example/Worker \
              --signal org.notifyd.Notifyd1.Worker.EventsForBackgroundSession \
              "s$1" org.example.App "{'title': <'x'>, 'timeout': <uint32 3600>}"
            """)
    }

    @Test func busctlEmitFromAThousandProcessesLosesNothing() throws {
        try expectEveryEventStored(sender: """
            busctl --user emit /org/example/Worker org.notifyd.Notifyd1.Worker EventsForBackgroundSession \
              'ssa{sv}' "s$1" org.example.App 2 title s x timeout u 3600
            """)
    }

    /// python-dbus, each event from a child process that connects, sends,
    /// flushes and exits at once (forked, so the test does not pay for a
    /// thousand interpreter start-ups).
    @Test func pythonSendersThatExitAfterFlushingLoseNothing() throws {
        let fixture = try Fixture()
        let script = """
            import dbus, dbus.lowlevel, os, sys
            running = []
            for index in range(\(Self.events)):
                if len(running) >= \(Self.parallel):
                    os.waitpid(running.pop(0), 0)
                pid = os.fork()
                if pid == 0:
                    bus = dbus.bus.BusConnection(os.environ['DBUS_SESSION_BUS_ADDRESS'])
                    signal = dbus.lowlevel.SignalMessage(
                        '/org/example/Worker', 'org.notifyd.Notifyd1.Worker', 'EventsForBackgroundSession')
                    signal.append('s%d' % index, 'org.example.App', {'title': 'x', 'timeout': dbus.UInt32(3600)},
                                  signature='ssa{sv}')
                    bus.send_message(signal)
                    bus.flush()
                    os._exit(0)
                running.append(pid)
            for pid in running:
                os.waitpid(pid, 0)
            """
        let result = try runProcess("/usr/bin/python3", ["-c", script], environment: fixture.daemon.environment)
        #expect(result.status == 0, "\(result.stderr)")
        try expectBadge(of: fixture, reaches: Self.events)
    }

    /// Runs `sender` (a bash body with the event's index as $1) once per
    /// event, `parallel` at a time, then waits for every event.
    private func expectEveryEventStored(sender: String) throws {
        let fixture = try Fixture()
        let script = "send() {\n\(sender)\n}\nexport -f send\nseq \(Self.events) | xargs -P \(Self.parallel) -I{} bash -c 'send {}'"
        let result = try runProcess("/bin/bash", ["-c", script], environment: fixture.daemon.environment)
        #expect(result.status == 0, "\(result.stderr)")
        try expectBadge(of: fixture, reaches: Self.events)
    }

    private func expectBadge(of fixture: Fixture, reaches count: Int) throws {
        // Every sender has exited; what remains is notifyd reading its queue.
        var badge: UInt32 = 0
        try? waitUntil("notifyd stored \(count) events", seconds: 20) {
            badge = try fixture.badge("org.example.App")
            return badge >= count
        }
        #expect(badge == UInt32(count), "stored \(badge) of \(count)")
        #expect(try fixture.sessions().count == count)
        #expect(!fixture.daemon.log.contains("refused"), "\(fixture.daemon.log.suffix(2000))")
    }
}
