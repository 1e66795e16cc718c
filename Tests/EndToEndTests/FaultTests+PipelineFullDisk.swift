import DBus
import Foundation
import NotifyTesting
import Testing

extension FaultTests {
    /// A commit fails mid-pipeline: the disk fills while one batch is held
    /// before its first write (the SlowDisk library's write gate) and the
    /// next fills on top of it. Both batches' callers get the disk-full
    /// error, and nothing of either is kept, in memory, on the bus or on
    /// disk: nothing reaches the disk that was decided on a state that
    /// never did. The batch before them is committed and answered; once
    /// the disk has room again, calls work again, and survive a `kill -9`.
    @Test(.timeLimit(.minutes(2))) func aCommitFailingMidPipelineFailsTheBatchDecidedOnTopOfIt() throws {
        guard let mount = try Self.scratchDisk("a full disk", { try ScratchMount.tmpfs(kilobytes: 8_192) }) else { return }
        let bus = try TestBus()
        let disk = try SlowDisk(gatesIn: bus.directory)
        let state = mount.directory.appendingPathComponent("state")
        var daemon = try DaemonProcess(bus: bus, stateDirectory: state, extraEnvironment: disk.environment)
        defer {
            daemon.stop(signal: SIGKILL)
            mount.unmount()
        }
        let client = try FaultClient(address: bus.address)
        let meter = "org.example.Meter"
        let app = "org.example.Refused"
        let title = String(repeating: "a title long enough to need pages of its own ", count: 20)
        try client.setBadge(meter, 1)

        // Batch 1, answered: held while it syncs, before the disk fills.
        try disk.shut(.sync)
        let first = try AsyncCaller(address: bus.address)
        let kept = try first.start(FaultClient.badges, "SetBadge", [.string(meter), .uint32(2)])
        try disk.waitUntilHeld(at: .sync)
        // Batch 2: 300 events with long titles, decided while batch 1 syncs.
        try disk.shut(.write)
        let second = try AsyncCaller(address: bus.address)
        try second.call(FaultClient.badges, "GetBadge", [.string(app)])
        let refused = try (0..<300).map { index in
            try second.start(
                FaultClient.sessions, "HandleEventsForBackgroundSession",
                [.string("refused-\(index)"), .string(app), .vardict(["notify": .boolean(false), "title": .string(title)])])
        }
        try second.decided()
        try mount.fill(with: mount.directory.appendingPathComponent("filler"))
        try disk.open(.sync)
        #expect(try kept.values(seconds: 20) == [])
        // Batch 2 is now held before its first write; batch 3 is decided on top of it.
        try disk.waitUntilHeld(at: .write)
        let third = try AsyncCaller(address: bus.address)
        try third.call(FaultClient.badges, "GetBadge", [.string(meter)])
        let onTop = [
            try third.start(FaultClient.badges, "IncrementBadge", [.string(meter), .int32(1)]),
            try third.start(FaultClient.badges, "SetBadge", [.string(app), .uint32(40)]),
        ]
        try third.decided()
        #expect(try client.badge(meter) == 2, "reads see batch 1, committed")
        #expect(try client.badge(app) == 0)
        let badgeSignals = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: FaultClient.badges, member: "BadgeChanged")])

        try disk.open(.write)
        var answered: [String] = []
        for (index, call) in (refused + onTop).enumerated() {
            switch try call.outcome(seconds: 30) {
            case .success(let values): answered.append("call \(index) answered \(values)")
            case .failure(let error):
                #expect(error.name == DBusError.Name.ioError && Self.saysDiskFull(error.message), "call \(index): \(error)")
            }
        }
        #expect(answered.isEmpty, "\(answered.count) call(s) of the failed batches were answered: \(answered.prefix(3))")
        #expect(try client.badge(meter) == 2)
        #expect(try client.badge(app) == 0)
        #expect(try client.property("PendingHandlers") == .uint32(0))
        #expect(try client.sessions().isEmpty)
        try? FileManager.default.removeItem(at: mount.directory.appendingPathComponent("filler"))
        // Room again: calls work, without a restart.
        try client.setBadge(meter, 9)
        try client.event("after", app: app, ["notify": .boolean(false)])
        let signalled = badgeSignals.received.map(\.arguments)
        #expect(!signalled.contains { $0.first == .string(app) && $0.dropFirst().first == .uint32(40) }, "\(signalled)")
        #expect(!signalled.contains { $0.first == .string(meter) && $0.dropFirst().first == .uint32(3) }, "\(signalled)")

        daemon.stop(signal: SIGKILL)
        daemon = try DaemonProcess(bus: bus, stateDirectory: state)
        #expect(try client.badge(meter) == 9)
        #expect(try client.badge(app) == 1)
        #expect(try client.sessions().keys.sorted() == ["after"])
    }
}
