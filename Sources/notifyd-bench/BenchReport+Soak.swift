import NotifyTestingCore

/// The rows of the soak section. Its targets are the issue's: over the
/// last 10 minutes (the last half of a shorter run) resident memory grows
/// under 2 % (on the line through the window's samples, ``SoakTrend``) and
/// descriptors not at all; no call fails.
extension BenchReport {
    mutating func addSoak(_ result: SoakBenchmark.Result) {
        let window = result.window
        let windowText: String = {
            guard let first = window.first, let last = window.last else { return "" }
            return "minutes \(NumberText.fixed(first.seconds / 60, decimals: 1)) to \(NumberText.fixed(last.seconds / 60, decimals: 1))"
        }()
        let descriptors = window.map(\.descriptors)
        let resident = SoakTrend(window.map { ($0.seconds, Double($0.residentKilobytes)) })
        let anonymous = SoakTrend(window.compactMap { sample in sample.anonymousKilobytes.map { (sample.seconds, Double($0)) } })
        let trendText = "the least-squares line through the \(resident?.samples ?? window.count) samples of \(windowText)"
            + (window.first.map { first in window.last.map { "; read: \(first.residentKilobytes) to \($0.residentKilobytes) kB" } ?? "" } ?? "")
        rows.append(
            ReportRow(
                id: "soak_rss_growth", figure: "soak: VmRSS at the end", value: resident?.end, unit: .kilobytes,
                baseline: "the line, 10 min before (or half the run)", baselineValue: resident?.start,
                target: .ratioAtMost(1.02), note: trendText))
        rows.append(
            ReportRow(
                id: "soak_anon_growth", figure: "soak: RssAnon at the end", value: anonymous?.end, unit: .kilobytes,
                baseline: "the line, 10 min before (or half the run)", baselineValue: anonymous?.start,
                note: "the same line, of RssAnon"))
        rows.append(
            ReportRow(
                id: "soak_fd_change", figure: "soak: descriptors, most minus fewest",
                value: descriptors.max().flatMap { max in descriptors.min().map { Double(max - $0) } }, unit: .count,
                target: .exactly(0), note: "\(windowText); \(descriptors.first.map(String.init) ?? "?") at the start of it"))
        rows.append(
            ReportRow(
                id: "soak_errors", figure: "soak: error replies", value: Double(result.outcome.errorCount), unit: .count,
                target: .exactly(0),
                note: result.outcome.errors.isEmpty
                    ? nil
                    : Self.countsText(result.outcome.errors) + "; e.g. "
                        + (result.outcome.errorExamples.values.sorted().first ?? "")))
        let failedSpawns = result.spawns.failed.values.reduce(0, +)
        rows.append(
            ReportRow(
                id: "soak_spawn_failures", figure: "soak: short-lived callers that failed", value: Double(failedSpawns),
                unit: .count, target: .exactly(0),
                note: result.spawns.example.map { "of \(result.spawns.spawned); e.g. \($0)" }
                    ?? "of \(result.spawns.spawned)"))
        let seconds = result.samples.last?.seconds ?? 0
        rows.append(
            ReportRow(
                id: "soak_calls_per_second", figure: "soak: calls/s, all clients",
                value: seconds > 0 ? Double(result.outcome.answeredCount) / seconds : nil, unit: .perSecond,
                note: "\(result.outcome.answeredCount) calls from \(result.clients) clients"))
        addSoakNotes(result)
    }

    private mutating func addSoakNotes(_ result: SoakBenchmark.Result) {
        let calls = CallMix.soak.calls.compactMap { call in result.outcome.answered[call].map { "\(call.rawValue) \($0)" } }
        notes.append(
            "Soak: \(NumberText.compact(result.minutes)) min on a notifyd of its own, after filling the bounded stores "
                + "(\(result.prefill.calls) calls in \(NumberText.fixed(result.prefill.seconds, decimals: 1)) s: 1000 "
                + "activations and 100 fetches per app, 1000 finished sessions); \(result.clients) clients of "
                + "\(SoakClient.appsPerClient) apps each, answered: \(calls.joined(separator: ", ")); "
                + "\(result.spawns.spawned) short-lived callers (gdbus emit, busctl call, an abandoned task, an "
                + "activation whose connection leaves).")
        let lines = result.samples.map { sample in
            "\(NumberText.fixed(sample.seconds / 60, decimals: 1)) min: VmRSS \(sample.residentKilobytes) kB, RssAnon "
                + "\(sample.anonymousKilobytes.map(String.init) ?? "?") kB, \(sample.descriptors) fds, "
                + "\(sample.threads.map(String.init) ?? "?") threads, \(sample.pendingHandlers.map(String.init) ?? "?") "
                + "pending, \(sample.answered) calls, \(sample.spawned) spawned, \(sample.errors) errors"
        }
        notes.append("Soak samples: " + lines.joined(separator: "; ") + ".")
        if let after = result.after {
            notes.append(
                "Soak, after the clients stopped: VmRSS \(after.residentKilobytes) kB, RssAnon "
                    + "\(after.anonymousKilobytes.map(String.init) ?? "?") kB, peak VmHWM "
                    + "\(after.peakResidentKilobytes.map(String.init) ?? "?") kB.")
        }
    }
}
