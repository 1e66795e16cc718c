import NotifyTestingCore

/// The rows of the events section, with the project's targets.
extension BenchReport {
    /// notifyd must store events durably at least this fraction of the bare receiver's rate.
    static let eventsToReceiverTarget = 0.50
    /// ... and at least this fraction of the rate of a receiver that emits notifyd's two signals per event.
    static let eventsToEmittingReceiverTarget = 0.50
    /// Popups a burst of one app may cost (3 singles, then one summary updated at most twice a second).
    static let popupsPerBurstTarget = 50.0
    /// Memory each pending handler may take.
    static let bytesPerHandlerTarget = 2048.0

    mutating func addEvents(_ result: EventsBenchmark.Result) {
        let count = Double(result.count)
        let baseline = result.fastestBaseline
        let emitting = result.fastestEmittingBaseline
        func rate(_ nanoseconds: UInt64?) -> Double? {
            guard let nanoseconds, nanoseconds > 0 else { return nil }
            return count / (Double(nanoseconds) / 1e9)
        }
        let unstored = result.stored == nil ? "PendingHandlers did not reach \(result.count) within "
            + "\(NumberText.compact(EventsBenchmark.storeWaitSeconds)) s" : nil
        rows.append(
            ReportRow(
                id: "events_per_second", figure: "events/s stored durably", value: rate(result.stored), unit: .perSecond,
                baseline: "events/s bare receiver", baselineValue: rate(baseline?.nanoseconds),
                target: .ratioAtLeast(Self.eventsToReceiverTarget), note: unstored))
        rows.append(
            ReportRow(
                id: "events_per_second_vs_emitting", figure: "events/s stored durably", value: rate(result.stored),
                unit: .perSecond, baseline: "events/s receiver emitting 2 signals each",
                baselineValue: rate(emitting?.nanoseconds), target: .ratioAtLeast(Self.eventsToEmittingReceiverTarget),
                note: unstored ?? "the receiver emits BadgeChanged and HandleEventsForBackgroundSession per event"))
        rows.append(
            ReportRow(
                id: "events_time", figure: "\(result.count) events, first send to stored",
                value: result.stored.map { Double($0) / 1e6 }, unit: .milliseconds,
                baseline: "first send to received", baselineValue: baseline.map { Double($0.nanoseconds) / 1e6 },
                note: unstored))
        func perEvent(_ nanoseconds: UInt64?) -> Double? { nanoseconds.map { Double($0) / count / 1000 } }
        rows.append(
            ReportRow(
                id: "events_cpu_notifyd", figure: "CPU per event, notifyd", value: perEvent(result.notifydCPU),
                unit: .microseconds, baseline: "CPU per event, bare receiver", baselineValue: perEvent(baseline?.receiverCPU)))
        rows.append(
            ReportRow(
                id: "events_cpu_notifyd_vs_emitting", figure: "CPU per event, notifyd", value: perEvent(result.notifydCPU),
                unit: .microseconds, baseline: "CPU per event, emitting receiver",
                baselineValue: perEvent(emitting?.receiverCPU)))
        rows.append(
            ReportRow(
                id: "events_cpu_bus", figure: "CPU per event, its dbus-daemon", value: perEvent(result.busCPU),
                unit: .microseconds, baseline: "the receiver's dbus-daemon", baselineValue: perEvent(baseline?.busCPU)))
        rows.append(
            ReportRow(
                id: "handlers_lost", figure: "handlers lost", value: Double(result.count - result.pending), unit: .count,
                target: .exactly(0), note: "PendingHandlers \(result.pending) after \(result.count) events"))
        rows.append(
            ReportRow(
                id: "badge_after_events", figure: "badge after \(result.count) events", value: Double(result.badge),
                unit: .count, target: .exactly(count)))
        rows.append(
            ReportRow(
                id: "popups_for_events", figure: "popups for \(result.count) events", value: Double(result.popups.notify),
                unit: .count, target: .atMost(Self.popupsPerBurstTarget),
                note: "\(result.popups.replacing) of them replaced a notification in place"))
        let grownKilobytes = result.after.residentKilobytes - result.before.residentKilobytes
        rows.append(
            ReportRow(
                id: "memory_per_pending_handler", figure: "memory per pending handler",
                value: Double(grownKilobytes) * 1024 / count, unit: .bytes, target: .below(Self.bytesPerHandlerTarget),
                note: "VmRSS \(result.before.residentKilobytes) kB before, \(result.after.residentKilobytes) kB after"))
        addEventNotes(result)
    }

    private mutating func addEventNotes(_ result: EventsBenchmark.Result) {
        func ms(_ nanoseconds: UInt64) -> String { ReportRow.text(Double(nanoseconds) / 1e6, .milliseconds) }
        func described(_ runs: [BareReceiverBaseline.Run]) -> String {
            runs.map { "\(ms($0.nanoseconds)) (sent in \(ms($0.timing.sendNanoseconds)))" }.joined(separator: ", ")
        }
        func perEvent(_ nanoseconds: UInt64?) -> String {
            nanoseconds.map { ReportRow.text(Double($0) / Double(result.count) / 1000, .microseconds) } ?? "?"
        }
        let emitting = result.fastestEmittingBaseline
        notes.append(
            "Events: \(result.count) EventsForBackgroundSession signals from one connection, sent in "
                + "\(ms(result.timing.sendNanoseconds)); notifyd counted them all "
                + (result.counted.map { "after \(ms($0)) (\(result.polls) poll\(result.polls == 1 ? "" : "s") of PendingHandlers), " } ?? "never, ")
                + (result.stored.map { "on disk after \(ms($0)) (GetBadge answered after the commit). " } ?? "not stored. ")
                + "Bare receiver on a second private bus, \(result.baseline.count) runs, the fastest counts: "
                + described(result.baseline) + ".")
        notes.append(
            "Events, emitting receiver (the wire work notifyd cannot avoid: for each worker signal the "
                + "\(PerEventSignals.perEvent) signals notifyd emits for it, BadgeChanged and "
                + "HandleEventsForBackgroundSession; flushed after the last), on the same second bus, taking turns "
                + "with the bare receiver, \(result.emittingBaseline.count) runs, the fastest counts: "
                + described(result.emittingBaseline) + "; its dbus-daemon used \(perEvent(emitting?.busCPU)) per event.")
        let anonymous = result.after.anonymousKilobytes.flatMap { after in
            result.before.anonymousKilobytes.map { "\(after - $0)" }
        }
        notes.append(
            "Events, after \(NumberText.compact(EventsBenchmark.settleSeconds)) s to settle: PendingHandlers "
                + "\(result.pending), badge \(result.badge); the counting server (notifyd sees \"\(result.serverName)\") "
                + "got \(result.popups.notify) Notify calls (\(result.popups.replacing) in place) and "
                + "\(result.popups.close) CloseNotification; VmRSS grew by "
                + "\(result.after.residentKilobytes - result.before.residentKilobytes) kB, RssAnon by \(anonymous ?? "?") kB.")
    }
}
