import DBus
import Foundation
import Testing
import NotifyTesting

/// Pending handlers survive `kill -9`; those whose deadline passed while
/// notifyd was down are invoked `expired` at start-up.
@Suite struct SessionRestartTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func pendingHandlersSurviveKillNineWithTheirDeadlines() throws {
        let a = try fixture.event("keep", app: "app", ["timeout": .uint32(3600)])
        let b = try fixture.event("keep", app: "app", ["timeout": .uint32(3600)])
        try fixture.event("done", app: "app")
        _ = try fixture.call(Fixture.sessions, "CompleteSession", [.string("done")])
        try fixture.daemon.crashAndRestart()
        let sessions = try fixture.sessions()
        #expect(sessions["keep"]?.pending == 2)
        #expect(sessions["done"]?.pending == 0)
        #expect(sessions["done"]?.details["last-result"] == .string("completed"))
        #expect(try fixture.badge("app") == 3)
        // IDs go on increasing after a restart; the restored handlers are the same ones.
        let c = try fixture.event("keep", app: "app")
        #expect(c > b && b > a)
        let recorder = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "SessionCompleted")])
        #expect(try fixture.call(Fixture.sessions, "CompleteSession", [.string("keep")]) == [.uint32(3)])
        let signals = try #require(recorder.wait { $0.arguments.count == 4 && $0.arguments[2] == .uint64(c) })
        #expect(signals.map { $0.arguments[2] } == [.uint64(a), .uint64(b), .uint64(c)])
    }

    @Test func deadlinesThatPassedWhileDownExpireAtStartUp() throws {
        let due = try fixture.event("due", app: "app", ["timeout": .uint32(1)])
        // notifyd stored it before answering: its deadline is at most 1 s from now.
        let dueBy = ContinuousClock.now + .seconds(1)
        let later = try fixture.event("later", app: "app", ["timeout": .uint32(3600)])
        fixture.daemon.stop(signal: SIGKILL)
        try fixture.daemon.waitForName(present: false)
        // The condition is the passing of time itself: wait until the deadline is behind.
        try waitUntil("the deadline of \(due) has passed", seconds: 5) { ContinuousClock.now > dueBy }
        let recorder = try SignalRecorder(
            address: fixture.bus.address, rules: [DBusMatchRule(interface: Fixture.sessions, member: "SessionCompleted")])
        try fixture.daemon.start()
        let signals = try #require(recorder.wait { $0.arguments.count == 4 && $0.arguments[2] == .uint64(due) })
        #expect(signals.last?.arguments == [.string("due"), .string("app"), .uint64(due), .string("expired")])
        #expect(try fixture.pending("due") == 0)
        #expect(try fixture.pending("later") == 1)
        #expect(later > due)
    }

    @Test func aBurstOfAnsweredEventsSurvivesKillNine() throws {
        for index in 0..<500 {
            let message = try DBusMessage.methodCall(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.sessions,
                member: "HandleEventsForBackgroundSession",
                arguments: [.string("burst-\(index % 10)"), .string("app"), .vardict(["notify": .boolean(false)])])
            try fixture.client.send(message)
        }
        let last = try fixture.event("burst-last", app: "app", ["notify": .boolean(false)])
        #expect(last > 0)
        try fixture.daemon.crashAndRestart()
        #expect(try fixture.property("PendingHandlers") == .uint32(501))
        #expect(try fixture.badge("app") == 501)
    }
}
