import NotifyCore
import NotifyTestingCore

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
        rows += ReportRow.resident("limits_start_rss", "limits: resident memory (VmRSS), fresh notifyd", result.start)
        if let filled = result.filled {
            rows += ReportRow.resident(
                "limits_filled_rss", "limits: VmRSS with every limit filled (measured scale)", filled,
                note: "RssAnon \(ReportRow.anonymousText(filled)) kB")
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
            rows += ReportRow.resident(
                "limits_cleared_rss", "limits: VmRSS once cleared", cleared, against: "before the clearable state", kept,
                target: .ratioAtMost(Self.limitsClearedTarget),
                note: "RssAnon \(ReportRow.anonymousText(cleared)) kB against \(ReportRow.anonymousText(kept)) kB")
        }
        if let kept = result.kept {
            rows += ReportRow.resident(
                "limits_after_event_rss", "limits: VmRSS once cleared, after one more event", result.afterEvent,
                against: "before the clearable state", kept, target: .ratioAtMost(Self.limitsClearedTarget),
                note: "the finished sessions beyond the \(SessionBook.finishedSessionsKept) kept are forgotten when an "
                    + "event is recorded")
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
                + "after each phase. Fetch history: \(result.fetchApps) apps × \(FetchBook.historyKeptPerApp) fetches "
                + "(FetchNow + CompleteFetch); activations: \(AppBook.maximumApps) apps once, then \(result.activationApps) apps "
                + "up to \(AppBook.activationsKeptPerApp) each. Cleared: tasks ended, badges cleared, every pending session "
                + "completed, the clients' connections closed (their apps not-running); kept: fetch schedules and history, "
                + "activations, the \(SessionBook.finishedSessionsKept) finished sessions. PendingHandlers after clearing: "
                + "\(result.pendingAfterClearing).")
        for phase in result.phases {
            notes.append(
                "Limits, \(phase.name): \(phase.items) in \(NumberText.fixed(Double(phase.nanoseconds) / 1e9, decimals: 1)) s; "
                    + "VmRSS \(phase.before.residentKilobytes) → \(phase.after.residentKilobytes) kB, RssAnon "
                    + "\(ReportRow.anonymousText(phase.before)) → \(ReportRow.anonymousText(phase.after)) kB.")
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
            let missing = (FetchBook.maximumApps - result.fetchApps) * FetchBook.historyKeptPerApp
            extra += Double(missing) * max(0, history.anonymousPerItem ?? history.residentPerItem)
        }
        if let activations = result.phase("activation") {
            let missing = (AppBook.maximumApps - result.activationApps) * (AppBook.activationsKeptPerApp - 1)
            extra += Double(missing) * max(0, activations.anonymousPerItem ?? activations.residentPerItem)
        }
        return Double(filled.residentKilobytes) + extra / 1024
    }
}
