import DBus
import Glibc
import NotifyTestingCore

/// `ListSessions` with many pending handlers, each on a session of its own
/// (the largest reply there is: 100,000 rows by default, SPEC's limit of
/// pending handlers): how long it holds notifyd's loop, what another caller
/// waits meanwhile, and notifyd's resident memory before, at its peak and
/// after the reply.
///
/// On a bus and a notifyd of their own, like the load section's. The
/// sessions come from worker signals (10,000 per app, notifyd's limit per
/// app; `notify` false, a deadline of a day), sent 10,000 at a time and
/// counted with `PendingHandlers`. Then, after the probe alone (the
/// baseline), ``calls`` times: the probe (``ListSessionsProbe``) calls
/// `GetBadge` back to back while the benchmark calls `ListSessions` once and
/// checks its reply. The peak is `VmHWM` after the peak was reset
/// (`/proc/PID/clear_refs`) before each call.
struct ListSessionsBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    /// Sessions, one pending handler each.
    let sessions: Int
    /// ListSessions calls to time.
    let calls: Int

    static let perApp = 10_000
    /// Probe calls of the baseline, with nothing else running.
    static let baselineCalls = 2_000
    /// After the sessions are stored, and after the last call, before memory is read.
    static let settleSeconds = 2.0

    struct Result {
        let sessions: Int
        let rows: Int
        let replyBytes: Int
        let populateNanoseconds: UInt64
        /// Each ListSessions round trip.
        let roundTrips: [UInt64]
        /// The probe alone, then the probe during each call.
        let baseline: LatencySummary
        let during: [LatencySummary]
        /// The probe while a copy of the reply crosses the bus without notifyd (the bus's own share).
        let busOnly: LatencySummary
        let busOnlyNanoseconds: UInt64
        let before: ProcessMemory
        /// VmHWM after each call (reset before it).
        let peaks: [Int]
        let after: ProcessMemory
        let pendingAfter: Int

        var slowestProbe: Double { during.map(\.maximum).max() ?? .nan }
        var peak: Int { peaks.max() ?? 0 }
        var roundTrip: LatencySummary { LatencySummary(roundTrips) }
    }

    /// Starts the bus and notifyd, measures, stops them.
    func run() throws(BenchFailure) -> Result {
        let daemon = try BenchDaemon(
            programs: programs, scratch: scratch, section: "list-sessions", name: "The list-sessions notifyd")
        defer { daemon.stop() }
        return try daemon.measure(measure)
    }

    private func measure(_ daemon: BenchDaemon) throws(BenchFailure) -> Result {
        let (bus, notifyd, connection) = (daemon.bus, daemon.notifyd, daemon.connection)
        let client = ListSessionsClient(connection: connection)
        let populate = try MonotonicClock.measure { () throws(BenchFailure) in
            try client.populate(sessions: sessions, perApp: Self.perApp, address: bus.address)
        }
        MonotonicClock.sleep(seconds: Self.settleSeconds)
        let memory = IdleBenchmark(pid: notifyd.pid)
        let before = try memory.measureMemory()

        let baselineProbe = ListSessionsProbe(address: bus.address)
        try baselineProbe.start(limit: Self.baselineCalls)
        let baseline = LatencySummary(try baselineProbe.stopAfterLimit())

        var roundTrips: [UInt64] = []
        var during: [LatencySummary] = []
        var peaks: [Int] = []
        var rows = 0
        var replyBytes = 0
        for _ in 0..<calls {
            resetPeak(pid: notifyd.pid)
            let probe = ListSessionsProbe(address: bus.address)
            try probe.start()
            probe.waitForCalls(20)
            let start = MonotonicClock.nanoseconds()
            let reply = try client.listSessions()
            roundTrips.append(MonotonicClock.nanoseconds() - start)
            MonotonicClock.sleep(seconds: 0.1)  // the probe's calls queued behind the reply
            during.append(LatencySummary(try probe.stop()))
            peaks.append(try memory.measureMemory().peakResidentKilobytes ?? 0)
            replyBytes = reply.wireSize
            rows = try client.checkedRows(reply, expected: sessions)
        }
        let (busOnly, busOnlyTime) = try busBaseline(connection: connection, address: bus.address, client: client)
        MonotonicClock.sleep(seconds: Self.settleSeconds)
        return Result(
            sessions: sessions, rows: rows, replyBytes: replyBytes, populateNanoseconds: populate,
            roundTrips: roundTrips, baseline: baseline, during: during, busOnly: busOnly,
            busOnlyNanoseconds: busOnlyTime, before: before, peaks: peaks,
            after: try memory.measureMemory(), pendingAfter: try client.pendingHandlers())
    }

    /// The probe while the reply's array crosses the bus twice without
    /// notifyd: the benchmark sends it to itself as a signal, then calls the
    /// bus's `GetId`, answered once the bus has handled the signal. The
    /// probe's slowest call then is what the bus alone costs another caller.
    private func busBaseline(
        connection: DBusConnection, address: String, client: ListSessionsClient
    ) throws(BenchFailure) -> (LatencySummary, UInt64) {
        let reply = try client.listSessions()
        MonotonicClock.sleep(seconds: 0.5)
        let copy: DBusMessage
        do {
            copy = try DBusMessage.signal(
                path: EventBurst.path, interface: "org.notifyd.Bench", member: "Copy", destination: connection.uniqueName)
            try copy.appendArgument(0, of: reply)
        } catch {
            throw BenchFailure("cannot copy the ListSessions reply into a signal: \(error)")
        }
        let probe = ListSessionsProbe(address: address)
        try probe.start()
        probe.waitForCalls(20)
        let start = MonotonicClock.nanoseconds()
        do {
            try connection.send(copy)
            _ = try connection.callBus("GetId")
        } catch {
            throw BenchFailure("cannot send the copy of the reply across the bus: \(error)")
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        MonotonicClock.sleep(seconds: 0.1)
        return (LatencySummary(try probe.stop()), elapsed)
    }

    /// Resets `VmHWM` to the current `VmRSS` (`echo 5 > /proc/PID/clear_refs`).
    private func resetPeak(pid: pid_t) {
        let descriptor = open("/proc/\(pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }
}

extension ListSessionsProbe {
    /// Joins a probe started with a limit once it has made its calls.
    func stopAfterLimit() throws(BenchFailure) -> [UInt64] {
        waitForCalls(ListSessionsBenchmark.baselineCalls)
        return try stop()
    }
}
