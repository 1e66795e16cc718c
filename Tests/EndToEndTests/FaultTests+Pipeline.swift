import DBus
import Foundation
import NotifyTesting
import Testing

extension FaultTests {
    // MARK: A batch on its way to disk

    /// While the disk holds a batch (its fsync held by the SlowDisk
    /// library), notifyd answers every read at once, from what is
    /// committed, to every connection but the writer's own; the write is
    /// answered once it is on disk, and a call decided on top of it after
    /// that. The writer's own read waits for its write and sees it.
    @Test(.timeLimit(.minutes(1))) func readsAreAnsweredWhileABatchSyncs() throws {
        let bus = try TestBus()
        let disk = try SlowDisk(gatesIn: bus.directory)
        let daemon = try DaemonProcess(bus: bus, stateDirectory: nil, extraEnvironment: disk.environment)
        defer { daemon.stop(signal: SIGKILL) }
        let reader = try FaultClient(address: bus.address)
        let app = "org.example.Held"
        try reader.setBadge(app, 1)
        try reader.event("held-1", app: app, ["notify": .boolean(false), "timeout": .uint32(86_400)])

        try disk.shut(.sync)
        let writer = try AsyncCaller(address: bus.address)
        let write = try writer.start(FaultClient.badges, "SetBadge", [.string(app), .uint32(5)])
        try disk.waitUntilHeld(at: .sync)
        let other = try AsyncCaller(address: bus.address)
        try other.call(FaultClient.badges, "GetBadge", [.string(app)])  // identified, nothing in flight
        let onTop = try other.start(FaultClient.badges, "IncrementBadge", [.string(app), .int32(1)])
        try other.decided()
        let ownRead = try writer.start(FaultClient.badges, "GetBadge", [.string(app)])

        // Every read of another connection, answered while the batch syncs.
        #expect(try reader.badge(app) == 2, "the committed badge: 1, and the event's 1")
        let listed: [String: UInt32] = try reader.call(FaultClient.badges, "ListBadges").decode(0)
        #expect(listed == [app: 2])
        #expect(try reader.property("PendingHandlers") == .uint32(1))
        #expect(try reader.sessions()["held-1"]?.pending == 1)
        #expect(try reader.call("org.notifyd.Notifyd1.Apps", "GetState", [.string(app)]) == [.string("not-running")])
        try reader.call("org.notifyd.Notifyd1.Fetch", "GetFetchSchedule", [.string(app)])
        try reader.call("org.notifyd.Notifyd1.Tasks", "ListBackgroundTasks")
        #expect(!write.isAnswered, "the write waits for the disk")
        #expect(!onTop.isAnswered, "so does the call decided on top of it")
        #expect(!ownRead.isAnswered, "and the writer's own read, sent after its write")

        try disk.open(.sync)
        #expect(try write.values(seconds: 10) == [])
        #expect(try ownRead.values(seconds: 10) == [.uint32(5)], "the writer reads its own write")
        #expect(try onTop.values(seconds: 10) == [.uint32(6)])
        #expect(try reader.badge(app) == 6)
    }

    /// `kill -9` while a batch syncs: every call answered before survives,
    /// once; the batch held is on disk whole or not at all (its `pwrite`s
    /// are in the kernel's cache, its fsync is not done: it may be found
    /// after the restart, never in part); handler IDs are never given twice.
    @Test(.timeLimit(.minutes(1))) func killNineWhileABatchSyncsLosesNothingAnswered() throws {
        let bus = try TestBus()
        let disk = try SlowDisk(gatesIn: bus.directory)
        var daemon = try DaemonProcess(bus: bus, stateDirectory: nil, extraEnvironment: disk.environment)
        let state = daemon.stateDirectory
        let client = try FaultClient(address: bus.address)
        let app = "org.example.Killed"
        let quiet: [String: DBusValue] = ["notify": .boolean(false), "timeout": .uint32(86_400)]
        var answeredIDs: [UInt64] = []
        for index in 0..<10 { answeredIDs.append(try client.event("answered-\(index)", app: app, quiet)) }
        try client.setBadge("org.example.Meter", 3)

        try disk.shut(.sync)
        let writer = try AsyncCaller(address: bus.address)
        let held = try writer.start(FaultClient.sessions, "HandleEventsForBackgroundSession", [.string("held"), .string(app), .vardict(quiet)])
        let increment = try writer.start(FaultClient.badges, "IncrementBadge", [.string("org.example.Meter"), .int32(1)])
        try disk.waitUntilHeld(at: .sync)
        daemon.stop(signal: SIGKILL)
        try disk.open(.sync)
        for call in [held, increment] {
            if case .success(let values) = try call.outcome(seconds: 30) {
                Issue.record("a call of the held batch was answered \(values) before its commit")
            }
        }

        daemon = try DaemonProcess(bus: bus, stateDirectory: state)
        defer { daemon.stop(signal: SIGKILL) }
        let sessions = try client.sessions()
        for index in 0..<10 { #expect(sessions["answered-\(index)"]?.pending == 1, "answered-\(index) survived") }
        // The event's rows (session, handler, badge) are one batch, whole
        // or not at all; the increment, sent after it, in it or the next.
        let heldStored = sessions["held"] != nil
        #expect(try client.badge(app) == (heldStored ? 11 : 10), "held: \(heldStored)")
        let meter = try client.badge("org.example.Meter")
        #expect(meter == 3 || (meter == 4 && heldStored), "meter \(meter), held: \(heldStored)")
        let next = try client.event("after-restart", app: app, quiet)
        let lastGiven = (answeredIDs.max() ?? 0) + (heldStored ? 1 : 0)
        #expect(next > lastGiven, "no handler ID given twice: \(next) after \(answeredIDs) (held stored: \(heldStored))")
    }
}
