/// The rows of the cold-start section. The issue sets no figure for it:
/// the ratio is reported for information.
extension BenchReport {
    mutating func addColdStart(_ result: ColdStartBenchmark.Result) {
        let (cold, warm) = (result.cold, result.warm)
        rows += ReportRow.latencies(
            "cold_start", "GetBadge starting notifyd (activation)", cold, against: "GetBadge, running daemon", warm, [.p50],
            unit: .milliseconds)
        rows.append(
            ReportRow(
                id: "cold_start_max", figure: "GetBadge starting notifyd (activation), slowest", value: cold.maximum / 1e6,
                unit: .milliseconds))
        func ms(_ nanoseconds: Double) -> String { ReportRow.text(nanoseconds / 1e6, .milliseconds) }
        notes.append(
            "Cold start: \(cold.count) D-Bus activations on a bus of their own, each timed from sending GetBadge "
                + "(auto-start) to its reply, fastest \(ms(cold.minimum)), mean \(ms(cold.mean)); then "
                + "\(ColdStartBenchmark.warmCallsPerRun) GetBadge on the running daemon after "
                + "\(NumberText.compact(ColdStartBenchmark.settleSeconds)) s (\(warm.count) in all); then SIGTERM, "
                + "the name gone after \(ms(result.stop.p50)) (p50). Every start opened the same state directory, "
                + "whose database an untimed first activation created (in \(ms(Double(result.firstStart)))).")
    }
}
