import DBus
import Foundation
import NotifyCore
import NotifyTesting
import Testing

/// The daemon in the test's process with a clock moved by hand: deadlines
/// against time awake, asleep and a wall clock set back or forward, with
/// barriers (a round trip, a log line) and no sleep.
@Suite struct InProcessDaemonTests {
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    static let second: Microseconds = 1_000_000
    static let hour: Microseconds = 3_600 * second

    let daemon: InProcessDaemon
    let recorder: SignalRecorder

    init() throws {
        daemon = try InProcessDaemon()
        recorder = try SignalRecorder(
            address: daemon.bus.address, rules: [DBusMatchRule(interface: Self.sessions, member: "SessionCompleted")])
    }

    /// Reports an event; returns its handler ID.
    func event(_ session: String, app: String = "org.example.App") throws -> UInt64 {
        try daemon.call(Self.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict([:])])
            .decode(0)
    }

    /// PendingHandlers, read after everything sent before is handled.
    func pending() throws -> UInt32 {
        let value: DBusValue = try daemon.call(
            "org.freedesktop.DBus.Properties", "Get", [.string("org.notifyd.Notifyd1.Daemon"), .string("PendingHandlers")]
        ).decode(0)
        guard case .uint32(let count) = value else { throw TestFailure("PendingHandlers is \(value)") }
        return count
    }

    /// Waits for `SessionCompleted` of `handler`; returns its result.
    func completion(of handler: UInt64) throws -> String {
        let signals = try #require(recorder.wait(seconds: 10) { $0.arguments.count == 4 && $0.arguments[2] == .uint64(handler) })
        guard case .string(let result) = try #require(signals.last).arguments[3] else { return "" }
        return result
    }

    @Test func aHandlerExpiresWhenItsDeadlineHasPassedAndNotBefore() throws {
        let handler = try event("dl-1")
        daemon.clock.advance(by: 29 * Self.second)
        try daemon.sync()
        #expect(try pending() == 1, "29 s in: still pending")
        daemon.clock.advance(by: 2 * Self.second)
        #expect(try completion(of: handler) == "expired")
        #expect(try pending() == 0)
        #expect(daemon.clock.armedWakes == 0, "nothing pending: nothing armed")
    }

    /// Time asleep counts as elapsed time: after an hour's sleep the
    /// handler expires at resume, once.
    @Test func aDeadlinePassedWhileAsleepExpiresOnceAtResume() throws {
        let handler = try event("dl-2")
        daemon.clock.advance(by: Self.hour)
        #expect(try completion(of: handler) == "expired")
        try daemon.sync()
        #expect(recorder.received.count == 1, "invoked exactly once")
    }

    /// The wall clock set back an hour: the stored deadline moves with it,
    /// so the handler expires 30 s after it was stored, not an hour later.
    @Test func aClockSetBackAnHourChangesNoExpiry() throws {
        let handler = try event("dl-3")
        daemon.clock.setWallClock(by: -Self.hour)
        try daemon.sync()
        try daemon.waitForLog("set back by 3600.0 s; 1 deadline(s) moved")
        daemon.clock.advance(by: 29 * Self.second)
        try daemon.sync()
        #expect(try pending() == 1)
        daemon.clock.advance(by: 2 * Self.second)
        #expect(try completion(of: handler) == "expired")
    }

    /// Set forward an hour: the handler does not expire at once.
    @Test func aClockSetForwardAnHourChangesNoExpiry() throws {
        let handler = try event("dl-4")
        daemon.clock.setWallClock(by: Self.hour)
        try daemon.sync()
        try daemon.waitForLog("set forward by 3600.0 s; 1 deadline(s) moved")
        #expect(try pending() == 1, "not an hour early")
        daemon.clock.advance(by: 31 * Self.second)
        #expect(try completion(of: handler) == "expired")
    }

    /// A completed session's waiters are answered, and its handler's
    /// deadline no longer wakes the daemon.
    @Test func completingAnswersWaitersAndDisarmsTheDeadline() throws {
        let handler = try event("dl-5")
        try daemon.sync()  // the deadline is armed after the commit that answered the event
        #expect(daemon.clock.armedWakes == 1)
        #expect(try daemon.call(Self.sessions, "CompleteSession", [.string("dl-5")]) == [.uint32(1)])
        #expect(try completion(of: handler) == "completed")
        #expect(try daemon.call(Self.sessions, "WaitForSession", [.string("dl-5")]) == [.string("completed")])
        try daemon.sync()
        #expect(daemon.clock.armedWakes == 0)
    }

    /// A handler stored before a restart expires at its stored deadline.
    @Test func aHandlerSurvivesARestartWithItsDeadline() throws {
        let handler = try event("dl-6")
        #expect(daemon.stop() == 0)
        let clock = daemon.clock
        clock.advance(by: 10 * Self.second)
        let restarted = try InProcessDaemon(bus: daemon.bus, stateDirectory: daemon.stateDirectory, clock: clock)
        defer { restarted.stop() }
        try restarted.waitForLog("pending-handlers=1")
        clock.advance(by: 21 * Self.second)
        #expect(try completion(of: handler) == "expired")
    }
}
