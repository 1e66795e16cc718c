import DBus
import Foundation
import NotifyTesting
import Testing

/// `event`, `complete`, `cancel`, `sessions` and `wait` as processes
/// against the real notifyd (``InProcessDaemon``, its clock at
/// 2027-01-15T08:00:00Z): the event dictionary notifyctl sends is the one
/// notifyd echoes, the replies print as text and JSON, the daemon's
/// refusals exit 1 with its message, and `event --wait` prints the handler
/// ID before it waits.
@Suite struct SessionRoundTripTests {
    let daemon: InProcessDaemon
    let recorder: SignalRecorder
    let notifyctl: NotifyctlRunner

    init() throws {
        let bus = try TestBus()
        recorder = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: "org.notifyd.Notifyd1.Sessions")])
        daemon = try InProcessDaemon(bus: bus)
        notifyctl = NotifyctlRunner(bus: bus)
    }

    /// The event notifyd echoed in its `HandleEventsForBackgroundSession`
    /// signal for `session`: (handler ID, event).
    func echoed(_ session: String) throws -> (handler: DBusValue, event: [String: DBusValue]) {
        let signal = try #require(
            recorder.wait(seconds: 10) {
                $0.member == "HandleEventsForBackgroundSession" && $0.arguments.first == .string(session)
            }?.last)
        #expect(signal.signature == "ssta{sv}")
        return (signal.arguments[2], try [String: DBusValue](dbusValue: signal.arguments[3]))
    }

    @Test func eventSendsTheDictionaryAndPrintsTheHandler() throws {
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-cwd")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A relative --path is made absolute from notifyctl's directory.
        let result = try runProcess(
            "/bin/sh",
            ["-c", "cd \"$1\" && exec \"$2\" event dl-1 --app firefox --failed 'reset by peer' --path x.iso --sound '' --badge -1 --timeout 60 --no-notify",
             "sh", directory.path, notifyctl.executable],
            environment: notifyctl.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1\n")
        let (handler, event) = try echoed("dl-1")
        #expect(handler == .uint64(1))
        #expect(
            event == [
                "kind": .string("failed"), "error": .string("reset by peer"),
                "path": .string(directory.resolvingSymlinksInPath().path + "/x.iso"), "sound": .string(""),
                "badge": .int32(-1), "timeout": .uint32(60), "notify": .boolean(false),
            ])
    }

    @Test func progressStoresNoHandlerAndJSON() throws {
        let result = try notifyctl("event", "dl-2", "--app", "firefox", "--progress", "10/100", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"handler_id\":0}\n")
        let (handler, event) = try echoed("dl-2")
        #expect(handler == .uint64(0))
        #expect(event == ["kind": .string("progress"), "bytes-written": .uint64(10), "bytes-expected": .uint64(100)])
        let listed = try #require(try notifyctl.json("sessions", "--json") as? [[String: Any]])
        #expect(listed.first?["progress"] as? Double == 0.1)
    }

    @Test func daemonErrorsExit1WithTheirMessage() throws {
        let invalid = try notifyctl("event", "dl-1", "--app", "a..b")
        #expect(invalid.status == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        let unknown = try notifyctl("wait", "never-seen")
        #expect(unknown.status == 1)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr == "notifyctl: notifyd has never seen the session 'never-seen' (or has forgotten it)\n")
    }

    @Test func completeCancelAndSessions() throws {
        #expect(try notifyctl("event", "dl-1", "--app", "firefox", "--no-notify").stdout == "1\n")
        #expect(try notifyctl("event", "dl-1", "--app", "firefox", "--no-notify").stdout == "2\n")
        #expect(try notifyctl("event", "dl-1", "--app", "firefox", "--progress", "50/100").stdout == "0\n")
        let pending = try notifyctl("sessions")
        #expect(pending.status == 0, "\(pending.stderr)")
        #expect(
            pending.stdout == """
                SESSION  APP      PENDING  EVENTS  PROGRESS  LAST-EVENT                 DETAILS
                dl-1     firefox  2        3       50%       2027-01-15T08:00:00+00:00  bytes-expected=100 bytes-written=50 in-progress=true

                """)
        #expect(try notifyctl("complete", "dl-1").stdout == "2\n")
        #expect(try notifyctl("cancel", "dl-1", "--json").stdout == "{\"invoked\":0}\n")
        let array = try #require(try notifyctl.json("sessions", "--json") as? [[String: Any]])
        #expect(array.count == 1)
        #expect(array.first?["session"] as? String == "dl-1")
        #expect(array.first?["pending"] as? Int == 0)
        #expect(array.first?["last_event"] as? String == "2027-01-15T08:00:00.000Z")
    }

    /// `event --wait` prints the handler ID at once, then the result when
    /// the session is completed; `wait` the same for a session.
    @Test func waitingForTheSession() throws {
        let calls = try PlankSession.BusMonitor(
            busAddress: daemon.bus.address, rules: ["type='method_call',member='WaitForSession'"],
            output: daemon.bus.directory.appendingPathComponent("monitor.txt"))
        let environment = notifyctl.environment
        let event = try OutputProcess(notifyctl.executable, ["event", "dl-3", "--app", "firefox", "--wait"], environment)
        #expect(event.waitForOutput { $0 == "1\n" }, "the handler ID comes before the wait: \(event.output)")
        let wait = try OutputProcess(notifyctl.executable, ["wait", "dl-3", "--json"], environment)
        // Both calls went over the bus; the daemon handled them before this Ping.
        try waitUntil("both WaitForSession calls are sent", seconds: 10) {
            calls.messages.filter { $0.member == "WaitForSession" }.count == 2
        }
        try daemon.sync()
        #expect(event.isRunning && wait.isRunning)
        #expect(try notifyctl("complete", "dl-3").stdout == "1\n")
        #expect(event.finish() == 0)
        #expect(event.output == "1\ncompleted\n")
        #expect(wait.finish() == 0)
        #expect(wait.output == "{\"result\":\"completed\"}\n")
    }
}
