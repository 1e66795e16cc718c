import NotifyTestingCore

/// The rows of the list-sessions section. Targets: another call waits less
/// than 100 ms longer during ListSessions than while the same reply crosses
/// the bus without notifyd (notifyd's loop is never held that long at
/// once), and resident memory comes back to within 10 % of where it was.
extension BenchReport {
    /// The longest another caller may wait during ListSessions.
    static let listSessionsWaitLimit = 100.0
    /// Resident memory after the replies, against before, at most.
    static let listSessionsMemoryRatio = 1.10

    mutating func addListSessions(_ result: ListSessionsBenchmark.Result) {
        let n = NumberText.fixed(Double(result.sessions), decimals: 0)
        // What notifyd adds to the wait, beyond what the same bytes cost the bus itself: the
        // longest notifyd's loop was held at once, give or take a round trip.
        rows.append(
            ReportRow(
                id: "list_sessions_loop_held", figure: "ListSessions (\(n) sessions): other call's wait beyond the bus's",
                value: max(0, result.slowestProbe - result.busOnly.maximum) / 1e6, unit: .milliseconds,
                target: .below(Self.listSessionsWaitLimit)))
        rows.append(
            ReportRow(
                id: "list_sessions_other_call_max", figure: "ListSessions (\(n) sessions): other call, slowest",
                value: result.slowestProbe / 1e6, unit: .milliseconds, baseline: "same call alone, slowest",
                baselineValue: result.baseline.maximum / 1e6))
        rows.append(
            ReportRow(
                id: "list_sessions_other_call_max_bus", figure: "ListSessions (\(n) sessions): other call, slowest",
                value: result.slowestProbe / 1e6, unit: .milliseconds, baseline: "reply crossing the bus alone",
                baselineValue: result.busOnly.maximum / 1e6))
        rows.append(
            ReportRow(
                id: "list_sessions_other_call_p50", figure: "ListSessions (\(n) sessions): other call, p50",
                value: (result.during.map(\.p50).max() ?? .nan) / 1e6, unit: .milliseconds,
                baseline: "same call alone, p50", baselineValue: result.baseline.p50 / 1e6))
        rows.append(
            ReportRow(
                id: "list_sessions_round_trip", figure: "ListSessions (\(n) sessions) round trip, p50",
                value: result.roundTrip.p50 / 1e6, unit: .milliseconds, baseline: "GetBadge alone, p50",
                baselineValue: result.baseline.p50 / 1e6))
        rows.append(
            ReportRow(
                id: "list_sessions_reply_size", figure: "ListSessions (\(n) sessions) reply size",
                value: Double(result.replyBytes) / 1024, unit: .kilobytes))
        let before = Double(result.before.residentKilobytes)
        rows.append(
            ReportRow(
                id: "list_sessions_rss_before", figure: "resident memory before ListSessions", value: before,
                unit: .kilobytes))
        rows.append(
            ReportRow(
                id: "list_sessions_rss_peak", figure: "peak resident memory during ListSessions (VmHWM)",
                value: Double(result.peak), unit: .kilobytes, baseline: "before ListSessions", baselineValue: before))
        rows.append(
            ReportRow(
                id: "list_sessions_rss_after", figure: "resident memory after ListSessions",
                value: Double(result.after.residentKilobytes), unit: .kilobytes, baseline: "before ListSessions",
                baselineValue: before, target: .ratioAtMost(Self.listSessionsMemoryRatio)))
        func ms(_ nanoseconds: Double) -> String { ReportRow.text(nanoseconds / 1e6, .milliseconds) }
        let slowest = result.during.map { ms($0.maximum) }.joined(separator: ", ")
        let trips = result.roundTrips.map { ms(Double($0)) }.joined(separator: ", ")
        let peaks = result.peaks.map { ReportRow.text(Double($0), .kilobytes) }.joined(separator: ", ")
        let probes = result.during.map { String($0.count) }.joined(separator: ", ")
        notes.append(
            "ListSessions: \(n) pending handlers, each on a session of its own (10000 per app, stored by worker "
                + "signals in \(ms(Double(result.populateNanoseconds)))), on a notifyd of their own; "
                + "\(result.roundTrips.count) calls, round trips \(trips), each answering \(result.rows) rows, "
                + "sorted, in \(NumberText.fixed(Double(result.replyBytes), decimals: 0)) bytes. Meanwhile another "
                + "connection called GetBadge back to back (\(probes) calls), slowest \(slowest); alone "
                + "(\(result.baseline.count) calls) p50 \(ms(result.baseline.p50)), slowest "
                + "\(ms(result.baseline.maximum)); while a copy of the reply crossed the bus from the benchmark to itself "
                + "without notifyd (\(ms(Double(result.busOnlyNanoseconds)))), \(result.busOnly.count) calls, slowest "
                + "\(ms(result.busOnly.maximum)). VmRSS before \(ReportRow.text(before, .kilobytes)) (RssAnon "
                + "\(result.before.anonymousKilobytes.map { ReportRow.text(Double($0), .kilobytes) } ?? "?")), peak "
                + "per call \(peaks), after \(NumberText.compact(ListSessionsBenchmark.settleSeconds)) s "
                + "\(ReportRow.text(Double(result.after.residentKilobytes), .kilobytes)) (RssAnon "
                + "\(result.after.anonymousKilobytes.map { ReportRow.text(Double($0), .kilobytes) } ?? "?")); "
                + "PendingHandlers afterwards \(result.pendingAfter).")
    }
}
