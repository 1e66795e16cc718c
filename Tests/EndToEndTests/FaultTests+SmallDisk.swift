import DBus
import Foundation
import Testing
import NotifyTesting

extension FaultTests {
    // MARK: A small disk

    /// A 2 MiB tmpfs holds thousands of events: the WAL is checkpointed
    /// once it passes 64 pages and cut back to that size, instead of growing
    /// to SQLite's 1,000 pages (4 MB), which filled this disk after about 80
    /// single-event commits. Four calls in flight: hundreds of commits.
    @Test(.timeLimit(.minutes(1))) func aTwoMegabyteDiskHoldsThousandsOfEvents() throws {
        guard let disk = try Self.scratchDisk("a small disk", { try ScratchMount.tmpfs(kilobytes: 2_048) }) else { return }
        let bus = try TestBus()
        let stateDirectory = disk.directory.appendingPathComponent("state")
        let daemon = try DaemonProcess(bus: bus, stateDirectory: stateDirectory)
        defer {
            daemon.stop(signal: SIGKILL)
            disk.unmount()
        }
        let count = 3_000
        let app = "org.example.Small"
        let stream = try CallStream(address: bus.address)
        stream.start(
            CallStream.Plan(count: count, window: 4) { index in
                try StreamedCall.event(session: "small-\(index)", app: app).message()
            })
        let outcomes = try stream.waitUntilDone(seconds: 45)
        let refused = outcomes.compactMap(\.error)
        #expect(refused.isEmpty, "\(refused.count) of \(count) refused, the first: \(refused.first.map { "\($0)" } ?? "")")
        let wal = stateDirectory.appendingPathComponent("state.sqlite3-wal")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(walSize <= 400_000, "the WAL file has \(walSize) bytes")

        let client = try FaultClient(address: bus.address)
        try daemon.crashAndRestart()
        #expect(try client.property("PendingHandlers") == .uint32(UInt32(count)))
        #expect(try client.badge(app) == UInt32(count))
        try Self.expectIntact(database: stateDirectory.appendingPathComponent("state.sqlite3"))
    }

    /// A worker signal has no caller to tell: when a full disk refuses it,
    /// the log names its session and app (at most five of them per line).
    @Test(.timeLimit(.minutes(1))) func aWorkerSignalRefusedByAFullDiskIsLoggedWithItsSession() throws {
        guard let disk = try Self.scratchDisk("a full disk", { try ScratchMount.tmpfs(kilobytes: 2_048) }) else { return }
        let bus = try TestBus()
        let stateDirectory = disk.directory.appendingPathComponent("state")
        let daemon = try DaemonProcess(bus: bus, stateDirectory: stateDirectory)
        defer {
            daemon.stop(signal: SIGKILL)
            disk.unmount()
        }
        let client = try FaultClient(address: bus.address)
        let app = "org.example.Signals"
        try client.setBadge("org.example.Meter", 1)
        try disk.fill(with: disk.directory.appendingPathComponent("filler"))
        // Signal and call from one connection: the bus keeps their order.
        let worker = try FaultClient(address: bus.address)
        var emitted: [String] = []
        for index in 0..<3_000 where !daemon.log.contains("cannot save state") {
            let session = "signal-\(index)"
            try worker.connection.emitSignal(
                path: "/org/example/Worker", interface: "org.notifyd.Notifyd1.Worker",
                member: "EventsForBackgroundSession",
                [.string(session), .string(app), .vardict(["notify": .boolean(false), "timeout": .uint32(86_400)])])
            emitted.append(session)
            // A call orders the check after the signal: notifyd has handled it,
            // and committed or refused it (then the call is refused too).
            _ = worker.failure(FaultClient.badges, "GetBadge", [.string(app)])
        }
        let line = try #require(
            daemon.log.split(separator: "\n").first { $0.contains("cannot save state") }, "no commit was refused")
        let stored = Set(try client.sessions().keys)
        let refused = emitted.filter { !stored.contains($0) }
        #expect(!refused.isEmpty)
        #expect(
            refused.allSatisfy { line.contains("session '\($0)' of \(app)") },
            "the log line does not name the refused sessions \(refused): \(line)")
        #expect(line.contains("event report(s)"), "\(line)")
        #expect(Self.saysDiskFull(String(line)), "\(line)")
        #expect(line.count < 2_000, "the line is bounded: \(line.count) characters")
    }
}
