import DBus
import Foundation
import Testing
import NotifyTesting

extension FaultTests {
    // MARK: A full disk

    /// The state directory on an 8 MiB tmpfs, filled to the last block
    /// while notifyd runs, with a fresh WAL and with one that has been
    /// through many checkpoints (1,500 commits first: notifyd checkpoints
    /// the WAL every 64 pages, and it starts again at its beginning).
    ///
    /// A change that fits in space SQLite already holds is saved: changes
    /// go into the WAL file's old frames until one must grow it; then
    /// notifyd empties the WAL into the database (TRUNCATE) and tries once
    /// more, which works while the database file need not grow. After that
    /// `write` fails with ENOSPC (SQLITE_FULL) and the change is refused.
    /// The -shm file is already allocated (32 KiB, enough for 4,096 frames).
    @Test(.timeLimit(.minutes(1)), arguments: [0, 1_500])
    func aFullDiskRefusesChangesClearlyAndServiceResumesWhenSpaceReturns(commitsBefore: Int) throws {
        guard let disk = try Self.scratchDisk("a full disk", { try ScratchMount.tmpfs(kilobytes: 8_192) }) else { return }
        let bus = try TestBus()
        let daemon = try DaemonProcess(bus: bus, stateDirectory: disk.directory.appendingPathComponent("state"))
        defer {
            daemon.stop(signal: SIGKILL)
            disk.unmount()
        }
        let client = try FaultClient(address: bus.address)
        let meter = "org.example.Meter"
        let app = "org.example.Disk"
        let quiet: [String: DBusValue] = ["notify": .boolean(false), "timeout": .uint32(86_400)]
        try client.setBadge(meter, 1)
        var answered: [String] = []
        for index in 0...commitsBefore {
            try client.event("before-\(index)", app: app, quiet)
            answered.append("before-\(index)")
        }

        let filler = disk.directory.appendingPathComponent("filler")
        try disk.fill(with: filler)
        // Changes on the full disk until 10 are refused: a saved one must
        // stay; a refused one gets a clear error and leaves nothing, in
        // memory or on the bus.
        let badgeSignals = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: FaultClient.badges, member: "BadgeChanged")])
        var meterValue: UInt32 = 1
        var refusals: [DBusError] = []
        var refusedValues: Set<UInt32> = []
        var refusedSessions: [String] = []
        var problems: [String] = []
        for index in 0..<3_000 where refusals.count < 10 {
            let refusal: DBusError?
            if index % 2 == 0 {
                let value = UInt32(index + 2)
                refusal = client.failure(FaultClient.badges, "SetBadge", [.string(meter), .uint32(value)])
                if refusal == nil { meterValue = value } else { refusedValues.insert(value) }
            } else {
                let session = "full-\(index)"
                refusal = client.eventFailure(session, app: app, quiet)
                if refusal == nil { answered.append(session) } else { refusedSessions.append(session) }
            }
            guard let refusal else { continue }
            refusals.append(refusal)
            if refusal.name != DBusError.Name.ioError || !Self.saysDiskFull(refusal.message) {
                problems.append("call \(index) refused with \(refusal)")
            }
            let now = (
                meter: try client.badge(meter), events: try client.badge(app),
                pending: try client.property("PendingHandlers")
            )
            let expected = UInt32(answered.count)
            if now.meter != meterValue || now.events != expected || now.pending != .uint32(expected) {
                problems.append("after refused call \(index): \(now), expected \(meterValue) and \(expected) events")
            }
        }
        #expect(!refusals.isEmpty, "3,000 changes on a full disk were all accepted")
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        let sessions = try client.sessions()
        #expect(Set(sessions.keys) == Set(answered), "refused events left: \(refusedSessions.filter { sessions[$0] != nil })")
        // Every BadgeChanged notifyd sent before answering is recorded.
        try drain(badgeSignals, with: client.connection, marker: Self.badgeMarker)
        let signalled = badgeSignals.received.compactMap { signal -> UInt32? in
            guard signal.arguments.first == .string(meter), case .uint32(let value)? = signal.arguments.last else { return nil }
            return value
        }
        #expect(
            refusedValues.isDisjoint(with: signalled), "BadgeChanged for refused values: \(refusedValues.intersection(signalled))")
        #expect(daemon.log.contains("cannot save state"), "the log has the error")
        #expect(Self.saysDiskFull(daemon.log), "the log says the disk is full")

        // Space returns: the refused calls succeed, without a restart.
        let pid = daemon.pid
        try FileManager.default.removeItem(at: filler)
        for value in refusedValues.sorted() {
            try client.setBadge(meter, value)
            meterValue = value
        }
        for session in refusedSessions {
            try client.event(session, app: app, quiet)
            answered.append(session)
        }
        #expect(try client.badge(meter) == meterValue)
        #expect(try client.badge(app) == UInt32(answered.count))
        #expect(daemon.pid == pid)

        // And it is all on disk, undamaged.
        try daemon.crashAndRestart()
        #expect(try client.badge(meter) == meterValue)
        #expect(try client.badge(app) == UInt32(answered.count))
        #expect(Set(try client.sessions().keys) == Set(answered))
        try Self.expectIntact(database: daemon.stateDirectory.appendingPathComponent("state.sqlite3"))
    }

    // MARK: A read-only file system

    /// A file system cannot be remounted read-only while notifyd holds its
    /// database open for writing: the kernel refuses (`mount -o remount,ro`
    /// of the tmpfs or of a bind mount: EBUSY, "mount point is busy"). It
    /// does turn read-only under open files when it fails: here ext4 with
    /// `errors=remount-ro` after an error, triggered through
    /// /sys/fs/ext4/DEV/trigger_fs_error (writes then fail with EROFS).
    /// ext4 then refuses `remount,rw` until it is unmounted and checked,
    /// which needs notifyd stopped: the service resumes after a restart.
    @Test(.timeLimit(.minutes(1))) func aFileSystemTurningReadOnlyRefusesChangesClearlyAndLosesNothing() throws {
        guard let disk = try Self.scratchDisk("a read-only state directory", { try ScratchMount.ext4(megabytes: 16) }) else { return }
        let bus = try TestBus()
        let stateDirectory = disk.directory.appendingPathComponent("state")
        let daemon = try DaemonProcess(bus: bus, stateDirectory: stateDirectory)
        defer {
            daemon.stop(signal: SIGKILL)
            disk.unmount()
        }
        let client = try FaultClient(address: bus.address)
        let meter = "org.example.Meter"
        let app = "org.example.Disk"
        let quiet: [String: DBusValue] = ["notify": .boolean(false), "timeout": .uint32(86_400)]
        try client.setBadge(meter, 3)
        for index in 0..<5 { try client.event("ro-\(index)", app: app, quiet) }

        try disk.triggerFileSystemError()
        let options = try disk.options
        #expect(options.hasPrefix("ro") || options.contains("emergency_ro"), "mounted \(options)")
        let badgeSignals = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: FaultClient.badges, member: "BadgeChanged")])
        let refusal = client.failure(FaultClient.badges, "SetBadge", [.string(meter), .uint32(4)])
        #expect(refusal?.name == DBusError.Name.ioError, "\(String(describing: refusal))")
        #expect(
            refusal.map { Self.saysReadOnly($0.message) } == true,
            "the message names the problem: \(String(describing: refusal))")
        let refusedEvent = client.eventFailure("ro-refused", app: app, quiet)
        #expect(refusedEvent?.name == DBusError.Name.ioError, "\(String(describing: refusedEvent))")
        #expect(try client.badge(meter) == 3)
        #expect(try client.badge(app) == 5)
        #expect(try client.sessions()["ro-refused"] == nil)
        #expect(try client.property("PendingHandlers") == .uint32(5))
        // Every BadgeChanged notifyd sent before answering is recorded.
        try drain(badgeSignals, with: client.connection, marker: Self.badgeMarker)
        let changes = badgeSignals.received.filter { $0.arguments.first != Self.badgeMarker.arguments.first }
        #expect(changes.isEmpty, "no BadgeChanged for a refused change: \(changes)")
        #expect(daemon.log.contains("cannot save state"), "the log has the error")
        #expect(Self.saysReadOnly(daemon.log), "the log says the file system is read-only")

        // The way back: stop notifyd, check the file system, mount it, start.
        #expect(daemon.stop(signal: SIGTERM) == 0)
        disk.unmount()
        try disk.repair()
        try disk.remount()
        try daemon.start()
        #expect(try client.badge(meter) == 3)
        #expect(try client.badge(app) == 5)
        #expect(try client.property("PendingHandlers") == .uint32(5))
        try client.setBadge(meter, 4)
        #expect(try client.badge(meter) == 4)
        try Self.expectIntact(database: stateDirectory.appendingPathComponent("state.sqlite3"))
    }

    // MARK: Helpers

    /// A BadgeChanged the test sends itself, as a barrier (see ``drain(_:with:marker:seconds:)``).
    static let badgeMarker = (
        path: "/org/example/Barrier", interface: FaultClient.badges, member: "BadgeChanged",
        arguments: [DBusValue.string("org.example.Barrier"), .uint32(0)])

    static func saysDiskFull(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains("full") || lower.contains("no space")
    }

    static func saysReadOnly(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains("read-only") || lower.contains("readonly") || lower.contains("read only")
    }

    /// `PRAGMA integrity_check` with the sqlite3 command-line tool says "ok".
    static func expectIntact(database: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            Issue.record(
                "cannot check the database: /usr/bin/sqlite3 is missing (apt-get install sqlite3)",
                sourceLocation: sourceLocation)
            return
        }
        let result = try runProcess("/usr/bin/sqlite3", [database.path, "PRAGMA integrity_check"])
        #expect(
            result.status == 0 && result.stdout == "ok\n", "integrity_check: \(result.stdout)\(result.stderr)",
            sourceLocation: sourceLocation)
    }
}
