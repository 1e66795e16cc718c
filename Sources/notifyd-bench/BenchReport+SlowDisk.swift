import NotifyTestingCore

/// The rows of the slow-disk section. Its targets are the issue's: with
/// every fsync 20 ms longer, a reader's GetBadge p50 while one client writes
/// in a loop at most 3x its p50 on the same notifyd idle (before the commits
/// moved off the bus thread: 230x), Peer.Ping's likewise; and the writer's
/// badge equal to its increments answered, with no error reply.
extension BenchReport {
    /// A reader's p50 while one client writes may be at most this many times its idle p50.
    static let slowDiskBusyToIdleTarget = 3.0

    /// The measured side and the baseline of the section's two rows with a target.
    private static let slowDiskRows = [
        (id: "slow_disk_getbadge", figure: "slow disk: GetBadge, a client writing", baseline: "GetBadge, notifyd idle"),
        (id: "slow_disk_ping", figure: "slow disk: Peer.Ping, a client writing", baseline: "Peer.Ping, notifyd idle"),
    ]

    mutating func addSlowDisk(_ outcome: SlowDiskBenchmark.Outcome) {
        let result: SlowDiskBenchmark.Result
        switch outcome {
        case .measured(let measured): result = measured
        case .unavailable(let reason):
            // Shown, not left out: a missing library must not pass for a met target.
            for row in Self.slowDiskRows {
                rows.append(
                    ReportRow(
                        id: "\(row.id)_p50", figure: "\(row.figure), p50", value: nil, unit: .microseconds,
                        baseline: "\(row.baseline), p50", target: .ratioAtMost(Self.slowDiskBusyToIdleTarget), note: reason))
            }
            notes.append("Slow disk: unavailable: \(reason)")
            return
        }
        let target: [ReportRow.Statistic: ReportRow.Target] = [.p50: .ratioAtMost(Self.slowDiskBusyToIdleTarget)]
        let sides = [(result.busy.getBadge, result.idle.getBadge), (result.busy.ping, result.idle.ping)]
        for (row, (busy, idle)) in zip(Self.slowDiskRows, sides) {
            rows += ReportRow.latencies(row.id, row.figure, busy, against: row.baseline, idle, [.p50, .p99], targets: target)
        }
        let writer = result.writer
        rows.append(
            ReportRow(
                id: "slow_disk_writer_calls_per_second", figure: "slow disk: IncrementBadge calls/s, one writer",
                value: result.writerCallsPerSecond, unit: .perSecond,
                note: "blocking calls, each waiting for its reply (after its commit)"))
        rows.append(
            ReportRow(
                id: "slow_disk_writer_badge", figure: "slow disk: the writer's badge at the end",
                value: Double(result.writerBadge), unit: .count, target: .exactly(Double(writer.answered)),
                note: "the target: its IncrementBadge calls answered"
                    + (writer.wrongCounts == 0 ? "" : "; \(writer.wrongCounts) answers were not the count before plus one")))
        rows.append(
            ReportRow(
                id: "slow_disk_writer_errors", figure: "slow disk: the writer's error replies", value: Double(writer.errorCount),
                unit: .count, target: .exactly(0), note: writer.firstError.map { "\(Self.countsText(writer.errors)); first: \($0)" }))
        addSlowDiskNote(result)
    }

    private mutating func addSlowDiskNote(_ result: SlowDiskBenchmark.Result) {
        func slowest(_ summary: LatencySummary) -> String { ReportRow.text(summary.maximum / 1e6, .milliseconds) }
        let (idle, busy) = (result.idle, result.busy)
        notes.append(
            "Slow disk: a notifyd of its own with \(BenchPrograms.slowDiskLibrary) preloaded, every fsync and fdatasync "
                + "\(SlowDiskBenchmark.syncDelayMilliseconds) ms longer. A reader connection timed \(result.calls) GetBadge "
                + "and \(result.calls) Peer.Ping calls, alternating, with notifyd idle (after \(result.warmUpCalls) of each "
                + "to warm up), then as many while a second connection on another thread called IncrementBadge in a loop, "
                + "each call waiting for its reply: \(result.writerCallsDuringBusy) answered in the "
                + "\(ReportRow.text(Double(result.busyNanoseconds) / 1e6, .milliseconds)) of the busy phase, "
                + "\(result.writer.answered) in all; its badge after \(result.writerBadge), its last answer "
                + "\(result.writer.lastCount). Slowest GetBadge idle \(slowest(idle.getBadge)), busy \(slowest(busy.getBadge)); "
                + "slowest Ping idle \(slowest(idle.ping)), busy \(slowest(busy.ping)).")
    }
}
