import DBus
import Foundation
import Testing
import NotifyTesting

/// Handlers whose deadline passed while notifyd was down are invoked
/// `expired` at start-up, a thousand per turn of the event loop: calls are
/// answered in between, and every handler is invoked exactly once.
@Suite struct StartupBacklogTests {
    static let count = 5_000

    /// Writes `count` sessions with one handler each, all past their
    /// deadline, into the state database (notifyd not running).
    static func writeBacklog(_ count: Int, into database: URL) throws {
        let sql = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO sessions (id, app_id, events, last_event_us, in_progress)
                SELECT 'backlog-' || i, 'org.example.Backlog' || (i % 3), 1, i, 0 FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO handlers (id, session_id, app_id, stored_at_us, deadline_us)
                SELECT i, 'backlog-' || i, 'org.example.Backlog' || (i % 3), i, 1000000 + i FROM n;
            INSERT OR REPLACE INTO counters (name, value) VALUES ('last_handler_id', \(count));
            """
        let result = try runProcess("/usr/bin/sqlite3", [database.path, sql])
        guard result.status == 0 else { throw TestFailure("sqlite3 failed: \(result.stderr)") }
    }

    @Test(.timeLimit(.minutes(1))) func aBacklogOfExpiredHandlersIsWorkedOffWhileCallsAreAnswered() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            Issue.record("cannot write the backlog: /usr/bin/sqlite3 is missing (apt-get install sqlite3)")
            return
        }
        let bus = try TestBus()
        let daemon = try DaemonProcess(bus: bus)
        defer { daemon.stop(signal: SIGKILL) }
        #expect(daemon.stop(signal: SIGTERM) == 0)
        try daemon.waitForName(present: false)
        let database = daemon.stateDirectory.appendingPathComponent("state.sqlite3")
        try Self.writeBacklog(Self.count, into: database)

        let recorder = try SignalRecorder(
            address: bus.address,
            rules: [DBusMatchRule(interface: "org.notifyd.Notifyd1.Sessions", member: "SessionCompleted")])
        let client = try FaultClient(address: bus.address)
        try daemon.start()
        // Answered while the backlog is worked off (how soon is the
        // bench's to measure, not a timed test's: docs/RELIABILITY.md).
        #expect(try client.badge("org.example.Other") == 0)

        let last = UInt64(Self.count)
        let signals = try #require(
            recorder.wait(seconds: 30) { $0.arguments.count == 4 && $0.arguments[2] == .uint64(last) },
            "the last SessionCompleted never came; \(recorder.received.count) did")
        #expect(signals.map { $0.arguments[2] } == (1...last).map { .uint64($0) }, "each once, in deadline order")
        #expect(signals.allSatisfy { $0.arguments[3] == .string("expired") })
        #expect(try client.property("PendingHandlers") == .uint32(0))
        // The 1000 finished sessions with the newest events are kept, the
        // others forgotten as they expire (SessionBook.finishedSessionsKept).
        let sessions = try client.sessions()
        #expect(sessions.count == 1_000)
        #expect(sessions["backlog-\(Self.count)"]?.details["last-result"] == .string("expired"))
        #expect(sessions["backlog-7"] == nil)

        // What the ready line says: once the Notifyd.swift change is in, the
        // pending handlers after the backlog and how many it expired.
        let ready = daemon.log.split(separator: "\n").last { $0.contains(" ready as ") }.map(String.init) ?? ""
        if ready.contains("expired-at-start") {
            #expect(ready.contains("pending-handlers=0"), "\(ready)")
            #expect(ready.contains("expired-at-start=\(Self.count)"), "\(ready)")
        } else {
            withKnownIssue("the ready line counts the pending handlers before the backlog is worked off") {
                #expect(ready.contains("pending-handlers=0"), "\(ready)")
            }
        }

        // All of it is on disk: nothing comes back after kill -9.
        try daemon.crashAndRestart()
        #expect(try client.property("PendingHandlers") == .uint32(0))
        let rows = try runProcess("/usr/bin/sqlite3", [database.path, "SELECT count(*) FROM handlers"])
        #expect(rows.stdout == "0\n")
    }
}
