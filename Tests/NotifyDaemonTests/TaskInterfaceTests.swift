import DBus
import Foundation
import NotifyCore
import NotifyDaemon
import NotifyTesting
import Testing

/// The Tasks interface against the daemon in the test's process, with a
/// clock moved by hand and a fake systemd-logind on a second private bus
/// standing in for the system bus: the lock taken and released, no gap
/// between locks, the cue and the expiry, abandonment, limits, no logind.
@Suite struct TaskInterfaceTests {
    static let tasks = "org.notifyd.Notifyd1.Tasks"
    static let second: Microseconds = 1_000_000
    let systemBus: TestBus
    let logind: FakeLogind
    let daemon: InProcessDaemon
    let recorder: SignalRecorder

    init() throws {
        systemBus = try TestBus()
        logind = try FakeLogind(address: systemBus.address)
        let bus = try TestBus()
        recorder = try SignalRecorder(
            address: bus.address,
            rules: [
                DBusMatchRule(interface: Self.tasks),
                DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
            ])
        let lockBus = systemBus.address
        daemon = try InProcessDaemon(bus: bus) { $0.sleepLockBus = .address(lockBus) }
    }

    func begin(_ app: String, _ name: String, client: DBusConnection? = nil) throws -> UInt64 {
        let arguments: [DBusValue] = [.string(app), .string(name)]
        let reply = try client.map {
            try $0.call(destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: Self.tasks,
                        member: "BeginBackgroundTask", arguments)
        } ?? daemon.call(Self.tasks, "BeginBackgroundTask", arguments)
        #expect(reply.last == .uint32(180))
        guard case .uint64(let id)? = reply.first else { throw TestFailure("\(reply)") }
        return id
    }

    func property(_ name: String) throws -> DBusValue {
        let value: DBusValue = try daemon.call(
            "org.freedesktop.DBus.Properties", "Get", [.string("org.notifyd.Notifyd1.Daemon"), .string(name)]
        ).decode(0)
        guard case .variant(let inner) = value else { return value }
        return inner
    }

