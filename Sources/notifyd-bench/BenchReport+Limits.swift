/// The rows of the limits section: what one item of each kind costs, the
/// worst case at the documented limits, and memory once cleared.
extension BenchReport {
    /// Memory once clients cleared what they can, against before they added it.
    static let limitsClearedTarget = 1.10

    mutating func addLimits(_ result: LimitsBenchmark.Result) {
        for phase in result.phases where !phase.name.hasPrefix("clearing") {
            rows.append(
                ReportRow(
                    id: "limits_" + phase.name.split(separator: " ").prefix(3).joined(separator: "_"),
                    figure: "memory per \(phase.name) (RssAnon)", value: phase.anonymousPerItem, unit: .bytes,
                    note: "VmRSS \(NumberText.fixed(phase.residentPerItem, decimals: 0)) B; \(phase.items) items, "
                        + "\(NumberText.fixed(phase.rate, decimals: 0))/s"))
        }
        if let start = result.start {
            rows.append(
                ReportRow(
                    id: "limits_start_rss", figure: "limits: resident memory (VmRSS), fresh notifyd",
                    value: Double(start.residentKilobytes), unit: .kilobytes))
        }
        if let filled = result.filled {
            rows.append(
                ReportRow(
                    id: "limits_filled_rss", figure: "limits: VmRSS with every limit filled (measured scale)",
                    value: Double(filled.residentKilobytes), unit: .kilobytes,
                    note: "RssAnon \(filled.anonymousKilobytes.map { String($0) } ?? "?") kB"))
            rows.append(
                ReportRow(
                    id: "limits_peak_rss", figure: "limits: peak resident memory (VmHWM)",
                    value: filled.peakResidentKilobytes.map(Double.init), unit: .kilobytes))
        }
        if let worst = worstCaseKilobytes(result) {
            rows.append(
                ReportRow(
                    id: "limits_worst_rss", figure: "limits: VmRSS at every documented limit (extrapolated)",
                    value: worst, unit: .kilobytes,
                    note: "fetch history and activations extrapolated from the scale measured"))
        }
        if let kept = result.kept, let cleared = result.cleared {
            rows.append(
                ReportRow(
                    id: "limits_cleared_rss", figure: "limits: VmRSS once cleared", value: Double(cleared.residentKilobytes),
                    unit: .kilobytes, baseline: "before the clearable state", baselineValue: Double(kept.residentKilobytes),
                    target: .ratioAtMost(Self.limitsClearedTarget),
                    note: "RssAnon \(cleared.anonymousKilobytes.map { String($0) } ?? "?") kB against "
                        + "\(kept.anonymousKilobytes.map { String($0) } ?? "?") kB"))
        }
        if let kept = result.kept, let after = result.afterEvent {
            rows.append(
                ReportRow(
                    id: "limits_after_event_rss", figure: "limits: VmRSS once cleared, after one more event",
                    value: Double(after.residentKilobytes), unit: .kilobytes, baseline: "before the clearable state",
                    baselineValue: Double(kept.residentKilobytes), target: .ratioAtMost(Self.limitsClearedTarget),
                    note: "the finished sessions beyond the 1000 kept are forgotten when an event is recorded"))
        }
        rows.append(
            ReportRow(
                id: "limits_errors", figure: "limits: calls refused while filling", value: Double(result.errors.count),
                unit: .count, target: .exactly(0)))
        let past = result.pastLimits.map { "\($0.limit): \($0.answer)" }
        rows.append(
            ReportRow(
                id: "limits_enforced", figure: "limits: calls past a limit refused with LimitExceeded",
                value: Double(result.pastLimits.filter { $0.answer == "LimitExceeded" }.count), unit: .count,
                target: .exactly(Double(result.pastLimits.count))))
        notes.append(
            "Limits: on a notifyd of its own, the state built through the bus by \(LimitsBenchmark.clients) client connections "
                + "(blocking calls) and, for handlers, worker signals; memory read \(NumberText.compact(LimitsBenchmark.settleSeconds)) s "
                + "after each phase. Fetch history: \(result.fetchApps) apps × \(LimitsBenchmark.historyPerApp) fetches "
                + "(FetchNow + CompleteFetch); activations: \(LimitsBenchmark.appLimit) apps once, then \(result.activationApps) apps "
                + "up to \(LimitsBenchmark.activationsPerApp) each. Cleared: tasks ended, badges cleared, every pending session "
                + "completed, the clients' connections closed (their apps not-running); kept: fetch schedules and history, "
                + "activations, the \(LimitsBenchmark.finishedKept) finished sessions. PendingHandlers after clearing: "
                + "\(result.pendingAfterClearing).")
        for phase in result.phases {
            notes.append(
                "Limits, \(phase.name): \(phase.items) in \(NumberText.fixed(Double(phase.nanoseconds) / 1e9, decimals: 1)) s; "
                    + "VmRSS \(phase.before.residentKilobytes) → \(phase.after.residentKilobytes) kB, RssAnon "
                    + "\(phase.before.anonymousKilobytes.map { String($0) } ?? "?") → \(phase.after.anonymousKilobytes.map { String($0) } ?? "?") kB.")
        }
        if !past.isEmpty { notes.append("Limits, one call past each: " + past.joined(separator: "; ") + ".") }
        for error in result.errors { notes.append("Limits, refused: \(error)") }
    }

    /// The resident memory with every documented limit filled: what was
    /// measured, plus the fetch history and activations the run did not
    /// make, at their measured cost per item.
    private func worstCaseKilobytes(_ result: LimitsBenchmark.Result) -> Double? {
        guard let filled = result.filled else { return nil }
        var extra = 0.0
        if let history = result.phase("fetch history row") {
            let missing = (LimitsBenchmark.appLimit - result.fetchApps) * LimitsBenchmark.historyPerApp
            extra += Double(missing) * max(0, history.anonymousPerItem ?? history.residentPerItem)
        }
        if let activations = result.phase("activation") {
            let missing = (LimitsBenchmark.appLimit - result.activationApps) * (LimitsBenchmark.activationsPerApp - 1)
            extra += Double(missing) * max(0, activations.anonymousPerItem ?? activations.residentPerItem)
        }
        return Double(filled.residentKilobytes) + extra / 1024
    }
}
