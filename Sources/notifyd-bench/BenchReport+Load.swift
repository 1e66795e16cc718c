import NotifyTestingCore

/// The rows of the load section. Its targets are the issue's: every call
/// answered, no error; the latencies are reported against Ping under the
/// same concurrency, with no target.
extension BenchReport {
    mutating func addLoad(_ result: LoadBenchmark.Result) {
        let outcome = result.outcome
        let pattern = "\(result.clients) clients × \(result.callsPerClient)"
        rows.append(
            ReportRow(
                id: "load_answered", figure: "load: calls answered", value: Double(result.answered), unit: .count,
                target: .exactly(Double(result.totalCalls)),
                note: result.setUpFailures.isEmpty ? pattern : "\(result.setUpFailures.count) clients could not start"))
        rows.append(
            ReportRow(
                id: "load_errors", figure: "load: error replies", value: Double(result.errorCount), unit: .count,
                target: .exactly(0), note: outcome.errors.isEmpty ? nil : Self.countsText(outcome.errors)))
        rows.append(
            ReportRow(
                id: "load_wrong_answers", figure: "load: wrong answers", value: Double(result.wrongCount), unit: .count,
                target: .exactly(0),
                note: outcome.wrongAnswers.isEmpty
                    ? nil : Self.countsText(Dictionary(uniqueKeysWithValues: outcome.wrongAnswers.map { ($0.key.rawValue, $0.value) }))))
        let (all, ping) = (result.all, result.ping)
        rows += ReportRow.latencies("load", "load: all calls", all, against: "Peer.Ping under load", ping, [.p50, .p99])
        func perSecond(_ count: Int, _ nanoseconds: UInt64) -> Double? {
            nanoseconds > 0 ? Double(count) / (Double(nanoseconds) / 1e9) : nil
        }
        rows.append(
            ReportRow(
                id: "load_calls_per_second", figure: "load: calls/s, all clients", value: perSecond(all.count, result.mixNanoseconds),
                unit: .perSecond, baseline: "Peer.Ping calls/s", baselineValue: perSecond(ping.count, result.pingNanoseconds)))
        for call in CallMix.load.calls {
            guard let summary = result.latencies[call] else { continue }
            rows += ReportRow.latencies(
                "load_\(call.key)", "load: \(call.rawValue)", summary, against: "Peer.Ping under load", ping, [.p50, .p99])
        }
        addLoadNotes(result)
    }

    private mutating func addLoadNotes(_ result: LoadBenchmark.Result) {
        let outcome = result.outcome
        func ms(_ nanoseconds: UInt64) -> String { ReportRow.text(Double(nanoseconds) / 1e6, .milliseconds) }
        func share(_ cpu: UInt64?, _ wall: UInt64) -> String {
            guard let cpu, wall > 0 else { return "?" }
            return "\(NumberText.fixed(Double(cpu) / Double(wall) * 100, decimals: 0)) %"
        }
        let scheduled = CallMix.load.calls.map { "\($0.rawValue) \(result.scheduled[$0] ?? 0)" }
        let pingErrors = outcome.pingErrors.values.reduce(0, +)
        notes.append(
            "Load: \(result.clients) clients, each a thread with its own connection making blocking calls, all at once: "
                + "\(result.callsPerClient) Peer.Ping calls each in \(ms(result.pingNanoseconds)) "
                + "(\(result.ping.count) answered, \(pingErrors) errors), then \(result.callsPerClient) calls of the mix each "
                + "in \(ms(result.mixNanoseconds)): \(scheduled.joined(separator: ", ")). "
                + "CPU of notifyd during the Pings \(share(result.pingCPU.notifyd, result.pingNanoseconds)) of a core, "
                + "during the mix \(share(result.mixCPU.notifyd, result.mixNanoseconds)); of its dbus-daemon "
                + "\(share(result.pingCPU.bus, result.pingNanoseconds)) and \(share(result.mixCPU.bus, result.mixNanoseconds)). "
                + "Slowest call \(ReportRow.text(result.all.maximum / 1000, .microseconds)), "
                + "slowest Ping \(ReportRow.text(result.ping.maximum / 1000, .microseconds)).")
        let after = result.after
        notes.append(
            "Load, after the clients completed what they left pending and cleared their badges (untimed): PendingHandlers "
                + "\(result.pendingAfter.map(String.init) ?? "?") (\(result.pendingBefore) before); notifyd's VmRSS "
                + "\(after.map { String($0.residentKilobytes) } ?? "?") kB, of which RssAnon "
                + "\(after?.anonymousKilobytes.map(String.init) ?? "?") kB (before the load: "
                + "\(result.before.residentKilobytes) kB and \(result.before.anonymousKilobytes.map(String.init) ?? "?") kB), "
                + "peak VmHWM \(after?.peakResidentKilobytes.map(String.init) ?? "?") kB"
                + (outcome.cleanUpFailures.isEmpty
                    ? "." : "; \(outcome.cleanUpFailures.count) clean-up calls failed, first: \(outcome.cleanUpFailures[0])."))
        for failure in result.setUpFailures.prefix(3) { notes.append("Load: a client could not start: \(failure)") }
        for (name, example) in outcome.errorExamples.sorted(by: { $0.key < $1.key }) {
            notes.append("Load error \(name), e.g. \(example)")
        }
        for (call, example) in outcome.wrongExamples.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            notes.append("Load: wrong answer to \(call.rawValue), e.g. \(example)")
        }
    }

    /// `org.freedesktop.DBus.Error.NoReply 3, ...`, largest first.
    static func countsText(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