    /// The Daemon properties announced with `PropertiesChanged`, in order,
    /// once `count` announcements have come.
    func announced(count: Int) throws -> [DBusValue] {
        let signals = try #require(recorder.wait(seconds: 10, forCount: count) {
            $0.member == "PropertiesChanged" && $0.arguments.first == .string("org.notifyd.Notifyd1.Daemon")
        })
        return signals.map { $0.arguments.count > 1 ? $0.arguments[1] : .strings([]) }
    }

    func ended(_ id: UInt64) throws -> String {
        let signals = try #require(recorder.wait(seconds: 10, forCount: 1) {
            $0.member == "BackgroundTaskEnded" && $0.arguments.first == .uint64(id)
        })
        guard case .string(let result) = signals[0].arguments[2] else { return "" }
        return result
    }

    @Test func aTaskHoldsOffSleepUntilItEnds() throws {
        let id = try begin("org.example.Backup", "upload")
        let call = try #require(try logind.waitForCalls(count: 1).first)
        #expect(call.what == "sleep" && call.who == "notifyd" && call.mode == "block")
        #expect(call.why == "org.example.Backup: upload")
        try logind.waitUntilHeld([0])
        try waitUntil("Inhibiting is true") { try property("Inhibiting") == .boolean(true) }
        #expect(try announced(count: 1) == [.vardict(["Inhibiting": .boolean(true)])])
        #expect(try property("RunningTasks") == .uint32(1))
        _ = try daemon.call(Self.tasks, "EndBackgroundTask", [.uint64(id)])
        #expect(try ended(id) == "ended")
        try logind.waitUntilHeld([])
        try waitUntil("Inhibiting is false") { try property("Inhibiting") == .boolean(false) }
        #expect(
            try announced(count: 2) == [
                .vardict(["Inhibiting": .boolean(true)]), .vardict(["Inhibiting": .boolean(false)]),
            ])
        #expect(try property("RunningTasks") == .uint32(0))
    }

    /// A second task: the lock naming both is taken while the first is
    /// still held, and only then is the first closed.
    @Test func aNewLockIsTakenBeforeTheOldOneIsClosed() throws {
        _ = try begin("org.example.Backup", "upload")
        try logind.waitForCalls(count: 1)
        try logind.waitUntilHeld([0])
        let second = try begin("org.example.Sync", "push")
        let calls = try logind.waitForCalls(count: 2)
        #expect(calls[1].why == "org.example.Backup: upload, org.example.Sync: push")
        #expect(calls[1].earlierHeld == [true], "no gap: the first lock was still held")
        try logind.waitUntilHeld([1])
        _ = try daemon.call(Self.tasks, "EndBackgroundTask", [.uint64(second)])
        let third = try logind.waitForCalls(count: 3)[2]
        #expect(third.why == "org.example.Backup: upload")
        #expect(third.earlierHeld == [false, true])
        try logind.waitUntilHeld([2])
    }

    @Test func theCueComesFiveSecondsBeforeTheDeadlineThenTheTaskExpires() throws {
        let id = try begin("org.example.Backup", "upload")
        try logind.waitUntilHeld([0])
        daemon.clock.advance(by: 174 * Self.second)
        try daemon.sync()
        #expect(!recorder.received.contains { $0.member == "BackgroundTaskExpiring" })
        let remaining: Double = try daemon.call(Self.tasks, "BackgroundTimeRemaining", [.string("org.example.Backup")]).decode(0)
        #expect(remaining == 6)
        daemon.clock.advance(by: Self.second)
        let cue = try #require(recorder.wait(seconds: 10, forCount: 1) { $0.member == "BackgroundTaskExpiring" })
        #expect(cue[0].arguments == [.uint64(id), .string("org.example.Backup"), .uint32(5)])
        daemon.clock.advance(by: 5 * Self.second)
        #expect(try ended(id) == "expired")
        try logind.waitUntilHeld([])
        try daemon.waitForLog("expired: it was not ended within its time")
    }

    @Test func aClientThatLeavesAbandonsItsTask() throws {
        let client = try DBusConnection.connect(to: .address(daemon.bus.address))
        let id = try begin("org.example.Backup", "upload", client: client)
        try logind.waitUntilHeld([0])
        client.close()
        #expect(try ended(id) == "abandoned")
        try logind.waitUntilHeld([])
        try daemon.waitForLog("was abandoned: the connection that began it left the bus without ending it")
    }

    @Test func limitsAndBadInputAreRefused() throws {
        for index in 0..<16 { _ = try begin("org.example.Many", "t\(index)") }
        #expect(throws: DBusError.self) { try daemon.call(Self.tasks, "BeginBackgroundTask", [.string("org.example.Many"), .string("17")]) }
        #expect(throws: DBusError.self) { try daemon.call(Self.tasks, "BeginBackgroundTask", [.string("org.example.Other"), .string("")]) }
        #expect(throws: DBusError.self) { try daemon.call(Self.tasks, "EndBackgroundTask", [.uint64(999)]) }
        #expect(try property("RunningTasks") == .uint32(16))
        guard case .array(_, let rows) = try #require(try daemon.call(Self.tasks, "ListBackgroundTasks").first) else {
            throw TestFailure("no list")
        }
        #expect(rows.count == 16)
    }
}

extension TaskInterfaceTests {
    /// polkit says no: the task runs all the same, without the lock, and
    /// one line says why; once logind gives locks again, the next change
    /// of the task set takes one.
    @Test func aRefusedLockLeavesTheTaskRunning() throws {
        logind.refuse("Access denied")
        let first = try begin("org.example.Backup", "upload")
        try daemon.waitForLog("systemd-logind gave no sleep lock (org.freedesktop.DBus.Error.AccessDenied): Access denied")
        #expect(try property("Inhibiting") == .boolean(false))
        #expect(try property("RunningTasks") == .uint32(1))
        logind.refuse(nil)
        _ = try begin("org.example.Sync", "push")
        try logind.waitUntilHeld([1])
        try daemon.waitForLog("systemd-logind holds off sleep for notifyd's tasks again")
        _ = try daemon.call(Self.tasks, "EndBackgroundTask", [.uint64(first)])
        #expect(try ended(first) == "ended")
    }
}

/// Without logind on the system bus, tasks work the same, without a lock.
@Suite struct TaskWithoutLogindTests {
    @Test func tasksRunWithoutALockAndOneLineSaysWhy() throws {
        let empty = try TestBus()
        let address = empty.address
        let daemon = try InProcessDaemon { $0.sleepLockBus = .address(address) }
        let reply = try daemon.call("org.notifyd.Notifyd1.Tasks", "BeginBackgroundTask", [.string("org.example.A"), .string("x")])
        guard case .uint64(let id)? = reply.first else { throw TestFailure("\(reply)") }
        try daemon.waitForLog("systemd-logind gave no sleep lock")
        _ = try daemon.call("org.notifyd.Notifyd1.Tasks", "EndBackgroundTask", [.uint64(id)])
        let value: DBusValue = try daemon.call(
            "org.freedesktop.DBus.Properties", "Get", [.string("org.notifyd.Notifyd1.Daemon"), .string("Inhibiting")]
        ).decode(0)
        #expect(value == .boolean(false))
    }
}
