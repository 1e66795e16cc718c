import Glibc
import NotifyTestingCore

/// The rows each section adds to the report, with the project's targets.
extension BenchReport {
    /// GetBadge p50 may take at most this many times Ping's.
    static let getBadgeToPingTarget = 1.30
    /// notifyctl's p50 may take at most this many times busctl's.
    static let notifyctlToBusctlTarget = 1.00
    /// Resident memory of the idle daemon must stay below this.
    static let idleResidentTargetKilobytes = 15.0 * 1024

    mutating func addCallLatency(_ result: CallLatencyBenchmark.Result) {
        let (getBadge, ping) = (result.getBadge, result.ping)
        rows += ReportRow.latencies(
            "getbadge", "GetBadge round trip", getBadge, against: "Peer.Ping", ping, [.p50, .p99, .mean],
            targets: [.p50: .ratioAtMost(Self.getBadgeToPingTarget)])
        notes.append(
            "GetBadge and Ping: \(getBadge.count) calls each, alternating, after \(result.warmUpCalls) of each to warm up; "
                + "GetBadge adds \(NumberText.fixed((getBadge.p50 - ping.p50) / 1000, decimals: 1)) µs at p50; "
                + "slowest GetBadge \(ReportRow.text(getBadge.maximum / 1000, .microseconds)), "
                + "slowest Ping \(ReportRow.text(ping.maximum / 1000, .microseconds)).")
    }

    mutating func addClientSpawns(_ outcomes: [ClientSpawnBenchmark.Outcome]) {
        func summary(_ name: String) -> LatencySummary? {
            outcomes.first { $0.client.name == name }?.summary
        }
        func milliseconds(_ value: Double?) -> Double? { value.map { $0 / 1_000_000 } }
        let notifyctl = summary("notifyctl")
        let busctl = summary("busctl")
        let gdbus = summary("gdbus")
        let unavailable = outcomes.first { $0.client.name == "notifyctl" && $0.summary == nil }?.detail
        rows.append(
            ReportRow(
                id: "notifyctl_p50", figure: "notifyctl badge get, p50", value: milliseconds(notifyctl?.p50),
                unit: .milliseconds, baseline: "busctl call, p50", baselineValue: milliseconds(busctl?.p50),
                target: .ratioAtMost(Self.notifyctlToBusctlTarget), note: unavailable))
        rows.append(
            ReportRow(
                id: "notifyctl_mean", figure: "notifyctl badge get, mean", value: milliseconds(notifyctl?.mean),
                unit: .milliseconds, baseline: "busctl call, mean", baselineValue: milliseconds(busctl?.mean),
                note: unavailable))
        // Always shown, so that a missing gdbus is visible rather than a missing row.
        let gdbusMissing = gdbus == nil
            ? (outcomes.first { $0.client.name == "gdbus" }?.detail ?? "gdbus not found") : nil
        rows.append(
            ReportRow(
                id: "notifyctl_p50_vs_gdbus", figure: "notifyctl badge get, p50", value: milliseconds(notifyctl?.p50),
                unit: .milliseconds, baseline: "gdbus call, p50", baselineValue: milliseconds(gdbus?.p50),
                note: unavailable ?? gdbusMissing))
        rows.append(
            ReportRow(
                id: "busctl_p50_vs_gdbus", figure: "busctl call, p50", value: milliseconds(busctl?.p50),
                unit: .milliseconds, baseline: "gdbus call, p50", baselineValue: milliseconds(gdbus?.p50),
                note: gdbusMissing))
        for outcome in outcomes {
            if let summary = outcome.summary {
                notes.append(
                    "\(outcome.client.commandLine): \(summary.count) runs, p50 \(ReportRow.text(summary.p50 / 1e6, .milliseconds)), "
                        + "p99 \(ReportRow.text(summary.p99 / 1e6, .milliseconds)); it printed \"\(outcome.detail)\".")
            } else {
                notes.append("\(outcome.client.name) unavailable: \(outcome.detail)")
            }
        }
    }

    mutating func addWakeUps(_ wakeUps: IdleBenchmark.WakeUps) {
        let seconds = NumberText.compact(wakeUps.seconds)
        rows.append(
            ReportRow(
                id: "idle_context_switches", figure: "context switches in \(seconds) s idle", value: Double(wakeUps.total),
                unit: .count, target: .atMost(0),
                note: "voluntary \(wakeUps.voluntary), nonvoluntary \(wakeUps.nonvoluntary)"))
        let woken = wakeUps.threadsThatWoke.map { "\($0.name) (\($0.tid)): \($0.switches)" }
        notes.append(
            "Idle: threads \(wakeUps.after.threads.count); "
                + (woken.isEmpty ? "none woke." : "woke: \(woken.joined(separator: ", ")) "
                    + "(voluntary \(wakeUps.voluntary), nonvoluntary \(wakeUps.nonvoluntary))."))
    }

    mutating func addMemory(idle: ProcessMemory, atStart: ProcessMemory?) {
        rows += ReportRow.resident(
            "idle_rss", "resident memory (VmRSS), idle", idle, target: .below(Self.idleResidentTargetKilobytes))
        rows += ReportRow.resident("startup_rss", "resident memory (VmRSS), just started", atStart)
        if let peak = idle.peakResidentKilobytes {
            rows.append(
                ReportRow(id: "peak_rss", figure: "peak resident memory (VmHWM)", value: Double(peak), unit: .kilobytes))
        }
        notes.append(
            "Memory: VmRSS \(idle.residentKilobytes) kB, of which anonymous (RssAnon) "
                + "\(ReportRow.anonymousText(idle)) kB; threads \(idle.threads.map { String($0) } ?? "?").")
    }
}
