import DBus
import NotifyTestingCore

/// A slow disk: notifyd with every `fsync` and `fdatasync` 20 ms longer
/// (`libSlowDisk.so` preloaded with `NOTIFYD_SLOW_DISK_MS=20`, as a
/// laptop's spinning disk, an eMMC or SD card, or a disk under load). notifyd
/// commits on a writer thread of its own, so one client's commits must not
/// hold up another client's reads: before they moved off the bus thread, a
/// reader's GetBadge p50 while one client wrote was 230 times its idle one.
///
/// On a bus and a notifyd of their own (in the subdirectory `slow-disk`),
/// the library in notifyd's environment only. A reader connection times
/// GetBadge and Peer.Ping round trips alternately (``RoundTripTimer``), first
/// with notifyd idle, then while a second connection on another thread
/// (``BadgeWriter``) calls IncrementBadge in a loop for the whole phase.
/// The writer's badge, read after it stopped, must equal its increments
/// answered.
struct SlowDiskBenchmark {
    /// What every fsync and fdatasync of notifyd takes more.
    static let syncDelayMilliseconds = 20

    let programs: BenchPrograms
    let scratch: ScratchDirectory
    /// GetBadge and Ping calls of each phase (each).
    let calls: Int
    /// Untimed calls of each before the idle phase.
    let warmUpCalls: Int

    /// What the section measured, or why it could not run.
    enum Outcome {
        case measured(Result)
        /// The library is missing: why, in a sentence.
        case unavailable(String)
    }

    struct Result {
        let calls: Int
        let warmUpCalls: Int
        let idle: RoundTripTimer.RoundTrips
        let busy: RoundTripTimer.RoundTrips
        /// From the busy phase's first call to its last reply.
        let busyNanoseconds: UInt64
        /// IncrementBadge calls answered during the busy phase.
        let writerCallsDuringBusy: Int
        /// The writer's figures once it stopped.
        let writer: BadgeWriter.Tally
        /// The writer's badge, read after it stopped.
        let writerBadge: UInt32

        var writerCallsPerSecond: Double? {
            busyNanoseconds > 0 ? Double(writerCallsDuringBusy) / (Double(busyNanoseconds) / 1e9) : nil
        }
    }

    /// Starts the bus and notifyd with the library, measures, stops them;
    /// unavailable when the library is missing.
    func run() throws(BenchFailure) -> Outcome {
        guard let library = programs.slowDisk else {
            let reason =
                "no \(BenchPrograms.slowDiskLibrary) next to notifyd in \(Executables.directoryName(of: programs.notifyd)) "
                + "(`swift build` builds it: the SlowDisk product)."
            Progress.say("the slow-disk section is unavailable: \(reason)")
            return .unavailable(reason)
        }
        Progress.say(
            "timing \(calls) GetBadge and Ping calls idle, then while a client writes, on a notifyd of its own whose "
                + "fsync takes \(Self.syncDelayMilliseconds) ms more")
        let daemon = try BenchDaemon(
            programs: programs, scratch: scratch, section: "slow-disk", name: "The slow-disk notifyd",
            environment: ["LD_PRELOAD": library, "NOTIFYD_SLOW_DISK_MS": "\(Self.syncDelayMilliseconds)"])
        defer { daemon.stop() }
        return .measured(try daemon.measure { daemon throws(BenchFailure) in try measure(daemon, library: library) })
    }

    private func measure(_ daemon: BenchDaemon, library: String) throws(BenchFailure) -> Result {
        // LD_PRELOAD that fails to load is only a warning of the dynamic linker: the figures would be a fast disk's.
        guard ProcReader.readFile("/proc/\(daemon.pid)/maps")?.contains("/" + BenchPrograms.slowDiskLibrary) == true else {
            throw BenchFailure("the slow-disk notifyd has not loaded \(library) (LD_PRELOAD). \(daemon.notifyd.logTail())")
        }
        let (appID, badge) = (BenchRun.appID, BenchRun.badge)
        try CallLatencyBenchmark(connection: daemon.connection, appID: appID, expectedBadge: badge).prepare()
        let reader: DBusConnection
        do {
            reader = try DBusConnection.connect(to: .address(daemon.bus.address), private: true)
        } catch {
            throw BenchFailure("the slow-disk reader cannot connect: \(error)")
        }
        let timer = RoundTripTimer(connection: reader, appID: appID)
        let idle = try timer.alternate(calls: calls, warmUpCalls: warmUpCalls)

        let writer = try BadgeWriter(address: daemon.bus.address)
        defer { writer.stop() }
        try writer.waitForAnswers(3, seconds: 30)  // connected and writing before the clock starts
        let (answeredBefore, busyStart) = (writer.tally.answered, MonotonicClock.nanoseconds())
        let busy = try timer.alternate(calls: calls, warmUpCalls: 0)
        let (answeredAfter, busyEnd) = (writer.tally.answered, MonotonicClock.nanoseconds())
        writer.stop()

        guard try daemon.connection.notifydBadge(appID) == badge else {
            throw BenchFailure("the badge of \(appID) changed during the slow-disk section.")
        }
        return Result(
            calls: calls, warmUpCalls: warmUpCalls, idle: idle, busy: busy, busyNanoseconds: busyEnd - busyStart,
            writerCallsDuringBusy: answeredAfter - answeredBefore, writer: writer.tally,
            writerBadge: try daemon.connection.notifydBadge(BadgeWriter.appID))
    }
}
